import ApphostVocabulary

/// One guest's restarts under the restart policy (CONTRACT X2): the state, and the decision
/// after each failure, owned here so that the rule is tested without a host.
struct RestartHistory: Equatable {
    /// What to do after a failure.
    enum Decision: Equatable {
        /// Relaunch after this delay.
        case restart(after: Duration)
        /// The burst limit is reached, just now: say so, and leave the guest down.
        case giveUp
        /// Nothing: the policy restarts nothing, or gave up before.
        case stayDown
    }

    /// The restarts decided within the policy's interval.
    private var recent = RateWindow()
    /// How many times the host restarted the guest since it was first launched.
    private(set) var restarts = 0
    /// The burst limit was reached: the host no longer restarts it.
    private(set) var gaveUp = false
    /// The guest was in the foreground when it last crashed: a restart brings it back there.
    var crashedInForeground = false

    /// Decides after a failure at `now`: a restart unless `policy` allows `burst` restarts
    /// within `interval` and as many were decided already.
    mutating func failed(at now: Duration, policy: RestartPolicy) -> Decision {
        guard policy.mode == .onFailure, !gaveUp else { return .stayDown }
        guard recent.admit(at: now, limit: policy.burst, window: policy.interval) else {
            gaveUp = true
            return .giveUp
        }
        return .restart(after: policy.delay)
    }

    /// A decided restart is due: counts it, or returns false when the guest gave up meanwhile.
    mutating func beginRestart() -> Bool {
        guard !gaveUp else { return false }
        restarts += 1
        return true
    }

    /// As `ctl ps` shows it.
    func status(_ mode: RestartPolicy.Mode) -> RestartStatus {
        RestartStatus(policy: mode, restarts: restarts, gaveUp: gaveUp)
    }
}
