import ApphostVocabulary

/// A verb on one guest, which the operator names by its id or its display name: switch, open,
/// terminate, suspend, resume. Each says what it starts on the host; validation, name
/// resolution, the wait at shutdown and the reply are the same for all.
public protocol GuestCommand: ControlCommand where Response == ControlMessage {
    /// The guest's id, or its name in any case.
    var guest: String { get }
    init(guest: String)

    /// Starts the verb on the guest `id`, on the host queue; `completion` gets what to answer.
    func start(on host: any ControlTarget, id: String, completion: @escaping SaidReply)
}

extension GuestCommand {
    public func validate() throws(ControlProtocolError) { try Self.require(guest, "guest") }

    public func apply(to host: any ControlTarget, reply: @escaping Reply) throws(HostCommandError) {
        let id = try host.guestID(named: guest)
        host.operation(replying: reply) { start(on: host, id: id, completion: $0) }
    }
}
