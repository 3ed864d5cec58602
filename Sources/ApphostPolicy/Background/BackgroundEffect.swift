import ApphostModel
import ApphostVocabulary

/// What the background scheduler says should happen to the guest an input concerned; its runner
/// carries the effects out in order (`BackgroundRunner`).
enum BackgroundEffect: Equatable, Sendable {
    /// Send this call to the guest.
    case deliver(GuestCall)
    /// Send these calls together, in order: one write to a worker, not one each.
    case deliverAll([GuestCall])
    /// Record this event of the guest's.
    case record(HostEvent.Kind, reason: TransitionReason? = nil, name: String? = nil, message: String)
    /// Stop the guest for `reason` (B4, B6). With `onlyIfIdle`, a task begun or audio started by
    /// the time its runtime confirms that no background time is left calls the suspension off
    /// (B6); with `thenTerminate`, it is terminated once frozen (B4's overrun policy).
    case suspend(TransitionReason, onlyIfIdle: Bool, thenTerminate: Bool)
    /// Arm `token` on the clock, `after` from now; hand it back to `BackgroundScheduler.tick`
    /// when it falls due.
    case schedule(BackgroundToken, after: Duration)
    /// Disarm `token`: it must not fall due.
    case cancel(BackgroundToken)
}
