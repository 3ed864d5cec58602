import ApphostModel
import ApphostVocabulary

/// Restarts under the restart policy (CONTRACT X2): a crashed guest is relaunched after the
/// policy's delay, unless it crashed `burst` times within `interval`; then the host says so and
/// leaves it down. Each guest's `RestartHistory` counts and decides; this turns the decisions
/// into what should happen, as values (`RestartEffect`) for its runner to carry out: it never
/// calls the clock nor launches anything itself.
struct Restarter {
    let policy: RestartPolicy

    /// The guest crashed at `now` (in the foreground or not: a restart brings it back there), or
    /// a restart of it failed to launch (`inForeground` nil): relaunched after the delay, if the
    /// policy allows.
    func failed(_ history: inout RestartHistory, at now: Duration, inForeground: Bool? = nil) -> [RestartEffect] {
        if let inForeground { history.crashedInForeground = inForeground }
        switch history.failed(at: now, policy: policy) {
        case .stayDown:
            return []
        case .giveUp:
            return [
                .record(
                    .error, message: "not restarting: \(policy.burst) restarts within \(policy.interval.secondsText)")
            ]
        case .restart(let delay):
            return [.schedule(after: delay)]
        }
    }

    /// The delay of a restart ended: the guest is launched again, where it crashed (foreground or
    /// background), unless it runs again meanwhile or the host gave up on it.
    func due(_ history: inout RestartHistory, phase: GuestPhase) -> [RestartEffect] {
        guard phase == .notRunning, history.beginRestart() else { return [] }
        return [
            .record(.restarting, message: "restart \(history.restarts)"),
            .launch(foreground: history.crashedInForeground),
        ]
    }

    /// The guest's restarts, as `ctl ps` shows them.
    func status(of history: RestartHistory) -> RestartStatus {
        history.status(policy.mode)
    }
}

/// What the restarter says should happen to a guest; its runner carries the effects out in order
/// (`RestartRunner`).
enum RestartEffect: Equatable, Sendable {
    /// Record this event of the guest's, reason crash.
    case record(HostEvent.Kind, message: String)
    /// After `delay`, on the host queue, hand the guest back to `Restarter.due`. Never cancelled:
    /// `due` finds out whether the restart still stands.
    case schedule(after: Duration)
    /// Launch the guest again, as `HostCore.launch` does; a launch that fails is a failure too
    /// (`Restarter.failed`), and counts against the burst.
    case launch(foreground: Bool)
}
