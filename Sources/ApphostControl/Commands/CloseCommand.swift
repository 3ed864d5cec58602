import ApphostVocabulary

/// `{"command":"close","scene":S}`: close a scene for good, discarding its session (S7).
public struct CloseCommand: SceneCommand, Equatable {
    public static let name = "close"
    public var scene: String

    public init(scene: String) { self.scene = scene }

    public func start(on host: any ControlTarget, completion: @escaping SaidReply) {
        host.closeScene(scene) {
            completion($0.map { "closed scene \($0): its session and saved state are discarded" })
        }
    }
}
