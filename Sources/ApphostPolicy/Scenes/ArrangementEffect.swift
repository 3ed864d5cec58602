import ApphostModel
import ApphostVocabulary

/// What `Arrangement` says should happen as the layout changes, in order; its runner carries each
/// out through the callbacks S2 to S5 order (`SceneRunner`).
enum ArrangementEffect: Equatable, Sendable {
    /// S3: the scene is no longer shown: to background, if it is in the foreground still.
    case hide(SceneRef)
    /// S11, S4: the scene is shown at `size`: to the foreground, active unless an alert or a
    /// prominent scene covers it, then told its size if its connection has not heard it.
    case show(SceneRef, size: SceneSize?, active: Bool)
    /// Record this event of the host's (the layout's line, the alert).
    case record(HostEvent.Kind, name: String? = nil, message: String? = nil)
}
