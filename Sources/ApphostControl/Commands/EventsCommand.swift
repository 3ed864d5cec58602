import ApphostCore

/// `{"command":"events"}`: stream every host event as JSON lines until the connection closes.
/// A transport streams instead of replying (ControlConnectionHandler); applied, it is refused.
public struct EventsCommand: ControlCommand, Equatable {
    public static let name = "events"

    public init() {}

    public func apply(
        to host: any ControlTarget, reply: @escaping @Sendable (Result<ControlMessage, HostCommandError>) -> Void
    ) throws(HostCommandError) {
        throw HostCommandError("\(line) cannot be answered with one reply")
    }
}
