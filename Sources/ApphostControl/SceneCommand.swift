import ApphostVocabulary

/// A verb on one scene, which the operator names by its session id, a unique prefix of one, or
/// its handle: close, dismiss. The core resolves the name (`findScene`) when the verb runs; the
/// validation, the wait at shutdown and the reply are the same for all.
public protocol SceneCommand: ControlCommand where Response == ControlMessage {
    /// A session id, a prefix of one, or a scene handle.
    var scene: String { get }
    init(scene: String)

    /// Starts the verb on the host queue; `completion` gets what to answer.
    func start(on host: any ControlTarget, completion: @escaping SaidReply)
}

extension SceneCommand {
    public func validate() throws(ControlProtocolError) { try Self.require(scene, "scene") }

    public func apply(to host: any ControlTarget, reply: @escaping Reply) {
        host.operation(replying: reply) { start(on: host, completion: $0) }
    }
}
