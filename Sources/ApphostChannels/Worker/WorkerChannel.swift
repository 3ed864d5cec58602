import ApphostFreezing
import ApphostLimits
import ApphostVocabulary
import ApphostWire
import CApphost
import DequeModule
import Dispatch
import Glibc

/// A `GuestChannel` to a guest in its own worker process, over the socket of apphost_wire.h. To
/// the core it behaves as the in-process channel does: replies on the host queue in the order
/// sent, the guest's logs and saves as events in the order the worker sent them, and nothing
/// ever blocks the caller, even when the worker is frozen and its socket buffer is full.
/// Unlike the in-process channel, a crash of the guest is reported (CONTRACT X2): pending replies
/// fail with `.crashed(cause)` and `.died(cause)` follows, and suspension freezes the whole
/// process (CONTRACT B7).
public final class WorkerChannel: GuestChannel, @unchecked Sendable {
    // Every mutable member is guarded by `lock`: the public methods take it on the caller's
    // thread (the write of a call happens there, non-blocking), the event loop's thread takes it
    // to read and to flush, and the timer, freezer calls and the reaper take it when they come
    // back.
    // Everything reported to the host goes through `outbox` while the lock is held and is
    // delivered in that order by one deliverer at a time, so it arrives in the order the state
    // changed. Only immutable members are read without it.
    public typealias Reply = @Sendable (GuestReply) -> Void
    private typealias Completion = @Sendable (Result<Void, ChannelFailure>) -> Void

    /// The worker's process id, for operators and tests.
    public let pid: pid_t
    public var processID: Int32? { pid }

    public func audioThreadCPUTime(_ thread: Int32) -> Duration? {
        AudioThreadPriority.cpuTime(thread: thread, of: pid)
    }

    public func demoteAudioThread(_ thread: Int32) -> Bool {
        lock.withLock { audioDemoted = true }
        return AudioThreadPriority.demote(thread: thread, of: pid)
    }
    private let process: WorkerProcess
    /// The worker's standard output and standard error, read as the guest's logs.
    private let output: WorkerOutput?
    private let freezer: any ProcessFreezer
    /// Limits on the worker, which also say whether its death was one of them.
    private let limiter: WorkerLimiter?
    private let hostQueue: any HostExecutor
    private let onEvent: @Sendable (GuestEvent) -> Void
    /// Runs under `lock` once the worker has been reaped, before anyone hears of its end.
    private let onExit: @Sendable () -> Void
    /// Told the CPU time the worker used in all, once it has exited (before anyone hears of its
    /// end): the host's metrics count what it used since they last read it (CONTRACT O2).
    private let onUsage: @Sendable (_ cpuSeconds: Double) -> Void
    /// The worker's cgroup memberships, read at its start: once it has exited, /proc no longer
    /// says which cgroups were its own, and those still hold its CPU time until released.
    private let cgroups: String?
    /// Reads the worker's own cgroups (the mounts, read once for every worker).
    private static let cgroupReader = WorkerCgroupReader()
    private let stopTimeout: Duration
    /// Whether the thread that wrote a call reads once for its reply (`readAfterWriting`).
    private let readsAfterWriting: Bool
    private let lock = WorkerLock()
    private let loop = HostEventLoop.shared
    /// The host queue is the event loop itself (as in `apphost`), not a queue of its own: the
    /// loop's handlers then never wait for a delivery, which would be their own.
    private let hostQueueIsLoop: Bool
    /// Freezer calls may block until the kernel confirms; one at a time, in order, then release.
    private let freezerQueue: DispatchQueue
    private let descriptor: Int32

    private var decoder: WireFrameDecoder
    /// The socket's registration with the event loop, until disconnected.
    private var socketToken: HostEventLoop.Token?
    /// The worker's pidfd and its registration: readable when the worker exits even if its
    /// socket stays open, as when a process the guest forked inherited it.
    private var exit: (descriptor: Int32, token: HostEventLoop.Token)?
    /// Whether the loop watches the socket for writing (only while `outbound` waits).
    private var watchingWrites = false
    /// What is written to the worker; once it is broken (the worker closed its end, or the
    /// socket failed) nothing more is, and the read side drains what the worker sent before it went.
    private var outbound = OutboundBytes()
    private var disconnected = false

    /// What the host queue is to run, in the order the state changed; see `locked`.
    private var outbox: [@Sendable () -> Void] = []
    /// Its audio thread was demoted: no other is made real-time (issue 34, point 9).
    private var audioDemoted = false
    /// A delivery of the outbox is under way: whoever posts leaves the new work to it.
    private var draining = false

    private var nextSequence: UInt64 = 1
    /// Calls written and not yet answered, oldest first: the worker answers in order. A deque of
    /// a named struct: an array of tuples took 2.7 us to drop its first after an idle moment,
    /// moving its elements and looking up the tuple's type at run time; a deque drops it in place.
    private var pending: Deque<PendingCall> = []
    /// Calls sent while the guest is (being) frozen, delivered in order once it runs.
    private var held: [(message: GuestMessage, reply: Reply)] = []
    private var freezing = Freezing.running
    /// Waiting for the freeze under way (or the one to start once the guest is idle).
    private var freezeCompletions: [Completion] = []

    private var phase = Phase.open
    private var closeCompletions: [@Sendable () -> Void] = []
    private var stopSent = false
    private var closeTimer: (any DispatchSourceTimer)?
    /// The host killed the worker on purpose while closing (it was suspended, or did not stop in
    /// time): its end is no crash.
    private var killedWhileClosing = false
    /// It was killed because it had not exited `stopTimeout` after `close`: hung in
    /// will_terminate or deinit, which the core reports (X2), unlike the kill of a frozen guest.
    private var closeTimedOut = false

    private struct PendingCall {
        let sequence: UInt64
        let reply: Reply
    }

    private enum Freezing {
        case running
        /// Waiting for the pending replies before freezing.
        case suspending
        case freezing
        case frozen
        case thawing
    }

    private enum Phase {
        case open
        case closing
        /// The worker has been reaped; later calls fail this way.
        case ended(ChannelFailure)
    }

    init(
        process: WorkerProcess, output: WorkerOutput? = nil, socket: WireSocket, freezer: any ProcessFreezer,
        limiter: WorkerLimiter?, hostQueue: any HostExecutor,
        stopTimeout: Duration, readsAfterWriting: Bool = true, onEvent: @escaping @Sendable (GuestEvent) -> Void,
        onExit: @escaping @Sendable () -> Void, onUsage: @escaping @Sendable (_ cpuSeconds: Double) -> Void = { _ in }
    ) {
        self.process = process
        self.output = output
        pid = process.pid
        self.freezer = freezer
        self.limiter = limiter
        self.hostQueue = hostQueue
        hostQueueIsLoop = HostEventLoop.isHostQueue(hostQueue)
        self.stopTimeout = stopTimeout
        self.readsAfterWriting = readsAfterWriting
        self.onEvent = onEvent
        self.onExit = onExit
        self.onUsage = onUsage
        // The freezer and the limiter have put it in its own cgroups by now.
        cgroups = Self.cgroupReader.cgroups(of: process.pid)
        descriptor = socket.descriptor
        decoder = socket.decoder
        freezerQueue = DispatchQueue(label: "apphost.worker.\(process.pid).freezer")
        locked { connect() }
    }

    // MARK: Delivery to the host queue

    /// Runs `body` under the lock, then delivers what it posted. The event loop's handlers deliver
    /// on the loop's thread: the reply runs at once on the thread that read it, without waking
    /// another (the round trip's largest cost), and the host's next call is written from there
    /// too. Where the host queue is the loop (`apphost`'s) they run the work directly; where it is
    /// a queue of its own, with `hostQueue.executeAndWait` (`sync`). Every other thread, and the
    /// host queue itself, hands the delivery to the host queue with one `execute`, so that a reply
    /// never runs before `send` has returned.
    private func locked(onLoop: Bool = false, _ body: () -> Void) {
        lock.withLock(body)
        drainOutbox(onLoop: onLoop)
    }

    /// Queues `work` for the host queue, behind everything posted before it. Call it under the lock.
    private func post(_ work: @escaping @Sendable () -> Void) {
        outbox.append(work)
    }

    /// Delivers the outbox in order, unless a delivery is already under way (it takes what was
    /// posted since). Call it without the lock.
    ///
    /// When the loop finds the host queue delivering (a call's read after its write took along
    /// what the worker had sent, a flood of logs, say), it lets that delivery end before it reads
    /// again: the loop then reads no faster than the host takes what it read, as when it delivers
    /// itself, and the host queue's delivery has an end, so that other work on the host queue (a
    /// `ctl ps`) runs between (CONTRACT X2). A host queue of its own is waited for; when the host
    /// queue is the loop, that delivery is queued on it and runs before the loop reads again.
    private func drainOutbox(onLoop: Bool) {
        while true {
            let (start, othersDeliver) = lock.withLock { () -> (Bool, Bool) in
                guard !outbox.isEmpty else { return (false, false) }
                guard !draining else { return (false, true) }
                draining = true
                return (true, false)
            }
            if start { break }
            guard onLoop, othersDeliver, !hostQueueIsLoop else { return }
            hostQueue.executeAndWait {}
        }
        if onLoop {
            // At once where the host queue is the loop (its `executeAndWait` on its own thread).
            deliverOutbox { work in hostQueue.executeAndWait(work) }
        } else {
            hostQueue.execute { [self] in deliverOutbox { work in work() } }
        }
    }

    /// Runs the outbox a batch at a time, each whatever was posted until then; a flood of reports
    /// can post tens of thousands at once, which taking them one by one from the front of an
    /// array moved about quadratically.
    private func deliverOutbox(_ run: (@escaping @Sendable () -> Void) -> Void) {
        var batch: [@Sendable () -> Void] = []
        while true {
            // The emptied batch becomes the outbox, so that the outbox keeps its allocation.
            lock.withLock {
                swap(&batch, &outbox)
                if batch.isEmpty { draining = false }
            }
            if batch.isEmpty { return }
            for work in batch { run(work) }
            batch.removeAll(keepingCapacity: true)
        }
    }

    // MARK: GuestChannel

    public func send(_ message: GuestMessage, reply: @escaping Reply) {
        locked { if take(message, reply: reply) { writeCalls() } }
    }

    /// One write for all of them, so that the worker wakes once (the expirations of a budget).
    public func send(all messages: [(GuestMessage, Reply)]) {
        locked {
            var taken = false
            for (message, reply) in messages where take(message, reply: reply) { taken = true }
            if taken { writeCalls() }
        }
    }

    public func suspend(completion: @escaping @Sendable (Result<Void, ChannelFailure>) -> Void) {
        locked {
            if let failure = refusal() { return complete(completion, .failure(failure)) }
            guard freezing == .running else {
                return complete(completion, .failure(.failed("the guest is already suspended or being suspended")))
            }
            // B7: the calls already sent run to completion, then the whole process stops.
            freezing = .suspending
            freezeCompletions.append(completion)
            freezeOnceIdle()
        }
    }

    public func resume(completion: @escaping @Sendable (Result<Void, ChannelFailure>) -> Void) {
        locked {
            if let failure = refusal() { return complete(completion, .failure(failure)) }
            guard freezing == .frozen else {
                return complete(completion, .failure(.failed("the guest is not suspended")))
            }
            freezing = .thawing
            // Not on `freezerQueue`: no freeze of this worker is under way while it is frozen, and
            // the thaw threads resume many guests at once far faster (see DedicatedThreads).
            DedicatedThreads.thawing.async { [self] in
                let result = Self.attempt { () throws(FreezeError) in try freezer.thaw(pid: pid) }
                locked { thawed(result, completion: completion) }
            }
        }
    }

    public func forceStop(freezing: Bool, completion: @escaping @Sendable (Result<Void, ChannelFailure>) -> Void) {
        locked {
            if case .ended(let failure) = phase { return complete(completion, .failure(failure)) }
            guard freezing else {
                // B5: killed where it stands; the end is reported like a crash, unless closing.
                process.kill()
                thawIfFrozen()
                return complete(completion, .success(()))
            }
            switch self.freezing {
            case .frozen:
                complete(completion, .success(()))
            case .freezing, .suspending:
                freezeCompletions.append(completion)
                if self.freezing == .suspending { startFreezing() }
            case .running:
                freezeCompletions.append(completion)
                startFreezing()
            case .thawing:
                complete(completion, .failure(.failed("the guest is being resumed")))
            }
        }
    }

    public func close(completion: @escaping @Sendable () -> Void) {
        locked {
            if case .ended = phase { return post { completion() } }
            closeCompletions.append(completion)
            guard case .open = phase else { return }
            phase = .closing
            for (_, reply) in held { post { reply(.failure(.closed)) } }
            held = []
            armCloseTimer()
            switch freezing {
            case .running:
                sendStop()
            case .suspending:
                freezing = .running
                failFreezeCompletions(.closed)
                sendStop()
            case .frozen:
                // A3: a suspended guest is terminated without any callback.
                killWhileClosing()
            case .freezing, .thawing:
                break  // `froze` or `thawed` goes on from the state they reach.
            }
        }
    }

    // MARK: Calls

    /// Fails `message` now, holds it while the guest is frozen, or makes it a pending call whose
    /// frame waits in `outbound`: true for that, and then `writeCalls` sends it.
    private func take(_ message: GuestMessage, reply: @escaping Reply) -> Bool {
        switch phase {
        case .ended(let failure): post { reply(.failure(failure)) }
        case .closing: post { reply(.failure(.closed)) }
        case .open where freezing != .running: held.append((message, reply))
        case .open:
            call(message, reply: reply)
            return true
        }
        return false
    }

    /// Makes `message` a pending call and puts its frame behind what waits to be written.
    private func call(_ message: GuestMessage, reply: @escaping Reply) {
        let sequence = nextSequence
        nextSequence += 1
        pending.append(PendingCall(sequence: sequence, reply: reply))
        append(.call(sequence: sequence, message))
    }

    private func append(_ message: HostToWorkerMessage) {
        guard !disconnected else { return }
        outbound.append { message.encode(into: $0) }
    }

    /// Writes the calls taken, then reads once: the reply may be there already.
    private func writeCalls() {
        flush()
        readAfterWriting()
    }

    private func sendStop() {
        guard !stopSent else { return }
        stopSent = true
        // After every call already written: the worker answers them, then calls deinit (A3).
        append(.stop)
        flush()
    }

    /// How a call must fail now, or nil while the channel is open.
    private func refusal() -> ChannelFailure? {
        switch phase {
        case .open: nil
        case .closing: .closed
        case .ended(let failure): failure
        }
    }

    private func complete(_ completion: @escaping Completion, _ result: Result<Void, ChannelFailure>) {
        post { completion(result) }
    }

    // MARK: Freezing

    private func freezeOnceIdle() {
        guard freezing == .suspending, pending.isEmpty else { return }
        startFreezing()
    }

    private func startFreezing() {
        freezing = .freezing
        freezerQueue.async { [self] in
            let result = Self.attempt { () throws(FreezeError) in try freezer.freeze(pid: pid) }
            locked { froze(result) }
        }
    }

    private func froze(_ result: Result<Void, FreezeError>) {
        let completions = freezeCompletions
        freezeCompletions = []
        switch result {
        case .success:
            freezing = .frozen
            for completion in completions { complete(completion, .success(())) }
            if case .closing = phase { killWhileClosing() }
        case .failure(let error):
            freezing = .running
            for completion in completions {
                complete(completion, .failure(.failed("cannot freeze the worker: \(error)")))
            }
            if case .closing = phase { sendStop() } else { deliverHeld() }
        }
    }

    private func thawed(_ result: Result<Void, FreezeError>, completion: @escaping Completion) {
        switch result {
        case .success:
            freezing = .running
            complete(completion, .success(()))
            if case .closing = phase { sendStop() } else { deliverHeld() }
        case .failure(let error):
            freezing = .frozen
            complete(completion, .failure(.failed("cannot thaw the worker: \(error)")))
            if case .closing = phase { killWhileClosing() }
        }
    }

    private func deliverHeld() {
        let messages = held
        held = []
        for (message, reply) in messages { call(message, reply: reply) }
        if !messages.isEmpty { flush() }
    }

    private func failFreezeCompletions(_ failure: ChannelFailure) {
        for completion in freezeCompletions { complete(completion, .failure(failure)) }
        freezeCompletions = []
    }

    /// A frozen process may not act on SIGKILL until it is thawed (the cgroup v1 freezer).
    private func thawIfFrozen() {
        guard freezing == .frozen || freezing == .freezing else { return }
        freezerQueue.async { [freezer, pid] in try? freezer.thaw(pid: pid) }
    }

    private static func attempt(_ body: () throws(FreezeError) -> Void) -> Result<Void, FreezeError> {
        do throws(FreezeError) {
            try body()
            return .success(())
        } catch {
            return .failure(error)
        }
    }

    // MARK: Closing

    private func killWhileClosing() {
        killedWhileClosing = true
        process.kill()
        thawIfFrozen()
    }

    /// The worker gets `stopTimeout` from `close` to answer what it was sent, run deinit and
    /// exit; then it is killed, so that a guest stuck in will_terminate cannot hold up shutdown.
    ///
    /// A timer source, cancelled once the channel has ended, rather than a work item after a
    /// delay: Dispatch keeps such an item, and what its block holds, until the delay is up even
    /// when it was cancelled, which at a launch and terminate every few milliseconds is a thousand
    /// or more at a time. Its handler holds the channel weakly, since the channel holds the timer
    /// (a strong capture kept every closed channel alive for good, some 2.6 KB a launch:
    /// Benchmarks/README.md's soak). A closing channel is kept alive until it has ended by its
    /// registrations with the event loop and then by its reaper, so the timer finds it while there
    /// is still a worker to kill.
    private func armCloseTimer() {
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue.global())
        timer.setEventHandler { [weak self] in
            guard let self else { return }
            locked {
                // Gone already (its end of file came) and only not yet reaped: no hang. With
                // thousands closing at once, reaping them took longer than the timeout.
                guard case .closing = phase, !disconnected else { return }
                closeTimedOut = true
                killWhileClosing()
            }
        }
        timer.schedule(deadline: .now() + stopTimeout.timeInterval)
        closeTimer = timer
        timer.activate()
    }

    // MARK: Socket

    private func connect() {
        socketToken = loop.register(descriptor: descriptor) { [self] events, buffer in
            locked(onLoop: true) {
                guard !disconnected else { return }
                if events & (HostEventLoop.readable | HostEventLoop.hangUp) != 0 {
                    readAvailable(into: buffer)
                }
                if events & HostEventLoop.writable != 0, !disconnected { flush() }
            }
        }
        if let exitDescriptor = process.openExitDescriptor() {
            let token = loop.register(descriptor: exitDescriptor) { [self] _, buffer in
                locked(onLoop: true) {
                    guard !disconnected else { return }
                    // What it wrote before it went is all in the socket buffer by now.
                    for _ in 0..<64 where !disconnected {
                        guard readAvailable(into: buffer) else { break }
                    }
                    disconnect(protocolError: nil)
                }
            }
            exit = (exitDescriptor, token)
        }
        // What arrived with the handshake's last read, such as the first logs of a guest thread.
        decodeFrames()
        flush()
    }

    /// Writes what waits straight into the socket, on the caller's thread, never blocking; what
    /// the worker does not take now stays behind, and the loop writes it once the worker reads
    /// again.
    private func flush() {
        guard !disconnected else { return }
        watchWrites(after: outbound.flush(to: descriptor))
    }

    private func watchWrites(after progress: OutboundBytes.Progress) {
        setWatchingWrites(progress == .waiting)
    }

    private func setWatchingWrites(_ watching: Bool) {
        guard let socketToken, watching != watchingWrites, !disconnected else { return }
        watchingWrites = watching
        loop.watch(descriptor: descriptor, token: socketToken, writing: watching)
    }

    /// One read, without waiting, on the thread that has just written a call: the reply may be
    /// there already. A worker woken on the writer's processor often runs at once and answers
    /// before the write returns; read here, the reply goes to the host queue from the thread that
    /// wrote, rather than through another `epoll_wait` (or, with a host queue of its own, the
    /// event loop's wake, which after an idle moment is a halted processor's: Benchmarks/README.md,
    /// sporadic round trips). When nothing is there it costs one recv, which is all it ever does
    /// for a worker at a higher nice than the host's: woken, it waits for the writer to sleep.
    private func readAfterWriting() {
        guard readsAfterWriting, !disconnected, !pending.isEmpty else { return }
        withUnsafeTemporaryAllocation(byteCount: 1024, alignment: 16) { buffer in
            _ = readAvailable(into: buffer, reads: 1)
        }
    }

    /// Reads and handles what the worker sent; returns whether more may be waiting.
    @discardableResult
    private func readAvailable(into buffer: UnsafeMutableRawBufferPointer, reads: Int = 16) -> Bool {
        // A bounded number of reads, so that a chatty guest cannot starve the other workers.
        for _ in 0..<reads {
            let count = recv(descriptor, buffer.baseAddress, buffer.count, 0)
            if count > 0 {
                decoder.append(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
                decodeFrames()
                if disconnected { return false }
                // A short read emptied the socket: no read to learn so (the epoll is
                // level-triggered and reports anything that arrives after it).
                if count < buffer.count { return false }
            } else if count < 0, errno == EINTR {
                continue
            } else if count < 0, errno == EAGAIN {
                return false
            } else {
                disconnect(protocolError: nil)
                return false
            }
        }
        return true
    }

    /// Handles every whole frame the decoder holds, where it lies in the decoder's buffer. A reply,
    /// the frame read most, goes straight to its call, without a `WorkerToHostMessage` made and
    /// destroyed: after an idle moment that took some 5 us of a sporadic round trip.
    private func decodeFrames() {
        do throws(WireProtocolError) {
            while !disconnected,
                try decoder.next({ (type, payload) throws(WireProtocolError) -> Void in
                    if type == UInt8(APPHOST_WIRE_REPLY.rawValue) {
                        let reply = try WorkerToHostMessage.reply(from: payload)
                        try handleReply(sequence: reply.sequence, status: reply.status)
                    } else {
                        try handle(try WorkerToHostMessage(type: type, payload: payload), of: type)
                    }
                }) != nil
            {}
        } catch {
            disconnect(protocolError: error)
        }
    }

    /// The worker answers in order: the reply is the oldest pending call's.
    private func handleReply(sequence: UInt64, status: Int32) throws(WireProtocolError) {
        guard let first = pending.first else {
            throw WireProtocolError("a reply to call \(sequence), but no call is pending")
        }
        guard first.sequence == sequence else {
            throw WireProtocolError("a reply to call \(sequence) while call \(first.sequence) is pending")
        }
        pending.removeFirst()
        post { first.reply(.success(status)) }
        freezeOnceIdle()
    }

    /// Every frame but a REPLY, which `decodeFrames` hands to `handleReply`; `type` is the frame's,
    /// for the protocol error of one the conversation does not allow now.
    private func handle(_ message: WorkerToHostMessage, of type: UInt8) throws(WireProtocolError) {
        switch message {
        case .report(.audioThread(let thread, realtime: false)):
            // The worker's audio thread could not make itself real-time: the host does, unless
            // it was demoted (for good) before.
            let realtime = !audioDemoted && AudioThreadPriority.promote(thread: thread, of: pid)
            post { [onEvent] in onEvent(.audioThread(id: thread, realtime: realtime)) }
        case .report(let event):
            // In the order the worker wrote them: a task begun, or a scene requested, before a
            // call's reply comes first.
            post { [onEvent] in onEvent(event) }
        case .stopped where stopSent:
            break  // The end of file follows once the worker has exited.
        default:
            throw WireProtocolError(
                "an unexpected \(String(cString: wire_type_name(type))) from a running guest's worker")
        }
    }

    // MARK: The worker's end

    /// The connection is over: end of file, a broken socket, or a protocol error (then the worker,
    /// which can no longer be trusted, is killed). Reaps the worker on another thread, then ends.
    private func disconnect(protocolError: WireProtocolError?) {
        guard !disconnected else { return }
        disconnected = true
        if protocolError != nil { process.kill() }
        // Under the lock, so no handler of the loop's can touch the descriptors once closed.
        if let socketToken { loop.unregister(descriptor: descriptor, token: socketToken) }
        socketToken = nil
        Glibc.close(descriptor)
        if let exit { loop.unregister(descriptor: exit.descriptor, token: exit.token) }
        if let exit { Glibc.close(exit.descriptor) }
        exit = nil
        outbound.discard()
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
                locked { ended(exit, protocolError: protocolError, limitReason: limitReason) }
            }
        }
    }

    private func ended(_ exit: WorkerExit, protocolError: WireProtocolError?, limitReason: String?) {
        let cause =
            protocolError.map { "protocol error: \($0)" } ?? limitReason.map { "\(exit.description): \($0)" }
            ?? exit.description
        let closing: Bool
        if case .closing = phase { closing = true } else { closing = false }
        let hung = "still running \(stopTimeout.secondsText) after the request to terminate, so it was killed"
        // A3: a frozen guest killed on close is no failure; one that hung or died on its way out
        // is (X2), and so is the call it was in.
        let expected = closing && killedWhileClosing && !closeTimedOut
        let failure: String? =
            if !closing || expected { nil } else if closeTimedOut { hung } else if exit != .exited(status: 0) {
                cause
            } else { nil }
        let unanswered: ChannelFailure = expected ? .closed : .crashed(closeTimedOut ? hung : cause)
        phase = .ended(closing ? .closed : .crashed(cause))
        closeTimer?.cancel()
        closeTimer = nil
        onExit()
        // X2: the oldest pending call is the one the guest was in; the core names it.
        for call in pending { post { call.reply(.failure(unanswered)) } }
        for (_, reply) in held { post { reply(.failure(unanswered)) } }
        pending = []
        held = []
        failFreezeCompletions(.crashed(cause))
        if !closing {
            post { [onEvent] in onEvent(.died(cause)) }
        } else if let failure {
            post { [onEvent] in onEvent(.died(failure)) }
        }
        for completion in closeCompletions { post { completion() } }
        closeCompletions = []
    }
}
