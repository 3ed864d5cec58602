import ApphostVocabulary
import CEpoll
import Dispatch
import Glibc
import Synchronization

/// The host's one event loop: a thread that runs the host queue's work (it is the host's
/// `HostExecutor`) and reads every worker's socket, with one epoll over each channel's socket and
/// exit descriptor, each worker's output, and an eventfd that work queued from other threads
/// rings.
///
/// One thread for both, so that a sporadic call's reply wakes the thread that is to run it: the
/// host queue's thread writes a call, sleeps in `epoll_wait`, and the worker's reply wakes it on
/// the processor where both just ran, where a reactor of its own would sleep on the other,
/// halted one, and a Dispatch queue would wake a third thread after it (Benchmarks/README.md,
/// sporadic round trips). A worker that answers at once, preempting the writer, finds no thread
/// waiting in epoll at all.
///
/// Work runs in the order queued, between the handlers of one `epoll_wait` and the next: each
/// batch of events, then what was queued until then and what that queues, up to a bound, so that
/// neither a flood of reads nor work that queues more work starves the other.
///
/// Registrations are named by tokens, never by descriptor: a descriptor closed and reused by
/// another channel cannot reach the old one's handler. A handler may still run once after it was
/// unregistered (the loop fetched it just before); channels check their own state under their
/// lock, so such a late call does nothing.
public final class HostEventLoop: HostExecutor, Sendable {
    package typealias Token = UInt64
    /// Runs on the loop's thread with the epoll events and a buffer that only this thread uses,
    /// for the handler's reads.
    package typealias Handler = @Sendable (_ events: UInt32, _ buffer: UnsafeMutableRawBufferPointer) -> Void

    /// The process's loop: every worker channel reads through it, whatever its host queue.
    public static let shared = HostEventLoop()

    private let epoll: Int32
    /// Readable once work was queued from another thread while none waited.
    private let wakeup: Int32
    /// The eventfd's registration; registrations of descriptors start after it.
    private static let wakeupToken: Token = 0
    private let handlers = Mutex<(next: Token, byToken: [Token: Handler])>((1, [:]))
    private let queued = Mutex<[@Sendable () -> Void]>([])
    /// The loop's thread, once it runs (`pthread_self`), for `isCurrent`.
    private let thread = Atomic<UInt>(0)

    private init() {
        epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        precondition(epoll >= 0, "epoll_create1: \(String(cString: strerror(errno)))")
        wakeup = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        precondition(wakeup >= 0, "eventfd: \(String(cString: strerror(errno)))")
        var event = epoll_event()
        event.events = Self.readable
        event.data.u64 = Self.wakeupToken
        precondition(
            epoll_ctl(epoll, EPOLL_CTL_ADD, wakeup, &event) == 0, "epoll_ctl: \(String(cString: strerror(errno)))")
        // A thread of its own: the loop lives as long as the process. Its priority is
        // chosen, not inherited from whichever thread first touched `shared` (a Dispatch thread
        // at user-initiated QoS runs at nice -2 where it may, a thawing thread is SCHED_FIFO):
        // the normal policy, at the nice of the host's main thread (`run`). It runs the host
        // queue, so it weighs as the host does: above the workers (`--worker-nice`).
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        var parameters = sched_param()
        parameters.sched_priority = 0
        pthread_attr_setinheritsched(&attributes, Int32(PTHREAD_EXPLICIT_SCHED))
        pthread_attr_setschedpolicy(&attributes, SCHED_OTHER)
        pthread_attr_setschedparam(&attributes, &parameters)
        startDetachedThread(attributes: &attributes) { [self] in run() }
    }

    // MARK: HostExecutor

    /// Whether `hostQueue` is the loop itself, whose own handlers may then run host-queue work
    /// directly and must never wait for it.
    package static func isHostQueue(_ hostQueue: any HostExecutor) -> Bool {
        // Without starting the loop when `hostQueue` is another executor.
        guard let loop = hostQueue as? HostEventLoop else { return false }
        return loop === shared
    }

    /// Whether the caller runs on the loop's thread.
    package var isCurrent: Bool { thread.load(ordering: .acquiring) == pthread_self() }

    public func execute(_ work: @escaping @Sendable () -> Void) {
        let first = queued.withLock { queued in
            queued.append(work)
            return queued.count == 1
        }
        // The loop runs what is queued before it waits again; from elsewhere, the first of a
        // batch wakes it (the rest find it woken).
        guard first, !isCurrent else { return }
        var one: UInt64 = 1
        _ = write(wakeup, &one, MemoryLayout<UInt64>.size)
    }

    /// On the loop's own thread, runs `work` at once.
    public func executeAndWait(_ work: () -> Void) {
        if isCurrent { return work() }
        let done = DispatchSemaphore(value: 0)
        withoutActuallyEscaping(work) { work in
            // The queued closure holds only a pointer to `work`, which lives until the wait is
            // over: the loop may keep the closure a moment after it signalled.
            var work = work
            withUnsafeMutablePointer(to: &work) { work in
                nonisolated(unsafe) let work = work
                execute {
                    work.pointee()
                    done.signal()
                }
                done.wait()
            }
        }
    }

    public func preconditionCurrent() {
        precondition(isCurrent, "not on the host's event loop")
    }

    package static let readable = EPOLLIN.rawValue
    package static let writable = EPOLLOUT.rawValue
    package static let hangUp = EPOLLHUP.rawValue | EPOLLERR.rawValue | EPOLLRDHUP.rawValue

    /// Watches `descriptor` for reading (level-triggered) and, with `writing`, for writing.
    package func register(descriptor: Int32, writing: Bool = false, handler: @escaping Handler) -> Token {
        let token = handlers.withLock { state in
            let token = state.next
            state.next += 1
            state.byToken[token] = handler
            return token
        }
        var event = epoll_event()
        event.events = Self.interest(writing: writing)
        event.data.u64 = token
        if epoll_ctl(epoll, EPOLL_CTL_ADD, descriptor, &event) != 0 {
            // Cannot happen for a socket or a pidfd we own; the channel then learns of the
            // worker's end by its other descriptor or by a failed write.
            handlers.withLock { _ = $0.byToken.removeValue(forKey: token) }
        }
        return token
    }

    /// Starts or stops watching a registered descriptor for writing.
    package func watch(descriptor: Int32, token: Token, writing: Bool) {
        var event = epoll_event()
        event.events = Self.interest(writing: writing)
        event.data.u64 = token
        _ = epoll_ctl(epoll, EPOLL_CTL_MOD, descriptor, &event)
    }

    /// Stops watching `descriptor`. Call it before closing the descriptor.
    package func unregister(descriptor: Int32, token: Token) {
        var event = epoll_event()
        _ = epoll_ctl(epoll, EPOLL_CTL_DEL, descriptor, &event)
        handlers.withLock { _ = $0.byToken.removeValue(forKey: token) }
    }

    /// How many registrations there are: for tests that nothing stays registered.
    package var registrationCount: Int { handlers.withLock { $0.byToken.count } }

    private static func interest(writing: Bool) -> UInt32 {
        readable | EPOLLRDHUP.rawValue | (writing ? writable : 0)
    }

    /// How many batches of queued work may run between two polls of the descriptors.
    private static let batchesBetweenPolls = 8

    private func run() {
        thread.store(pthread_self(), ordering: .releasing)
        takeNiceOfMainThread()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 65536, alignment: 16)
        let capacity = 64
        let events = UnsafeMutablePointer<epoll_event>.allocate(capacity: capacity)
        // Swapped with the queue, so that both keep their allocations.
        var batch: [@Sendable () -> Void] = []
        // The batch run last, freed behind the next one: freeing a closure and what it holds
        // (free(3), releases) took some 3 us after an idle moment, and the next batch is often
        // the delivery of a reply that the one before read.
        var finished: [@Sendable () -> Void] = []
        while true {
            // Work that queues more (a call whose reply is to run after it) runs on without a
            // poll between, up to a bound.
            for _ in 0..<Self.batchesBetweenPolls {
                queued.withLock { swap(&batch, &$0) }
                if batch.isEmpty { break }
                for work in batch { work() }
                finished.removeAll(keepingCapacity: true)
                swap(&batch, &finished)
            }
            finished.removeAll(keepingCapacity: true)
            // Without waiting while more was queued here meanwhile; from another thread it rang.
            let timeout: Int32 = queued.withLock { $0.isEmpty } ? -1 : 0
            let count = epoll_wait(epoll, events, Int32(capacity), timeout)
            if count < 0 {
                if errno == EINTR { continue }
                fatalError("epoll_wait: \(String(cString: strerror(errno)))")
            }
            for index in 0..<Int(count) {
                let event = events[index]
                let token = event.data.u64
                if token == Self.wakeupToken {
                    var value: UInt64 = 0
                    _ = read(wakeup, &value, MemoryLayout<UInt64>.size)
                    continue
                }
                guard let handler = handlers.withLock({ $0.byToken[token] }) else { continue }
                handler(event.events, buffer)
            }
        }
    }
}
