import ApphostModel
import ApphostVocabulary
import Foundation

/// What control commands are applied to: what the verbs ask of the host, on its queue, and the
/// bookkeeping of the operations shutdown waits for. The host service is the one implementation,
/// calling the policy core; `ApphostControlTesting`'s `FakeControlTarget` is another, so that the
/// commands are tested without a host. Every method is called on the host queue, and every
/// completion runs once, on it.
///
/// Guests and scenes are named as the operator gives them. A guest: its id, or its descriptor
/// name in any case, which ``guestID(named:)`` reads. A scene: a session id, a prefix of one (at
/// least 4 characters), or its connection's handle, which the methods that take a scene read the
/// same way. Both by the core's rules (`GuestDirectory`), for every verb and transport.
public protocol ControlTarget: AnyObject, Sendable {
    // MARK: The host

    /// The host's status for `ps`.
    func controlStatus() -> HostStatus
    /// Who the host is, for `host` (CONTRACT O4); nil before it started.
    var identity: HostIdentity? { get }
    /// The host's metrics in Prometheus' text format, for `metrics` (CONTRACT O2), handed to
    /// `reply` away from the host queue: reading each worker's cost is some 200 us a guest.
    func controlMetrics(_ reply: @escaping @Sendable (String) -> Void)
    /// Runs `body` away from the host queue, after what was handed there before: for replies
    /// whose encoding takes long (`ps` of 5,000 guests is 3.5 MB of JSON, some 600 ms), so that
    /// the host's policy and the other requests do not wait for it.
    func awayFromHostQueue(_ body: @escaping @Sendable () -> Void)
    /// Runs an operation that shutdown waits for (a launch, a switch, a termination ...):
    /// `body` calls `done` once, when the operation has finished.
    func operation(_ body: (_ done: @escaping @Sendable () -> Void) -> Void)

    // MARK: Guests

    /// The id of the guest an operator named: its full id, or its descriptor name in any case;
    /// `.notFound` for none, `.invalid` for a name that fits several.
    func guestID(named name: String) throws(HostCommandError) -> String
    /// Brings the guest `id` to the foreground (S3, S5), relaunching it if needed.
    func switchTo(_ id: String, completion: @escaping @Sendable (Result<Void, HostCommandError>) -> Void)
    /// Opens a new primary window of the running guest `id` (S2); the completion gets its session.
    func openScene(_ id: String, completion: @escaping @Sendable (Result<String, HostCommandError>) -> Void)
    /// Sends the guest `id` to background (S3) and stops it (B7).
    func suspend(_ id: String, completion: @escaping @Sendable (Result<Void, HostCommandError>) -> Void)
    /// Lets the suspended guest `id` run again, in background.
    func resume(_ id: String, completion: @escaping @Sendable (Result<Void, HostCommandError>) -> Void)
    /// Terminates the guest `id` gracefully (A3); the completion gets what went wrong on the way
    /// out, if anything (a crash or a hang in will_terminate).
    func terminate(_ id: String, completion: @escaping @Sendable (Result<String?, HostCommandError>) -> Void)
    /// Calls the typed action `action` of the guest the operator named `guest` (F2); the
    /// completion gets its result, nil for an action that returns nothing.
    func callAction(
        guest: String, action: String, arguments: ActionArguments,
        completion: @escaping @Sendable (Result<ActionValue?, HostCommandError>) -> Void)

    // MARK: Scenes, named as the operator gives them

    /// Closes a scene for good, discarding its session (S7); the completion gets its session.
    func closeScene(_ scene: String, completion: @escaping @Sendable (Result<String, HostCommandError>) -> Void)
    /// Asks to dismiss the scene's top modal (N3); the completion gets false when the guest keeps it.
    func dismissModal(scene: String, completion: @escaping @Sendable (Result<Bool, HostCommandError>) -> Void)
    /// A user action on a shown scene, which lets its guest open one scene (S9).
    func performAction(
        scene: String, action: String, payload: Data,
        completion: @escaping @Sendable (Result<Void, HostCommandError>) -> Void)

    // MARK: The display

    /// How the display is arranged now (S11).
    var layout: Layout { get }
    /// Rearranges the display (S11).
    func changeLayout(_ change: LayoutChange, completion: @escaping @Sendable (Result<Void, HostCommandError>) -> Void)
    /// Sends the foreground guest to background (S3).
    func home()
    /// Shows a host alert (S4), or dismisses it.
    func showAlert() throws(HostCommandError)
    func dismissAlert() throws(HostCommandError)

    // MARK: Memory and audio

    /// Memory pressure (A4).
    func memoryWarning(level: MemoryPressure)
    /// The silence switch (C9).
    func setSilenceSwitch(_ on: Bool)
    /// The host's volume, 0 to 1 (C12).
    func setVolume(_ volume: Double) throws(HostCommandError)
    /// Plugs a device into the host, or unplugs it (C10).
    func setAudioDevice(_ device: AudioDevice, plugged: Bool) throws(HostCommandError)
    /// An incoming call begins, interrupting every guest's session, or ends (C5 to C7).
    func beginAudioCall() throws(HostCommandError)
    func endAudioCall(shouldResume: Bool) throws(HostCommandError)
    /// The host's audio engine restarts (media services reset, C15).
    func resetMediaServices()
}
