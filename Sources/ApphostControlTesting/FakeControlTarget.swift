import ApphostControl
import ApphostModel
import ApphostVocabulary
import Foundation

/// A `ControlTarget` without a host, for the control layer's tests, as `FakeChannel` is a guest
/// without a process for the core's: it records what the commands ask, in order, and answers as
/// the test set it up. The test's thread is its host queue: call it from that thread only.
///
/// Completions run at once, unless `holding` is set: then they wait in ``held`` until
/// ``releaseHeld()``, so that a test sees what a command does before its operation ends.
public final class FakeControlTarget: ControlTarget, @unchecked Sendable {
    /// What was asked, one line each: the method's name and its arguments, such as
    /// `"suspend org.example.notes"` or `"guestID Notes"`.
    public private(set) var calls: [String] = []
    /// The guests the operator may name: what they type, and the id it names.
    public var names: [String: String] = [:]
    /// The refusal every method answers with from now on; nil to carry them out.
    public var refusal: HostCommandError?
    /// Completions wait in ``held`` instead of running at once.
    public var holding = false
    public private(set) var held: [() -> Void] = []
    /// Operations begun that have not ended (shutdown waits for them), and how many began.
    public private(set) var operationsInFlight = 0
    public private(set) var operationsBegun = 0
    /// Work handed away from the host queue, which runs when the test calls ``runAway()``.
    public private(set) var away: [@Sendable () -> Void] = []

    public var status: HostStatus
    public var identity: HostIdentity?
    public var metricsText = ""
    public var layout = Layout()
    /// What `home` leaves in the layout; by default nothing in the main place.
    public var afterHome: ((Layout) -> Layout)?
    /// What `openScene` answers: the new session.
    public var openedSession = "0123abcd"
    /// What `terminate` answers: the trouble on the way out.
    public var terminationTrouble: String?
    /// What `dismissModal` answers: false when the guest keeps its modal.
    public var modalDismissed = true
    /// What `callAction` answers.
    public var actionResult: ActionValue?
    /// What `closeScene` answers: the closed scene's session.
    public var closedSession = "0123abcd-closed"

    public init(status: HostStatus? = nil) {
        self.status =
            status ?? HostStatus(foreground: nil, alert: false, guests: [], display: "1920x1080", layout: Layout())
    }

    /// Runs the completions held so far, in order.
    public func releaseHeld() {
        let waiting = held
        held = []
        for completion in waiting { completion() }
    }

    /// Runs what was handed away from the host queue, in order.
    public func runAway() {
        let waiting = away
        away = []
        for body in waiting { body() }
    }

    private func record(_ call: String) { calls.append(call) }

    /// Answers `completion` with `value`, or with the refusal; at once or held.
    private func answer<T>(_ completion: @escaping @Sendable (Result<T, HostCommandError>) -> Void, _ value: T) {
        let result: Result<T, HostCommandError> = refusal.map { .failure($0) } ?? .success(value)
        let value = UncheckedBox(result)
        if holding { held.append { completion(value.result) } } else { completion(result) }
    }

    private func refuse() throws(HostCommandError) {
        if let refusal { throw refusal }
    }

    // MARK: ControlTarget

    public func controlStatus() -> HostStatus {
        record("controlStatus")
        return status
    }

    public func controlMetrics(_ reply: @escaping @Sendable (String) -> Void) {
        record("controlMetrics")
        let text = metricsText
        away.append { reply(text) }
    }

    public func awayFromHostQueue(_ body: @escaping @Sendable () -> Void) { away.append(body) }

    public func operation(_ body: (_ done: @escaping @Sendable () -> Void) -> Void) {
        operationsInFlight += 1
        operationsBegun += 1
        let ended = UncheckedBox(self)
        body { ended.result.operationsInFlight -= 1 }
    }

    public func guestID(named name: String) throws(HostCommandError) -> String {
        record("guestID \(name)")
        try refuse()
        guard let id = names[name] else { throw .notFound("no guest \(name)") }
        return id
    }

    public func switchTo(_ id: String, completion: @escaping @Sendable (Result<Void, HostCommandError>) -> Void) {
        record("switchTo \(id)")
        answer(completion, ())
    }

    public func openScene(_ id: String, completion: @escaping @Sendable (Result<String, HostCommandError>) -> Void) {
        record("openScene \(id)")
        answer(completion, openedSession)
    }

    public func suspend(_ id: String, completion: @escaping @Sendable (Result<Void, HostCommandError>) -> Void) {
        record("suspend \(id)")
        answer(completion, ())
    }

    public func resume(_ id: String, completion: @escaping @Sendable (Result<Void, HostCommandError>) -> Void) {
        record("resume \(id)")
        answer(completion, ())
    }

    public func terminate(_ id: String, completion: @escaping @Sendable (Result<String?, HostCommandError>) -> Void) {
        record("terminate \(id)")
        answer(completion, terminationTrouble)
    }

    public func callAction(
        guest: String, action: String, arguments: ActionArguments,
        completion: @escaping @Sendable (Result<ActionValue?, HostCommandError>) -> Void
    ) {
        record("callAction \(guest) \(action) \(arguments)")
        answer(completion, actionResult)
    }

    public func closeScene(_ scene: String, completion: @escaping @Sendable (Result<String, HostCommandError>) -> Void)
    {
        record("closeScene \(scene)")
        answer(completion, closedSession)
    }

    public func dismissModal(scene: String, completion: @escaping @Sendable (Result<Bool, HostCommandError>) -> Void) {
        record("dismissModal \(scene)")
        answer(completion, modalDismissed)
    }

    public func performAction(
        scene: String, action: String, payload: Data,
        completion: @escaping @Sendable (Result<Void, HostCommandError>) -> Void
    ) {
        record("performAction \(scene) \(action) \(String(decoding: payload, as: UTF8.self))")
        answer(completion, ())
    }

    public func changeLayout(
        _ change: LayoutChange, completion: @escaping @Sendable (Result<Void, HostCommandError>) -> Void
    ) {
        record("changeLayout \(change)")
        answer(completion, ())
    }

    public func home() {
        record("home")
        if let afterHome { layout = afterHome(layout) } else { layout.main = .empty }
    }

    public func showAlert() throws(HostCommandError) {
        record("showAlert")
        try refuse()
    }

    public func dismissAlert() throws(HostCommandError) {
        record("dismissAlert")
        try refuse()
    }

    public func memoryWarning(level: MemoryPressure) { record("memoryWarning \(level.rawValue)") }

    public func setSilenceSwitch(_ on: Bool) { record("setSilenceSwitch \(on)") }

    public func setVolume(_ volume: Double) throws(HostCommandError) {
        record("setVolume \(volume)")
        try refuse()
    }

    public func setAudioDevice(_ device: AudioDevice, plugged: Bool) throws(HostCommandError) {
        record("setAudioDevice \(device.rawValue) \(plugged)")
        try refuse()
    }

    public func beginAudioCall() throws(HostCommandError) {
        record("beginAudioCall")
        try refuse()
    }

    public func endAudioCall(shouldResume: Bool) throws(HostCommandError) {
        record("endAudioCall \(shouldResume)")
        try refuse()
    }

    public func resetMediaServices() { record("resetMediaServices") }
}

/// A value handed to a `@Sendable` closure that runs on the fake's one thread.
private struct UncheckedBox<T>: @unchecked Sendable {
    let result: T
    init(_ result: T) { self.result = result }
}
