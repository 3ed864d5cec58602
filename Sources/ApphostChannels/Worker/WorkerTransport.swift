import ApphostExecutors
import ApphostFreezing
import ApphostLimits
import ApphostPolicy
import Dispatch
import Glibc

/// What a `WorkerChannel` does to its worker's socket and process: every system call it makes,
/// behind one seam, so that tests put an in-memory one in their place (as swift-nio's
/// EmbeddedChannel is for its channels) and drive the channel's state without a process.
///
/// The channel calls it under its lock, from whichever thread it runs on; an implementation's
/// mutable state is guarded by that lock. What it hands back later (a freeze confirmed, the
/// worker reaped, the close timer) it hands back without the lock held.
protocol WorkerTransport: AnyObject, Sendable {
    /// The worker's process id.
    var pid: pid_t { get }

    /// Starts telling `channel` of the socket (`socketReady`) and of the worker's exit
    /// (`workerExited`), each on the thread that reads for it (the event loop's), until
    /// `disconnect`. Until then, it keeps `channel` alive.
    func connect(_ channel: WorkerChannel)

    /// Writes what `outbound` holds, as much as the socket takes now, and watches the socket for
    /// writing while some waits.
    func flush(_ outbound: inout OutboundBytes)

    /// Reads what the worker sent, at most `reads` reads into `buffer`, handing each to `handle`,
    /// which returns false to stop.
    func receive(
        into buffer: UnsafeMutableRawBufferPointer, reads: Int, _ handle: (UnsafeRawBufferPointer) -> Bool
    ) -> WorkerReceipt

    /// Stops watching the socket and the worker's exit, and closes them.
    func disconnect()

    /// Once the worker has exited (after `disconnect`): reaps it, reports what it used, releases
    /// what held it (freezer, limits), then tells `ended` how it ended and which limit it ran
    /// into, if any.
    func reap(then ended: @escaping @Sendable (WorkerExit, _ limitReason: String?) -> Void)

    /// Kills the worker; with `thawing`, thaws it too, for a frozen one to act on the kill.
    func kill(thawing: Bool)

    /// Freezes every thread of the worker (B7), one freezer call at a time.
    func freeze(then done: @escaping @Sendable (Result<Void, FreezeError>) -> Void)

    func thaw(then done: @escaping @Sendable (Result<Void, FreezeError>) -> Void)

    /// Calls `fire` after `delay`, unless cancelled first.
    func armCloseTimer(after delay: Duration, _ fire: @escaping @Sendable () -> Void)

    func cancelCloseTimer()

    /// Makes the worker's audio thread real-time; whether it could.
    func promoteAudioThread(_ thread: Int32) -> Bool

    func demoteAudioThread(_ thread: Int32) -> Bool

    func audioThreadCPUTime(_ thread: Int32) -> Duration?
}

/// How a `WorkerTransport.receive` ended.
enum WorkerReceipt {
    /// It made as many reads as it was allowed: more may wait.
    case more
    /// Nothing more waits now, or the handler stopped it.
    case drained
    /// The worker closed its end, or the socket failed.
    case ended
}

/// The transport of a real worker: its socket and exit descriptor on the host's event loop, the
/// process, its freezer, limits and cgroups, and the close timer.
final class WorkerProcessTransport: WorkerTransport, @unchecked Sendable {
    // Immutable members, and the mutable ones guarded by the channel's lock (see WorkerTransport).
    let pid: pid_t
    private let process: WorkerProcess
    /// The worker's standard output and standard error, read as the guest's logs.
    private let output: WorkerOutput?
    private let freezer: any ProcessFreezer
    /// Limits on the worker, which also say whether its death was one of them.
    private let limiter: WorkerLimiter?
    /// Told the CPU time the worker used in all, once it has exited (before anyone hears of its
    /// end): the host's metrics count what it used since they last read it (CONTRACT O2).
    private let onUsage: @Sendable (_ cpuSeconds: Double) -> Void
    /// The worker's cgroup memberships, read at its start: once it has exited, /proc no longer
    /// says which cgroups were its own, and those still hold its CPU time until released.
    private let cgroups: String?
    /// Reads the worker's own cgroups (the mounts, read once for every worker).
    private static let cgroupReader = WorkerCgroupReader()
    /// Freezer calls may block until the kernel confirms; one at a time, in order, then release.
    private let freezerQueue: DispatchQueue
    private let descriptor: Int32
    private let loop = HostEventLoop.shared

    /// The socket's registration with the event loop, until disconnected.
    private var socketToken: HostEventLoop.Token?
    /// The worker's pidfd and its registration: readable when the worker exits even if its
    /// socket stays open, as when a process the guest forked inherited it.
    private var exit: (descriptor: Int32, token: HostEventLoop.Token)?
    /// Whether the loop watches the socket for writing (only while bytes wait).
    private var watchingWrites = false
    private var closeTimer: (any DispatchSourceTimer)?

    init(
        process: WorkerProcess, output: WorkerOutput?, socket: Int32, freezer: any ProcessFreezer,
        limiter: WorkerLimiter?, onUsage: @escaping @Sendable (_ cpuSeconds: Double) -> Void
    ) {
        self.process = process
        self.output = output
        pid = process.pid
        self.freezer = freezer
        self.limiter = limiter
        self.onUsage = onUsage
        // The freezer and the limiter have put it in its own cgroups by now.
        cgroups = Self.cgroupReader.cgroups(of: process.pid)
        descriptor = socket
        freezerQueue = DispatchQueue(label: "apphost.worker.\(process.pid).freezer")
    }

    func connect(_ channel: WorkerChannel) {
        socketToken = loop.register(descriptor: descriptor) { events, buffer in
            channel.socketReady(
                readable: events & (HostEventLoop.readable | HostEventLoop.hangUp) != 0,
                writable: events & HostEventLoop.writable != 0, buffer: buffer)
        }
        if let exitDescriptor = process.openExitDescriptor() {
            let token = loop.register(descriptor: exitDescriptor) { _, buffer in
                channel.workerExited(buffer: buffer)
            }
            exit = (exitDescriptor, token)
        }
    }

    /// Writes straight into the socket, on the caller's thread, never blocking; what the worker
    /// does not take now stays behind, and the loop writes it once the worker reads again.
    func flush(_ outbound: inout OutboundBytes) {
        let watching = outbound.flush(to: descriptor) == .waiting
        guard let socketToken, watching != watchingWrites else { return }
        watchingWrites = watching
        loop.watch(descriptor: descriptor, token: socketToken, writing: watching)
    }

    func receive(
        into buffer: UnsafeMutableRawBufferPointer, reads: Int, _ handle: (UnsafeRawBufferPointer) -> Bool
    ) -> WorkerReceipt {
        // A bounded number of reads, so that a chatty guest cannot starve the other workers.
        for _ in 0..<reads {
            let count = recv(descriptor, buffer.baseAddress, buffer.count, 0)
            if count > 0 {
                guard handle(UnsafeRawBufferPointer(rebasing: buffer[..<count])) else { return .drained }
                // A short read emptied the socket: no read to learn so (the epoll is
                // level-triggered and reports anything that arrives after it).
                if count < buffer.count { return .drained }
            } else if count < 0, errno == EINTR {
                continue
            } else if count < 0, errno == EAGAIN {
                return .drained
            } else {
                return .ended
            }
        }
        return .more
    }

    func disconnect() {
        // Under the channel's lock, so no handler of the loop's can touch the descriptors once closed.
        if let socketToken { loop.unregister(descriptor: descriptor, token: socketToken) }
        socketToken = nil
        Glibc.close(descriptor)
        if let exit {
            loop.unregister(descriptor: exit.descriptor, token: exit.token)
            Glibc.close(exit.descriptor)
        }
        exit = nil
    }

    func reap(then ended: @escaping @Sendable (WorkerExit, _ limitReason: String?) -> Void) {
        DispatchQueue.global().async { [self] in
            // One that closed its socket without exiting gets a moment, then is killed.
            let exit = process.waitForExit(killAfter: .seconds(2))
            // What it printed last is the guest's before its end is (its last words, a crash's message).
            output?.drain(finishingLines: true)
            // Before the cgroups go: their counters say whether a limit ended it, and what it used.
            let limitReason = limiter?.explainDeath(of: pid)
            let cpuSeconds =
                cgroups.flatMap { Self.cgroupReader.usage(of: pid, cgroups: $0).cpuSeconds } ?? process.cpuSecondsAtExit
            if let cpuSeconds { onUsage(cpuSeconds) }
            freezerQueue.async { [self] in
                freezer.release(pid: pid)
                limiter?.release(pid: pid)
                ended(exit, limitReason)
            }
        }
    }

    func kill(thawing: Bool) {
        process.kill()
        guard thawing else { return }
        freezerQueue.async { [freezer, pid] in try? freezer.thaw(pid: pid) }
    }

    func freeze(then done: @escaping @Sendable (Result<Void, FreezeError>) -> Void) {
        freezerQueue.async { [freezer, pid] in
            done(Self.attempt { () throws(FreezeError) in try freezer.freeze(pid: pid) })
        }
    }

    func thaw(then done: @escaping @Sendable (Result<Void, FreezeError>) -> Void) {
        // Not on `freezerQueue`: no freeze of this worker is under way while it is frozen, and
        // the thaw threads resume many guests at once far faster (see DedicatedThreads).
        DedicatedThreads.thawing.async { [freezer, pid] in
            done(Self.attempt { () throws(FreezeError) in try freezer.thaw(pid: pid) })
        }
    }

    /// A timer source, cancelled once the channel has ended, rather than a work item after a
    /// delay: Dispatch keeps such an item, and what its block holds, until the delay is up even
    /// when it was cancelled, which at a launch and terminate every few milliseconds is a thousand
    /// or more at a time. `fire` holds the channel weakly, since the channel holds the timer
    /// through its transport (a strong capture kept every closed channel alive for good, some
    /// 2.6 KB a launch: Benchmarks/README.md's soak). A closing channel is kept alive until it has
    /// ended by its registrations with the event loop and then by its reaper, so the timer finds
    /// it while there is still a worker to kill.
    func armCloseTimer(after delay: Duration, _ fire: @escaping @Sendable () -> Void) {
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue.global())
        timer.setEventHandler(handler: fire)
        timer.schedule(deadline: .now() + delay.timeInterval)
        closeTimer = timer
        timer.activate()
    }

    func cancelCloseTimer() {
        closeTimer?.cancel()
        closeTimer = nil
    }

    func promoteAudioThread(_ thread: Int32) -> Bool { AudioThreadPriority.promote(thread: thread, of: pid) }

    func demoteAudioThread(_ thread: Int32) -> Bool { AudioThreadPriority.demote(thread: thread, of: pid) }

    func audioThreadCPUTime(_ thread: Int32) -> Duration? { AudioThreadPriority.cpuTime(thread: thread, of: pid) }

    private static func attempt(_ body: () throws(FreezeError) -> Void) -> Result<Void, FreezeError> {
        do throws(FreezeError) {
            try body()
            return .success(())
        } catch {
            return .failure(error)
        }
    }
}
