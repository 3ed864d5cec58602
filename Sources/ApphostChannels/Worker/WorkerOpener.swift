import ApphostFreezing
import ApphostLimits
import ApphostLoading
import ApphostVocabulary
import Dispatch
import Foundation
import Synchronization

/// Opens each guest in a worker process of its own (`apphost-worker`), so that a guest that
/// crashes, exits or hangs harms neither the host nor the other guests (CONTRACT X2), and so
/// that suspending it freezes all of it (B7). Loading is checked as in-process (X1): the ELF
/// pre-checks here, dlopen's and the descriptor's verdicts from the worker.
///
/// A guest id runs at most once per opener: a second launch is refused before its init runs, as
/// the in-process opener does, although separate processes would share no globals.
public struct WorkerOpener: GuestOpener {
    public var workerPath: String
    public var freezer: any ProcessFreezer
    /// The host program's name and version, as `apphost_host_t` tells guests.
    public var hostName: String
    public var hostVersion: String
    /// How long loading and init may take together (library constructors included).
    public var loadTimeout: Duration
    /// How long a closing guest has to answer its last calls, run deinit and exit.
    public var stopTimeout: Duration
    /// The memory, open-file and process limits put on each worker (CONTRACT X2); nil for none.
    public var limiter: WorkerLimiter?
    /// The users workers take before their guest loads (CONTRACT X2); nil: the host's user.
    public var users: WorkerUsers?
    /// Each worker gets a throwaway user, freed once it is gone, rather than its guest's recorded
    /// one: `inspect --launch`, whose data directory is a temporary one.
    public var throwawayUsers = false
    /// The lower CPU priority of every worker, so that busy guests leave the host its share; nil:
    /// the host's.
    public var priority: WorkerPriority?
    /// The container each worker enforces before its guest loads (CONTRACT X6), with what each
    /// guest's entitlements and the operator's grants add (A6); no parts for none.
    /// `WorkerSandbox.support` says which parts this machine has.
    public var containers = ContainerPolicy()
    private let running = LoadedGuestRegistry()
    /// The guests of the libraries loaded so far, whose containers are known before they load.
    private let libraries = KnownLibraries()
    /// Where each worker's CPU time in all goes when it exits (``reportWorkerExits(to:)``).
    private let exits = WorkerExitReports()

    public init(
        workerPath: String, freezer: any ProcessFreezer, hostName: String = "apphost", hostVersion: String = "0.1.0",
        loadTimeout: Duration = .seconds(10), stopTimeout: Duration = .seconds(5), limiter: WorkerLimiter? = nil,
        users: WorkerUsers? = nil, priority: WorkerPriority? = nil
    ) {
        self.limiter = limiter
        self.priority = priority
        self.users = users
        self.workerPath = workerPath
        self.freezer = freezer
        self.hostName = hostName
        self.hostVersion = hostVersion
        self.loadTimeout = loadTimeout
        self.stopTimeout = stopTimeout
    }

    /// Frees the users of guests whose directories are gone and gives every guest directory
    /// back to its user, as a killed host left them (`WorkerUsers.prepare`).
    public func prepare(guestsDirectory: String) {
        if !throwawayUsers { users?.prepare(guestsDirectory: guestsDirectory) }
    }

    public func reportWorkerExits(
        to sink: @escaping @Sendable (_ guest: String, _ pid: Int32, _ cpuSeconds: Double) -> Void
    ) {
        exits.sink.withLock { $0 = sink }
    }

    public func open(
        path: String,
        guestsDirectory: String,
        hostQueue: any HostExecutor,
        onEvent: @escaping @Sendable (GuestEvent) -> Void,
        completion: @escaping @Sendable (Result<OpenedGuest, LoadError>) -> Void
    ) {
        // The handshake waits for the worker: never on the caller's thread.
        DispatchQueue.global(qos: .userInitiated).async { [self] in
            let result: Result<OpenedGuest, LoadError>
            do throws(LoadError) {
                result = .success(
                    try launch(path: path, guestsDirectory: guestsDirectory, hostQueue: hostQueue, onEvent: onEvent))
            } catch {
                result = .failure(error)
            }
            hostQueue.execute { completion(result) }
        }
    }

    /// A worker's load: its guest, or the container the guest needs, which differs from the one
    /// its worker had.
    private enum Attempt {
        case opened(OpenedGuest)
        case needs(WorkerContainer)
    }

    /// Opens the guest in the container it needs (CONTRACT A6): a library loaded before starts in
    /// it at once; another in that of an unknown guest, and once more in its own when its
    /// descriptor declares more (the network) or the operator granted its id files.
    private func launch(
        path: String, guestsDirectory: String, hostQueue: any HostExecutor,
        onEvent: @escaping @Sendable (GuestEvent) -> Void
    ) throws(LoadError) -> OpenedGuest {
        // X1: the same causes as in-process for files that are not guests, without a worker.
        try ElfInspector.check(path: path)
        let canonicalPath = GuestLibrary.canonicalize(path)
        var container = libraries.guest(at: canonicalPath).map(containers.container(for:)) ?? containers.unknownGuest
        for _ in 0..<2 {
            switch try attempt(
                path: path, canonicalPath: canonicalPath, container: container, guestsDirectory: guestsDirectory,
                hostQueue: hostQueue, onEvent: onEvent)
            {
            case .opened(let guest): return guest
            case .needs(let needed): container = needed
            }
        }
        throw LoadError(path: path, cause: .workerFailed("the library changed while it loaded: its container did too"))
    }

    private func attempt(
        path: String, canonicalPath: String, container: WorkerContainer, guestsDirectory: String,
        hostQueue: any HostExecutor, onEvent: @escaping @Sendable (GuestEvent) -> Void
    ) throws(LoadError) -> Attempt {
        // The guest's user, allocated and recorded before any of its code runs (X2).
        var user: WorkerUser?
        if let users {
            if throwawayUsers {
                users.allowSearch(guestsDirectory)
            } else {
                users.prepare(guestsDirectory: guestsDirectory)
            }
            do throws(WorkerUsers.Failure) {
                user = try users.acquire(
                    library: canonicalPath, guestsDirectory: throwawayUsers ? nil : guestsDirectory)
            } catch {
                throw LoadError(path: path, cause: .workerFailed("cannot give the worker a user: \(error)"))
            }
        }
        // Runs last of what follows: once the worker, and its cgroup, are gone.
        var userHandedOver = false
        defer { if !userHandedOver, let user { users?.release(user) } }
        // What the guest prints is its log (X2): never the host's output, where it could pass for events.
        let worker = try WorkerHandshake.spawn(
            executable: workerPath, path: path, timeout: loadTimeout,
            capture: (hostQueue, { level, line in onEvent(.log(level, line)) }), user: user, container: container)
        let pid = worker.process.pid
        try worker.awaitHello()
        try worker.readying(path: path, "cannot take charge of worker \(pid)") { try freezer.adopt(pid: pid) }
        // From here the freezer knows the worker: whatever happens, it forgets it once it is gone.
        var handedOver = false
        defer { if !handedOver { freezer.release(pid: pid) } }
        // The limits hold before the guest's code is loaded; the limiter too forgets the worker.
        try worker.readying(path: path, "cannot limit worker \(pid)") { try limiter?.apply(to: pid) }
        defer { if !handedOver { limiter?.release(pid: pid) } }
        // Before the guest's code runs, so that every thread it starts inherits the nice.
        try worker.readying(path: path, "cannot lower the priority of worker \(pid)") {
            try self.priority?.apply(to: pid)
        }
        defer { if !handedOver { priority?.release(pid: pid) } }

        let descriptor = try explainingLimits(pid: pid) { () throws(LoadError) in
            try worker.load(
                canonicalPath: canonicalPath, guestsDirectory: guestsDirectory, hostName: hostName,
                hostVersion: hostVersion)
        }
        let guest = GuestIdentity(id: descriptor.id, capabilities: descriptor.capabilities)
        libraries.remember(guest, at: canonicalPath)
        let needed = containers.container(for: guest)
        if needed != container {
            worker.stop()
            return .needs(needed)
        }
        if let loaded = running.reserve(id: descriptor.id, canonicalPath: canonicalPath) {
            worker.stop()
            throw LoadError(path: path, cause: .alreadyLoaded(loaded))
        }
        var reserved = true
        defer { if reserved { running.release(id: descriptor.id) } }
        let dataDirectory: String
        do {
            dataDirectory = try GuestDataDirectory.create(in: guestsDirectory, id: descriptor.id)
        } catch {
            worker.stop()
            throw LoadError(path: path, cause: .dataDirectoryUnavailable(error.description))
        }
        // A worker under a user of its own gets its data directory while it runs.
        if let users, let user {
            do throws(WorkerUsers.Failure) {
                try users.adopt(user, guest: descriptor.id, dataDirectory: dataDirectory)
            } catch {
                worker.stop()
                users.takeBack(dataDirectory)
                throw LoadError(path: path, cause: .dataDirectoryUnavailable(error.description))
            }
        }
        defer { if !handedOver { users?.takeBack(dataDirectory) } }
        hostQueue.execute { onEvent(.identified(guestID: descriptor.id)) }
        try explainingLimits(pid: pid) { () throws(LoadError) in
            try worker.start(dataDirectory: dataDirectory) { event in hostQueue.execute { onEvent(event) } }
        }

        let running = running
        let users = users
        let priority = priority
        let workerUser = user
        let channel = WorkerChannel(
            process: worker.process, output: worker.output, socket: worker.handOver(), freezer: freezer,
            limiter: limiter,
            hostQueue: hostQueue, sandbox: container.parts,
            // A nicer worker does not preempt the thread that woke it: its reply is never there
            // when the write returns (Benchmarks/README.md, sporadic round trips).
            stopTimeout: stopTimeout, readsAfterWriting: (priority?.niceOffset ?? 0) <= 0, onEvent: onEvent,
            onExit: {
                running.release(id: descriptor.id)
                users?.takeBack(dataDirectory)
                if let workerUser { users?.release(workerUser) }
                priority?.release(pid: pid)
            },
            onUsage: { [exits] cpuSeconds in exits.report(guest: descriptor.id, pid: pid, cpuSeconds: cpuSeconds) })
        handedOver = true
        userHandedOver = true
        reserved = false
        return .opened(OpenedGuest(descriptor: descriptor, channel: channel))
    }

    /// Runs a step of loading; when the worker died in it after running into one of its limits,
    /// says which, as a guest that dies later is reported (CONTRACT X2): "killed by SIGKILL:
    /// memory limit of 1 KB reached" rather than "killed by SIGKILL". Call before the limiter
    /// releases the worker, whose counters go with its cgroups.
    private func explainingLimits<Value>(pid: pid_t, _ step: () throws(LoadError) -> Value) throws(LoadError) -> Value {
        do throws(LoadError) {
            return try step()
        } catch {
            guard case .guestCrashed(let how) = error.cause, let limit = limiter?.explainDeath(of: pid) else {
                throw error
            }
            throw LoadError(path: error.path, cause: .guestCrashed("\(how): \(limit)"))
        }
    }
}

extension WorkerHandshake {
    /// Runs a step of readying the worker before its guest loads; when the step fails, abandons
    /// the worker and throws, as `path`'s load error, what could not be done (`failure`) and why.
    fileprivate func readying(path: String, _ failure: String, _ step: () throws -> Void) throws(LoadError) {
        do {
            try step()
        } catch {
            abandon()
            throw LoadError(path: path, cause: .workerFailed("\(failure): \(error)"))
        }
    }
}

/// The sink of ``WorkerOpener/reportWorkerExits(to:)``, shared by the opener's copies.
final class WorkerExitReports: Sendable {
    let sink = Mutex<(@Sendable (_ guest: String, _ pid: Int32, _ cpuSeconds: Double) -> Void)?>(nil)

    func report(guest: String, pid: Int32, cpuSeconds: Double) {
        sink.withLock { $0 }?(guest, pid, cpuSeconds)
    }
}
