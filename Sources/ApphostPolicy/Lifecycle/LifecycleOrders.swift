import ApphostModel
import ApphostVocabulary

/// What a part's runner asks of the guests' lifecycle, which the core carries out: a guest by
/// id, and the changes of its life a part may call for (an audio flood terminates, an interruption
/// ending resumes, a spent budget suspends).
protocol LifecycleOrders: AnyObject {
    func guest(_ id: String) -> GuestRecord?
    func resume(
        _ id: String, reason: TransitionReason, completion: @escaping @Sendable (Result<Void, HostCommandError>) -> Void
    )
    func terminate(
        _ id: String, reason: TransitionReason,
        completion: @escaping @Sendable (Result<String?, HostCommandError>) -> Void)
    /// B7: suspends a guest from background (`HostCore.stopGuest`).
    func stopGuest(
        _ guest: GuestRecord, channel: any GuestChannel, reason: TransitionReason, onlyIfIdle: Bool,
        completion: @escaping @Sendable (Result<Void, HostCommandError>) -> Void)
}
