import ApphostVocabulary

/// `{"command":"ps"}`: the host's status.
public struct StatusCommand: ControlCommand, Equatable {
    public static let name = "ps"
    public static var answeredDuringShutdown: Bool { true }

    public init() {}

    public func apply(
        to host: any ControlTarget, reply: @escaping @Sendable (Result<HostStatus, HostCommandError>) -> Void
    ) {
        // Taken on the host queue, encoded away from it.
        let status = host.controlStatus()
        host.awayFromHostQueue { reply(.success(status)) }
    }
}
