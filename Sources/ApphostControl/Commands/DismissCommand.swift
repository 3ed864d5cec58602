import ApphostVocabulary

/// `{"command":"dismiss","scene":S}`: ask to dismiss the scene's top modal (N3).
public struct DismissCommand: SceneCommand, Equatable {
    public static let name = "dismiss"
    public var scene: String

    public init(scene: String) { self.scene = scene }

    public func start(on host: any ControlTarget, completion: @escaping SaidReply) {
        host.dismissModal(scene: scene) { [scene] in
            completion(
                $0.map {
                    // A kept modal is the guest's answer (N3), not a failure.
                    $0
                        ? "dismissed the top modal of scene \(scene)"
                        : "the guest keeps it (the top modal of scene \(scene) stays; it may ask to confirm)"
                })
        }
    }
}
