import ApphostVocabulary

/// The watchdog (CONTRACT B5): a callback gets the whole limit from the moment it becomes the
/// oldest unanswered one. Past the limit the guest is flagged; past the hard limit it is killed
/// or frozen, by policy. The host itself never waits for it. Each guest's `CallWatch` holds its
/// callbacks and the rule; this decides when to look at them and what to do about what it finds.
///
/// It takes inputs (a callback sent or answered, its timer falling due, the outcome of stopping
/// the guest) with the guest's `CallWatch` and the time, and returns what should happen as values
/// (`WatchdogEffect`), in order, for its runner to carry out. It never calls the clock: its one
/// timer a guest is a token (`WatchdogToken`) the core arms and hands back to `look`.
struct Watchdog {
    let policy: WatchdogPolicy
    /// Numbers the tokens, for all guests.
    private var serial: UInt64 = 0

    init(policy: WatchdogPolicy) {
        self.policy = policy
    }

    /// `callback` was sent at `now`: watched from now if it is the oldest.
    mutating func sent(_ callback: String, _ calls: inout CallWatch, at now: Duration) -> [WatchdogEffect] {
        guard calls.sent(callback, at: now) else { return [] }
        return arm(&calls, at: calls.nextLook(policy), now: now)
    }

    /// The oldest callback was answered at `now`; `more` says whether another one is unanswered
    /// (and watched from now).
    mutating func answered(_ calls: inout CallWatch, at now: Duration) -> (more: Bool, effects: [WatchdogEffect]) {
        guard calls.answered(at: now) else { return (false, []) }
        return (true, arm(&calls, at: calls.nextLook(policy), now: now))
    }

    /// `token` fell due at `now`: the watchdog looks at the oldest callback. A token that is no
    /// longer the guest's timer does nothing.
    mutating func look(_ token: WatchdogToken, _ calls: inout CallWatch, at now: Duration) -> [WatchdogEffect] {
        guard calls.timer == token else { return [] }
        calls.timer = nil
        let finding = calls.check(at: now, policy: policy)
        var effects: [WatchdogEffect] = []
        if let callback = finding.overdue {
            effects.append(
                .record(.watchdog, message: "\(callback) has not returned within \(policy.limit.secondsText)"))
        }
        if let callback = finding.hung {
            let freezing = policy.action == .freeze
            if !freezing { calls.killedByWatchdog = true }
            calls.lastHung = (calls.answeredCount, callback)
            let overdue = "\(callback) has not returned within \(policy.hardLimit.secondsText)"
            effects.append(.stop(freezing: freezing, overdue: overdue))
        } else if let next = finding.next {
            effects += arm(&calls, at: next, now: now)
        }
        return effects
    }

    /// The guest's channel answered `.stop(freezing:overdue:)`.
    func stopped(
        _ result: Result<Void, ChannelFailure>, freezing: Bool, overdue: String, _ calls: inout CallWatch
    ) -> [WatchdogEffect] {
        switch result {
        case .failure(let failure):
            calls.killedByWatchdog = false
            return [.record(.error, message: "\(overdue); cannot stop it: \(failure)")]
        case .success where freezing:
            return [.frozen(overdue: overdue)]
        case .success:
            // The death that follows is reported through the core's `crashed`, with reason watchdog.
            return []
        }
    }

    /// The guest is gone: nothing is waiting any more, and its timer is off.
    func ended(_ calls: inout CallWatch) -> [WatchdogEffect] {
        let timer = calls.timer
        calls.reset()
        return timer.map { [.cancel($0)] } ?? []
    }

    /// Makes sure the watchdog looks again by `due`. An earlier timer stays: when it falls due it
    /// finds a younger callback and sets itself for that one.
    private mutating func arm(_ calls: inout CallWatch, at due: Duration, now: Duration) -> [WatchdogEffect] {
        if calls.timer != nil, calls.timerDue <= due { return [] }
        var effects: [WatchdogEffect] = calls.timer.map { [.cancel($0)] } ?? []
        serial += 1
        let token = WatchdogToken(serial: serial)
        calls.timer = token
        calls.timerDue = due
        effects.append(.schedule(token, after: due - now))
        return effects
    }
}

/// One arming of a guest's watchdog timer (`WatchdogEffect.schedule`), unique within the
/// watchdog.
struct WatchdogToken: Hashable, Sendable {
    let serial: UInt64
}

/// What the watchdog says should happen to the guest an input concerned; its runner carries the
/// effects out in order (`GuestOutbox`).
enum WatchdogEffect: Equatable, Sendable {
    /// Record this event of the guest's, reason watchdog.
    case record(HostEvent.Kind, message: String)
    /// Arm `token` on the clock, `after` from now; hand it back to `Watchdog.look` when it falls
    /// due while the guest still runs on the channel it had.
    case schedule(WatchdogToken, after: Duration)
    /// Disarm `token`: it must not fall due.
    case cancel(WatchdogToken)
    /// Stop the guest stuck in a callback: frozen where it stands, or killed; hand the channel's
    /// answer back to `Watchdog.stopped`.
    case stop(freezing: Bool, overdue: String)
    /// The guest was frozen, `overdue` saying in what: the host takes it as suspended.
    case frozen(overdue: String)
}
