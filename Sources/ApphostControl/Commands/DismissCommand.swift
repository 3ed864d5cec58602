import ApphostVocabulary

/// `{"command":"dismiss","scene":S}`: ask to dismiss the scene's top modal (N3).
public struct DismissCommand: ControlCommand, Equatable {
    public static let name = "dismiss"
    /// A session id, a prefix of one, or a scene handle.
    public var scene: String

    public init(scene: String) { self.scene = scene }

    public func validate() throws(ControlProtocolError) { try Self.require(scene, "scene") }

    public func apply(
        to host: any ControlTarget, reply: @escaping @Sendable (Result<ControlMessage, HostCommandError>) -> Void
    ) {
        host.operation(replying: reply) { completion in
            host.dismissModal(scene: scene) {
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
}
