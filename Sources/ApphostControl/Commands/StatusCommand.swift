import ApphostVocabulary

/// `{"command":"ps"}`: the host's status.
public struct StatusCommand: QueryCommand, Equatable {
    public static let name = "ps"
    public typealias Response = HostStatus

    public init() {}

    public func apply(to host: any ControlTarget, reply: @escaping Reply) {
        // Taken on the host queue, encoded away from it.
        let status = host.controlStatus()
        host.awayFromHostQueue { reply(.success(status)) }
    }
}
