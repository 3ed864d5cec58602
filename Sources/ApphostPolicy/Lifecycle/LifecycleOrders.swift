import ApphostModel
import ApphostVocabulary

/// What a part's runner asks of the guests' lifecycle, which the core carries out: a guest by
/// id, and the changes of its life a part may call for (an audio flood terminates, an interruption
/// ending resumes, a spent budget suspends).
protocol LifecycleOrders: AnyObject {
    /// The guests, in the order they were first loaded.
    var guests: [GuestRecord] { get }
    func guest(_ id: String) -> GuestRecord?
    /// The id of the guest an operator named: its full id, or its descriptor name in any case.
    func guestID(named name: String) throws(HostCommandError) -> String
    /// The guest `id` and its channel, if it runs; else why a command cannot act on it.
    func running(_ id: String) -> Result<(GuestRecord, any GuestChannel), HostCommandError>
    /// A scene by its session id, a unique prefix of one, or its connection's handle.
    func scene(named name: String) throws(HostCommandError) -> (GuestRecord, Int)
    /// The guest's app state changed from `before` (its scenes moved): recorded, and its audio follows.
    func appStateChanged(_ guest: GuestRecord, from before: AppState, reason: TransitionReason)
    /// The guest entered background, or left it (B2).
    func backgroundChanged(_ guest: GuestRecord, entered: Bool)
    /// X5: the guest's runtime hears which of its scenes' last saves could not be stored.
    func tellSaveStatus(_ guest: GuestRecord)
    func launch(
        path: String, foreground: Bool,
        completion: @escaping @Sendable (Result<GuestDescriptor, HostCommandError>) -> Void)
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
