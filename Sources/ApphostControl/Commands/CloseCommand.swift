import ApphostVocabulary

/// `{"command":"close","scene":S}`: close a scene for good, discarding its session (S7).
public struct CloseCommand: ControlCommand, Equatable {
    public static let name = "close"
    /// A session id, a prefix of one, or a scene handle.
    public var scene: String

    public init(scene: String) { self.scene = scene }

    public func validate() throws(ControlProtocolError) { try Self.require(scene, "scene") }

    public func apply(
        to host: any ControlTarget, reply: @escaping @Sendable (Result<ControlMessage, HostCommandError>) -> Void
    ) {
        host.operation(replying: reply) { completion in
            host.closeScene(scene) {
                completion($0.map { "closed scene \($0): its session and saved state are discarded" })
            }
        }
    }
}
