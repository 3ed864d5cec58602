import ApphostVocabulary

/// `{"command":"host"}`: who the host is (CONTRACT O4): its id, the machine's name, its release
/// and when this run started.
public struct HostCommand: QueryCommand, Equatable {
    public static let name = "host"
    public typealias Response = HostIdentity

    public init() {}

    public func apply(to host: any ControlTarget, reply: @escaping Reply) {
        // A host answers only once it started, and it has an identity from then on.
        guard let identity = host.identity else { return reply(.failure(HostCommandError("the host has not started"))) }
        reply(.success(identity))
    }
}
