import ApphostExecutors
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
///
/// Three parts, each in a file of its own: its state (`WorkerChannelState`: calls in flight,
/// suspension, closing, the worker's end, which takes inputs and returns what to do), its frames
/// (`WorkerFraming`), and the worker's socket and process (`WorkerTransport`, in production
/// `WorkerProcessTransport`; tests give an in-memory one). This class holds them together under
/// one lock and delivers what they produce to the host queue, in order.
public final class WorkerChannel: GuestChannel, @unchecked Sendable {
    // Every mutable member (and the transport's) is guarded by `lock`: the public methods take it
    // on the caller's thread (the write of a call happens there, non-blocking), the event loop's
    // thread takes it to read and to flush, and the timer, freezer calls and the reaper take it
    // when they come back.
    // Everything reported to the host goes through `outbox` while the lock is held and is
    // delivered in that order by one deliverer at a time, so it arrives in the order the state
    // changed. Only immutable members are read without it.
    public typealias Reply = @Sendable (GuestReply) -> Void
    private typealias Completion = @Sendable (Result<Void, ChannelFailure>) -> Void

    /// The worker's process id, for operators and tests.
    public let pid: pid_t
    public var processID: Int32? { pid }
    /// The parts of its container the worker enforces (CONTRACT X6).
    public let sandboxParts: [SandboxPart]?

    public func audioThreadCPUTime(_ thread: Int32) -> Duration? {
        transport.audioThreadCPUTime(thread)
    }

    public func demoteAudioThread(_ thread: Int32) -> Bool {
        lock.withLock { state.audioDemoted = true }
        return transport.demoteAudioThread(thread)
    }

    private let transport: any WorkerTransport
    private let hostQueue: any HostExecutor
    private let onEvent: @Sendable (GuestEvent) -> Void
    /// Runs under `lock` once the worker has been reaped, before anyone hears of its end.
    private let onExit: @Sendable () -> Void
    /// Whether the thread that wrote a call reads once for its reply (`readAfterWriting`).
    private let readsAfterWriting: Bool
    private let lock = WorkerLock()
    /// The host queue is the event loop itself (as in `apphost`), not a queue of its own: the
    /// loop's handlers then never wait for a delivery, which would be their own.
    private let hostQueueIsLoop: Bool

    private var state: WorkerChannelState
    private var framing: WorkerFraming
    /// What the host queue is to run, in the order the state changed; see `locked`.
    private var outbox: [@Sendable () -> Void] = []
    /// A delivery of the outbox is under way: whoever posts leaves the new work to it.
    private var draining = false

    /// A channel to a worker that has passed its handshake: `socket` and the bytes read past its
    /// last answer.
    convenience init(
        process: WorkerProcess, output: WorkerOutput? = nil, socket: WireSocket, freezer: any ProcessFreezer,
        limiter: WorkerLimiter?, hostQueue: any HostExecutor, sandbox: [SandboxPart] = [],
        stopTimeout: Duration, readsAfterWriting: Bool = true, onEvent: @escaping @Sendable (GuestEvent) -> Void,
        onExit: @escaping @Sendable () -> Void, onUsage: @escaping @Sendable (_ cpuSeconds: Double) -> Void = { _ in }
    ) {
        self.init(
            transport: WorkerProcessTransport(
                process: process, output: output, socket: socket.descriptor, freezer: freezer, limiter: limiter,
                onUsage: onUsage),
            received: socket.decoder, hostQueue: hostQueue, sandbox: sandbox, stopTimeout: stopTimeout,
            readsAfterWriting: readsAfterWriting, onEvent: onEvent, onExit: onExit)
    }

    /// A channel over `transport`, with the bytes already `received` from the worker.
    init(
        transport: any WorkerTransport, received: WireFrameDecoder = WireFrameDecoder(), hostQueue: any HostExecutor,
        sandbox: [SandboxPart] = [], stopTimeout: Duration, readsAfterWriting: Bool = true,
        onEvent: @escaping @Sendable (GuestEvent) -> Void,
        onExit: @escaping @Sendable () -> Void
    ) {
        self.transport = transport
        pid = transport.pid
        sandboxParts = sandbox
        self.hostQueue = hostQueue
        hostQueueIsLoop = HostEventLoop.isHostQueue(hostQueue)
        self.readsAfterWriting = readsAfterWriting
        self.onEvent = onEvent
        self.onExit = onExit
        state = WorkerChannelState(stopTimeout: stopTimeout)
        framing = WorkerFraming(decoder: received)
        locked {
            transport.connect(self)
            // What arrived with the handshake's last read, such as the first logs of a guest thread.
            decodeFrames()
            flush()
        }
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
        locked { apply(state.suspend(completion)) }
    }

    public func resume(completion: @escaping @Sendable (Result<Void, ChannelFailure>) -> Void) {
        locked { apply(state.resume(completion)) }
    }

    public func forceStop(freezing: Bool, completion: @escaping @Sendable (Result<Void, ChannelFailure>) -> Void) {
        locked { apply(state.forceStop(freezing: freezing, completion)) }
    }

    public func close(completion: @escaping @Sendable () -> Void) {
        locked { apply(state.close(completion)) }
    }

    // MARK: Calls

    /// Fails `message` now, holds it while the guest is frozen, or makes it a pending call whose
    /// frame waits to be written: true for that, and then `writeCalls` sends it.
    private func take(_ message: GuestMessage, reply: @escaping Reply) -> Bool {
        switch state.send(message, reply: reply) {
        case .write(let sequence):
            append(.call(sequence: sequence, message))
            return true
        case .hold:
            return false
        case .fail(let failure):
            post { reply(.failure(failure)) }
            return false
        }
    }

    private func append(_ message: HostToWorkerMessage) {
        guard !state.disconnected else { return }
        framing.append(message)
    }

    /// Writes the calls taken, then reads once: the reply may be there already.
    private func writeCalls() {
        flush()
        readAfterWriting()
    }

    /// Carries out what the state asked, in order.
    private func apply(_ effects: [WorkerChannelState.Effect]) {
        for effect in effects {
            switch effect {
            case .reply(let reply, let result): post { reply(result) }
            case .complete(let completion, let result): post { completion(result) }
            case .closed(let completion): post(completion)
            case .event(let event): post { [onEvent] in onEvent(event) }
            case .call(let sequence, let message): append(.call(sequence: sequence, message))
            case .stop:
                append(.stop)
                flush()
            case .flush: flush()
            case .kill(let thawing): transport.kill(thawing: thawing)
            case .freeze: startFreezing()
            case .thaw(let completion):
                transport.thaw { [self] result in locked { apply(state.thawed(result, completion: completion)) } }
            case .armCloseTimer:
                transport.armCloseTimer(after: state.stopTimeout) { [weak self] in
                    guard let self else { return }
                    locked { apply(state.closeTimerFired()) }
                }
            case .cancelCloseTimer: transport.cancelCloseTimer()
            case .exited: onExit()
            }
        }
    }

    private func startFreezing() {
        transport.freeze { [self] result in locked { apply(state.froze(result)) } }
    }

    // MARK: Socket

    /// The loop found the socket readable (or hung up), or writable again.
    func socketReady(readable: Bool, writable: Bool, buffer: UnsafeMutableRawBufferPointer) {
        locked(onLoop: true) {
            guard !state.disconnected else { return }
            if readable { readAvailable(into: buffer) }
            if writable, !state.disconnected { flush() }
        }
    }

    /// The worker has exited, although its socket may stay open (a process the guest forked
    /// inherited it).
    func workerExited(buffer: UnsafeMutableRawBufferPointer) {
        locked(onLoop: true) {
            guard !state.disconnected else { return }
            // What it wrote before it went is all in the socket buffer by now.
            for _ in 0..<64 where !state.disconnected {
                guard readAvailable(into: buffer) else { break }
            }
            disconnect(protocolError: nil)
        }
    }

    /// Writes what waits, on the caller's thread, never blocking.
    private func flush() {
        guard !state.disconnected else { return }
        transport.flush(&framing.outbound)
    }

    /// One read, without waiting, on the thread that has just written a call: the reply may be
    /// there already. A worker woken on the writer's processor often runs at once and answers
    /// before the write returns; read here, the reply goes to the host queue from the thread that
    /// wrote, rather than through another `epoll_wait` (or, with a host queue of its own, the
    /// event loop's wake, which after an idle moment is a halted processor's: Benchmarks/README.md,
    /// sporadic round trips). When nothing is there it costs one recv, which is all it ever does
    /// for a worker at a higher nice than the host's: woken, it waits for the writer to sleep.
    private func readAfterWriting() {
        guard readsAfterWriting, !state.disconnected, state.hasPending else { return }
        withUnsafeTemporaryAllocation(byteCount: 1024, alignment: 16) { buffer in
            _ = readAvailable(into: buffer, reads: 1)
        }
    }

    /// Reads and handles what the worker sent; returns whether more may be waiting.
    @discardableResult
    private func readAvailable(into buffer: UnsafeMutableRawBufferPointer, reads: Int = 16) -> Bool {
        let receipt = transport.receive(into: buffer, reads: reads) { bytes in
            framing.received(bytes)
            decodeFrames()
            return !state.disconnected
        }
        switch receipt {
        case .more: return true
        case .drained: return false
        case .ended:
            disconnect(protocolError: nil)
            return false
        }
    }

    /// Handles every whole frame received: a reply goes straight to its call.
    private func decodeFrames() {
        do throws(WireProtocolError) {
            while !state.disconnected, let frame = try framing.next() {
                switch frame {
                case .reply(let sequence, let status):
                    let (reply, freeze) = try state.reply(sequence: sequence)
                    post { reply(.success(status)) }
                    if freeze { startFreezing() }
                case .message(let message, let type):
                    switch try state.report(message, type: type) {
                    case .event(let event):
                        post { [onEvent] in onEvent(event) }
                    case .promoteAudioThread(let thread):
                        let realtime = transport.promoteAudioThread(thread)
                        post { [onEvent] in onEvent(.audioThread(id: thread, realtime: realtime)) }
                    case .ignore:
                        break
                    }
                }
            }
        } catch {
            disconnect(protocolError: error)
        }
    }

    // MARK: The worker's end

    /// The connection is over: end of file, a broken socket, or a protocol error (then the worker,
    /// which can no longer be trusted, is killed). Reaps the worker, then ends.
    private func disconnect(protocolError: WireProtocolError?) {
        guard state.disconnect() else { return }
        if protocolError != nil { transport.kill(thawing: false) }
        transport.disconnect()
        framing.discard()
        transport.reap { [self] exit, limitReason in
            locked { apply(state.ended(exit, protocolError: protocolError, limitReason: limitReason)) }
        }
    }
}
