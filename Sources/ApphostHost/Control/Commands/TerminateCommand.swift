/// `{"command":"terminate","guest":ID}`: terminate a guest gracefully (A3).
public struct TerminateCommand: ControlCommand, Equatable {
    public static let name = "terminate"
    /// The guest's id, or its name in any case.
    public var guest: String

    public init(guest: String) { self.guest = guest }

    public func validate() throws(ControlProtocolError) { try Self.require(guest, "guest") }

    public func apply(
        to host: HostService, reply: @escaping @Sendable (Result<ControlMessage, HostCommandError>) -> Void
    ) throws(HostCommandError) {
        let id = try host.core.guestID(named: guest)
        host.operation { done in
            host.core.terminate(id) { result in
                reply(result.map { trouble in .said("\(id) terminated" + (trouble.map { "; \($0)" } ?? "")) })
                done()
            }
        }
    }
}
