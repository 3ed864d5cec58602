/// `{"command":"resume","guest":ID}`: let a suspended guest run again, in background.
public struct ResumeCommand: ControlCommand, Equatable {
    public static let name = "resume"
    /// The guest's id, or its name in any case.
    public var guest: String

    public init(guest: String) { self.guest = guest }

    public func validate() throws(ControlProtocolError) { try Self.require(guest, "guest") }

    public func apply(
        to host: HostService, reply: @escaping @Sendable (Result<ControlMessage, HostCommandError>) -> Void
    ) throws(HostCommandError) {
        let id = try host.core.guestID(named: guest)
        host.operation { done in
            host.core.resume(id) { result in
                reply(result.map { .said("\(id) is running in background") })
                done()
            }
        }
    }
}
