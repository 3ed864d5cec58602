/// How a requested scene is shown (CONTRACT S10). Raw values are the C ABI's
/// `enum apphost_presentation_style`.
public enum PresentationStyle: Int32, Sendable, CodableByName {
    /// The host chooses.
    case automatic = 0
    /// Beside the requesting scene.
    case standard = 1
    /// Above every other scene, which stay visible but inactive until it closes.
    case prominent = 2
}
