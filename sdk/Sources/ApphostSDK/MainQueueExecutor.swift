import CApphost
import Synchronization

/// ``GuestActor``'s executor: runs jobs on the guest's main queue, in the order they come.
///
/// The SDK owns no thread there (``MainQueue``), so it asks the host to call in: one
/// `dispatch_async` runs the jobs waiting then, and jobs enqueued meanwhile ask for the next
/// call, so that a stream of jobs never holds off the host's callbacks for long. Each call
/// goes through the host (which holds it while the guest is suspended), so a batch costs one
/// round trip rather than one per job.
///
/// `@unchecked Sendable`: all state is behind the lock.
final class MainQueueExecutor: SerialExecutor, @unchecked Sendable {
    static let shared = MainQueueExecutor()

    /// What the executor asks the host with: its `dispatch_async`, while the guest runs.
    private struct Dispatcher {
        let host: UnsafePointer<apphost_host_t>
        let background: UnsafePointer<apphost_background_t>
    }

    private struct State {
        /// Set from did_finish_launching (the host refuses dispatch_async during init) to
        /// deinit.
        var dispatcher: Dispatcher?
        /// Jobs waiting for the next call in, oldest first.
        var jobs: [UnownedJob] = []
        /// A call in is asked for and has not begun.
        var callRequested = false
    }

    private let state = Mutex(State())

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let dispatcher = state.withLock { state -> Dispatcher? in
            state.jobs.append(job)
            return Self.claimCall(&state)
        }
        if let dispatcher { requestCall(dispatcher) }
    }

    /// True on the main queue during the host's call: the Swift runtime asks when code
    /// assumes ``GuestActor`` isolation outside one of this executor's jobs (a callback).
    func isIsolatingCurrentContext() -> Bool? { MainQueue.isCurrent }

    func checkIsolated() {
        precondition(MainQueue.isCurrent, "ApphostSDK: GuestActor code called off the guest's main queue")
    }

    // MARK: - The guest's lifetime

    /// The guest launched: from now on the host runs work on its main queue. Jobs enqueued
    /// before now run next.
    func start(host: Apphost) {
        guard let background = host.background, background.table.pointee.dispatch_async != nil else {
            host.log(level: .error, "ApphostSDK: the host offers no dispatch_async: GuestActor work cannot run")
            return
        }
        let dispatcher = state.withLock { state -> Dispatcher? in
            state.dispatcher = Dispatcher(host: host.raw, background: background.table)
            return Self.claimCall(&state)
        }
        if let dispatcher { requestCall(dispatcher) }
    }

    /// The guest is unloaded (deinit): the host runs nothing more. Jobs still waiting are
    /// dropped; their tasks never resume.
    func stop() {
        state.withLock { state in
            state.dispatcher = nil
            state.jobs.removeAll()
            state.callRequested = false
        }
    }

    // MARK: - Calls in

    /// The dispatcher to ask for a call in with, if jobs wait and none is asked for yet.
    private static func claimCall(_ state: inout State) -> Dispatcher? {
        guard !state.jobs.isEmpty, !state.callRequested, let dispatcher = state.dispatcher else { return nil }
        state.callRequested = true
        return dispatcher
    }

    private func requestCall(_ dispatcher: Dispatcher) {
        let status = dispatcher.background.pointee.dispatch_async?(
            dispatcher.host, mainQueueExecutorTrampoline, nil)
        guard status != Int32(APPHOST_OK.rawValue) else { return }
        // The host refused (the guest is terminating, or out of memory): the jobs wait, and the
        // next enqueue asks again; deinit drops them.
        state.withLock { $0.callRequested = false }
    }

    /// The host's call in, on the main queue: runs the jobs waiting now.
    fileprivate func runJobs() {
        let jobs = state.withLock { state -> [UnownedJob] in
            state.callRequested = false
            defer { state.jobs.removeAll(keepingCapacity: true) }
            return state.jobs
        }
        let executor = asUnownedSerialExecutor()
        MainQueue.run {
            for job in jobs { job.runSynchronously(on: executor) }
        }
    }
}

/// `apphost_work_t` for the executor's calls in; captures nothing, so it converts to a C
/// function pointer.
private let mainQueueExecutorTrampoline: apphost_work_t = { _ in
    MainQueueExecutor.shared.runJobs()
}
