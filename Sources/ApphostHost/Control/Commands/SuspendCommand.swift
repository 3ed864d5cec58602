/// `{"command":"suspend","guest":ID}`: send a guest to background (S3) and stop it (B7).
public struct SuspendCommand: ControlCommand, Equatable {
    public static let name = "suspend"
    /// The guest's id, or its name in any case.
    public var guest: String

    public init(guest: String) { self.guest = guest }

    public func validate() throws(ControlProtocolError) { try Self.require(guest, "guest") }

    public func apply(
        to host: HostService, reply: @escaping @Sendable (Result<ControlMessage, HostCommandError>) -> Void
    ) throws(HostCommandError) {
        let id = try host.core.guestID(named: guest)
        host.operation { done in
            host.core.suspend(id) { result in
                reply(result.map { .said("\(id) is suspended") })
                done()
            }
        }
    }
}
