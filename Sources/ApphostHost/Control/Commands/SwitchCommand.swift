/// `{"command":"switch","guest":ID}`: bring a guest to the foreground (S3, S5), relaunching it
/// if needed.
public struct SwitchCommand: ControlCommand, Equatable {
    public static let name = "switch"
    /// The guest's id, or its name in any case.
    public var guest: String

    public init(guest: String) { self.guest = guest }

    public func validate() throws(ControlProtocolError) { try Self.require(guest, "guest") }

    public func apply(
        to host: HostService, reply: @escaping @Sendable (Result<ControlMessage, HostCommandError>) -> Void
    ) throws(HostCommandError) {
        let id = try host.core.guestID(named: guest)
        host.operation { done in
            host.core.switchTo(id) { result in
                reply(result.map { .said("\(id) is in the foreground") })
                done()
            }
        }
    }
}
