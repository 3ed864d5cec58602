import ApphostFreezing
import ApphostPolicy
import ApphostVocabulary
import ApphostWire
import DequeModule

/// What a `WorkerChannel` knows of its worker's conversation, apart from the socket and the
/// process: the calls in flight awaiting their replies, the calls held while the guest is frozen,
/// suspension, closing, and what each call and completion hears once the worker is gone. It makes
/// no system call: each input (a call sent, a frame decoded, a freeze confirmed, the worker
/// reaped, a close asked) changes it and returns what the channel is to do, which the channel
/// carries out, in order, under its lock.
///
/// The inputs of every call (`send`, `reply`, `report`) return small values, never arrays, so
/// that a round trip allocates nothing here; the others return a list of `Effect`s.
struct WorkerChannelState {
    typealias Reply = @Sendable (GuestReply) -> Void
    typealias Completion = @Sendable (Result<Void, ChannelFailure>) -> Void

    enum Freezing {
        case running
        /// Waiting for the pending replies before freezing.
        case suspending
        case freezing
        case frozen
        case thawing
    }

    enum Phase {
        case open
        case closing
        /// The worker has been reaped; later calls fail this way.
        case ended(ChannelFailure)
    }

    /// What becomes of a call sent.
    enum Send {
        /// It is pending under `sequence`: its frame is to be written.
        case write(sequence: UInt64)
        /// The guest is (being) frozen: it is held, and sent in order once the guest runs.
        case hold
        /// It fails now, this way.
        case fail(ChannelFailure)
    }

    /// What a frame other than a REPLY asks of the channel.
    enum Report {
        /// Deliver the guest's event to the host.
        case event(GuestEvent)
        /// The worker's audio thread could not make itself real-time: the host tries, then
        /// reports the thread with whether it succeeded.
        case promoteAudioThread(Int32)
        /// Nothing: the STOPPED that follows a STOP.
        case ignore
    }

    /// What the channel is to do, in order.
    enum Effect {
        /// Deliver on the host queue, behind what was delivered before.
        case reply(Reply, GuestReply)
        case complete(Completion, Result<Void, ChannelFailure>)
        case closed(@Sendable () -> Void)
        case event(GuestEvent)
        /// Put a call's frame behind what waits to be written (written by a later `.flush`).
        case call(sequence: UInt64, GuestMessage)
        /// Put STOP behind what waits, and write.
        case stop
        /// Write what waits.
        case flush
        /// Kill the worker; with `thawing`, thaw it too (a frozen process may not act on SIGKILL
        /// until it is thawed, with the cgroup v1 freezer).
        case kill(thawing: Bool)
        /// Freeze the worker (B7), then tell `froze`.
        case freeze
        /// Thaw the worker, then tell `thawed` with `completion`.
        case thaw(Completion)
        /// In `stopTimeout`, tell `closeTimerFired`.
        case armCloseTimer
        case cancelCloseTimer
        /// The worker has been reaped: run the channel's `onExit`, before anyone hears of its end.
        case exited
    }

    private struct PendingCall {
        let sequence: UInt64
        let reply: Reply
    }

    /// How long a closing worker has before it is killed, for the cause that says so.
    let stopTimeout: Duration
    private(set) var phase = Phase.open
    private(set) var freezing = Freezing.running
    /// The connection is over (end of file, a broken socket, a protocol error): nothing more is
    /// read or written, and the worker is being reaped.
    private(set) var disconnected = false
    /// STOP was sent: the STOPPED that answers it is expected.
    private(set) var stopSent = false
    /// Its audio thread was demoted: no other is made real-time (issue 34, point 9).
    var audioDemoted = false

    private var nextSequence: UInt64 = 1
    /// Calls written and not yet answered, oldest first: the worker answers in order. A deque of
    /// a named struct: an array of tuples took 2.7 us to drop its first after an idle moment,
    /// moving its elements and looking up the tuple's type at run time; a deque drops it in place.
    private var pending: Deque<PendingCall> = []
    /// Calls sent while the guest is (being) frozen, delivered in order once it runs.
    private var held: [(message: GuestMessage, reply: Reply)] = []
    /// Waiting for the freeze under way (or the one to start once the guest is idle).
    private var freezeCompletions: [Completion] = []
    private var closeCompletions: [@Sendable () -> Void] = []
    /// The host killed the worker on purpose while closing (it was suspended, or did not stop in
    /// time): its end is no crash.
    private var killedWhileClosing = false
    /// It was killed because it had not exited `stopTimeout` after `close`: hung in
    /// will_terminate or deinit, which the core reports (X2), unlike the kill of a frozen guest.
    private var closeTimedOut = false

    init(stopTimeout: Duration) {
        self.stopTimeout = stopTimeout
    }

    /// Whether calls await their replies.
    var hasPending: Bool { !pending.isEmpty }

    // MARK: Calls

    /// A call sent: fails now, is held while the guest is frozen, or becomes a pending call.
    mutating func send(_ message: GuestMessage, reply: @escaping Reply) -> Send {
        switch phase {
        case .ended(let failure): return .fail(failure)
        case .closing: return .fail(.closed)
        case .open where freezing != .running:
            held.append((message, reply))
            return .hold
        case .open: return .write(sequence: call(reply))
        }
    }

    /// A REPLY: the worker answers in order, so it is the oldest pending call's; any other is a
    /// protocol error. Returns the call's reply, and whether the channel is now to freeze (a
    /// suspension waited for it).
    mutating func reply(sequence: UInt64) throws(WireProtocolError) -> (reply: Reply, freeze: Bool) {
        guard let first = pending.first else {
            throw WireProtocolError("a reply to call \(sequence), but no call is pending")
        }
        guard first.sequence == sequence else {
            throw WireProtocolError("a reply to call \(sequence) while call \(first.sequence) is pending")
        }
        pending.removeFirst()
        return (first.reply, freezeOnceIdle())
    }

    /// Every frame but a REPLY; `type` is the frame's, for the protocol error of one the
    /// conversation does not allow now.
    mutating func report(_ message: WorkerToHostMessage, type: UInt8) throws(WireProtocolError) -> Report {
        switch message {
        case .report(.audioThreadOverran(let thread)):
            // The worker took its real-time priority away itself: for good, as the host's would.
            audioDemoted = true
            return .event(.audioThreadOverran(id: thread))
        case .report(.audioThread(let thread, realtime: false)):
            // The host makes it real-time, unless it was demoted (for good) before.
            return audioDemoted ? .event(.audioThread(id: thread, realtime: false)) : .promoteAudioThread(thread)
        case .report(let event):
            // In the order the worker wrote them: a task begun, or a scene requested, before a
            // call's reply comes first.
            return .event(event)
        case .stopped where stopSent:
            return .ignore  // The end of file follows once the worker has exited.
        default:
            throw WireProtocolError(
                "an unexpected \(String(cString: wire_type_name(type))) from a running guest's worker")
        }
    }

    private mutating func call(_ reply: @escaping Reply) -> UInt64 {
        let sequence = nextSequence
        nextSequence += 1
        pending.append(PendingCall(sequence: sequence, reply: reply))
        return sequence
    }

    /// How a call must fail now, or nil while the channel is open.
    private var refusal: ChannelFailure? {
        switch phase {
        case .open: nil
        case .closing: .closed
        case .ended(let failure): failure
        }
    }

    // MARK: Suspension

    mutating func suspend(_ completion: @escaping Completion) -> [Effect] {
        if let failure = refusal { return [.complete(completion, .failure(failure))] }
        guard freezing == .running else {
            return [.complete(completion, .failure(.failed("the guest is already suspended or being suspended")))]
        }
        // B7: the calls already sent run to completion, then the whole process stops.
        freezing = .suspending
        freezeCompletions.append(completion)
        return freezeOnceIdle() ? [.freeze] : []
    }

    mutating func resume(_ completion: @escaping Completion) -> [Effect] {
        if let failure = refusal { return [.complete(completion, .failure(failure))] }
        guard freezing == .frozen else {
            return [.complete(completion, .failure(.failed("the guest is not suspended")))]
        }
        freezing = .thawing
        return [.thaw(completion)]
    }

    mutating func forceStop(freezing freeze: Bool, _ completion: @escaping Completion) -> [Effect] {
        if case .ended(let failure) = phase { return [.complete(completion, .failure(failure))] }
        // B5: killed where it stands; the end is reported like a crash, unless closing.
        guard freeze else { return [.kill(thawing: frozenOrFreezing), .complete(completion, .success(()))] }
        switch freezing {
        case .frozen:
            return [.complete(completion, .success(()))]
        case .freezing:
            freezeCompletions.append(completion)
            return []
        case .suspending, .running:
            freezeCompletions.append(completion)
            freezing = .freezing
            return [.freeze]
        case .thawing:
            return [.complete(completion, .failure(.failed("the guest is being resumed")))]
        }
    }

    /// The freeze asked by `.freeze` ended.
    mutating func froze(_ result: Result<Void, FreezeError>) -> [Effect] {
        let completions = freezeCompletions
        freezeCompletions = []
        switch result {
        case .success:
            freezing = .frozen
            var effects = completions.map { Effect.complete($0, .success(())) }
            if case .closing = phase { effects += killWhileClosing() }
            return effects
        case .failure(let error):
            freezing = .running
            let failure = ChannelFailure.failed("cannot freeze the worker: \(error)")
            var effects = completions.map { Effect.complete($0, .failure(failure)) }
            if case .closing = phase { effects += sendStop() } else { effects += deliverHeld() }
            return effects
        }
    }

    /// The thaw asked by `.thaw(completion)` ended.
    mutating func thawed(_ result: Result<Void, FreezeError>, completion: @escaping Completion) -> [Effect] {
        switch result {
        case .success:
            freezing = .running
            if case .closing = phase { return [.complete(completion, .success(()))] + sendStop() }
            return [.complete(completion, .success(()))] + deliverHeld()
        case .failure(let error):
            freezing = .frozen
            let effects = [Effect.complete(completion, .failure(.failed("cannot thaw the worker: \(error)")))]
            if case .closing = phase { return effects + killWhileClosing() }
            return effects
        }
    }

    /// Starts the freeze a suspension waits for once no call is pending.
    private mutating func freezeOnceIdle() -> Bool {
        guard freezing == .suspending, pending.isEmpty else { return false }
        freezing = .freezing
        return true
    }

    private var frozenOrFreezing: Bool { freezing == .frozen || freezing == .freezing }

    private mutating func deliverHeld() -> [Effect] {
        let messages = held
        held = []
        var effects = messages.map { Effect.call(sequence: call($0.reply), $0.message) }
        if !effects.isEmpty { effects.append(.flush) }
        return effects
    }

    private func failFreezeCompletions(_ failure: ChannelFailure) -> [Effect] {
        freezeCompletions.map { .complete($0, .failure(failure)) }
    }

    // MARK: Closing

    mutating func close(_ completion: @escaping @Sendable () -> Void) -> [Effect] {
        if case .ended = phase { return [.closed(completion)] }
        closeCompletions.append(completion)
        guard case .open = phase else { return [] }
        phase = .closing
        var effects = held.map { Effect.reply($0.reply, .failure(.closed)) }
        held = []
        effects.append(.armCloseTimer)
        switch freezing {
        case .running:
            effects += sendStop()
        case .suspending:
            freezing = .running
            effects += failFreezeCompletions(.closed)
            freezeCompletions = []
            effects += sendStop()
        case .frozen:
            // A3: a suspended guest is terminated without any callback.
            effects += killWhileClosing()
        case .freezing, .thawing:
            break  // `froze` or `thawed` goes on from the state they reach.
        }
        return effects
    }

    /// `stopTimeout` after `close`: a worker still running is killed. One whose end of file came
    /// and is only not yet reaped is no hang (with thousands closing at once, reaping them took
    /// longer than the timeout).
    mutating func closeTimerFired() -> [Effect] {
        guard case .closing = phase, !disconnected else { return [] }
        closeTimedOut = true
        return killWhileClosing()
    }

    private mutating func sendStop() -> [Effect] {
        guard !stopSent else { return [] }
        stopSent = true
        // After every call already written: the worker answers them, then calls deinit (A3).
        return [.stop]
    }

    private mutating func killWhileClosing() -> [Effect] {
        killedWhileClosing = true
        return [.kill(thawing: frozenOrFreezing)]
    }

    // MARK: The worker's end

    /// The connection is over: end of file, a broken socket, or a protocol error. False when it
    /// already was.
    mutating func disconnect() -> Bool {
        guard !disconnected else { return false }
        disconnected = true
        return true
    }

    /// The worker has been reaped after `disconnect`: how it ended, the protocol error that ended
    /// the connection, and the limit it ran into, if any.
    mutating func ended(_ exit: WorkerExit, protocolError: WireProtocolError?, limitReason: String?) -> [Effect] {
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
        var effects: [Effect] = [.cancelCloseTimer, .exited]
        // X2: the oldest pending call is the one the guest was in; the core names it.
        for call in pending { effects.append(.reply(call.reply, .failure(unanswered))) }
        for (_, reply) in held { effects.append(.reply(reply, .failure(unanswered))) }
        pending = []
        held = []
        effects += failFreezeCompletions(.crashed(cause))
        freezeCompletions = []
        if !closing {
            effects.append(.event(.died(cause)))
        } else if let failure {
            effects.append(.event(.died(failure)))
        }
        effects += closeCompletions.map { .closed($0) }
        closeCompletions = []
        return effects
    }
}
