import ApphostModel
import ApphostVocabulary

/// CONTRACT S1 to S5: the callbacks that move a scene between its states (S1), in the order the
/// contract gives them, and the handles of the scenes' connections. It owns the next handle,
/// unique within the host; nothing else writes it. The core asks it for one step at a time, so
/// that each step sees what the steps before did.
struct SceneTransitions {
    /// One step of a scene's way to a state.
    enum Step: Equatable, Sendable {
        /// S2: will-connect, into `initial`: background, where the connection is done, or
        /// foregroundInactive, which will-enter-foreground then reaches.
        case connect(into: SceneState)
        /// `callback`, which brings the scene to `state`.
        case callback(SceneCallback, to: SceneState)
    }

    private var nextHandle: SceneHandle = 1

    /// The next step from `current` toward `target`; nil once there. Connecting (S2), then
    /// will-enter-foreground and did-become-active on the way up (S5); will-resign-active, then
    /// did-enter-background on the way down (S3), of which an interruption takes the first only
    /// (S4).
    static func next(from current: SceneState, to target: SceneState) -> Step? {
        guard current != target else { return nil }
        switch (current, target) {
        case (.unattached, _):
            return .connect(into: target == .background ? .background : .foregroundInactive)
        case (.background, _):
            return .callback(.willEnterForeground, to: .foregroundInactive)
        case (.foregroundInactive, .foregroundActive):
            return .callback(.didBecomeActive, to: .foregroundActive)
        case (.foregroundInactive, _):
            return .callback(.didEnterBackground, to: .background)
        case (.foregroundActive, _):
            return .callback(.willResignActive, to: .foregroundInactive)
        }
    }

    /// S2: the handle of a new connection.
    mutating func newConnection() -> SceneHandle {
        defer { nextHandle += 1 }
        return nextHandle
    }
}
