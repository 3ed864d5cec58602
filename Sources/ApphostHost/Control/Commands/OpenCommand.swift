/// `{"command":"open","guest":ID}`: open a new primary window of a running guest (S2).
public struct OpenCommand: ControlCommand, Equatable {
    public static let name = "open"
    /// The guest's id, or its name in any case.
    public var guest: String

    public init(guest: String) { self.guest = guest }

    public func validate() throws(ControlProtocolError) { try Self.require(guest, "guest") }

    public func apply(
        to host: HostService, reply: @escaping @Sendable (Result<ControlMessage, HostCommandError>) -> Void
    ) throws(HostCommandError) {
        let id = try host.core.guestID(named: guest)
        host.operation { done in
            host.core.openScene(id) { result in
                reply(result.map { .said("opened a window of \(id): session \($0)") })
                done()
            }
        }
    }
}
