import ApphostVocabulary
import Foundation

/// One verb of the control protocol, as data: a Codable type whose JSON object, with a
/// `"command"` member naming the verb, is one request line, such as
/// `{"command":"switch","guest":"org.example.notes"}`.
///
/// Every transport decodes a request into one of these with ``ControlCommands/decode(line:)``,
/// which also validates it, and hands it to the host, which applies it; so a transport holds no
/// list of verbs and no switch over them. The CLI builds commands and sends their ``line``.
/// Adding a verb is one type here and one entry in ``ControlCommands/all``.
public protocol ControlCommand: Codable, Sendable {
    /// What a successful reply carries: ``ControlMessage`` for a verb that changes something.
    associatedtype Response: Codable & Sendable

    /// The verb's wire name, such as "switch".
    static var name: String { get }

    /// Whether the host still answers it while it shuts down: only a ``QueryCommand`` is.
    static var answeredDuringShutdown: Bool { get }

    /// Checks what decoding alone cannot, such as a name that is present but empty. The error
    /// is the one line the client gets.
    func validate() throws(ControlProtocolError)

    /// Where the answer goes: called once, on the host queue.
    typealias Reply = @Sendable (Result<Response, HostCommandError>) -> Void

    /// Applies the command to `host`, on the host queue. `reply` runs once, on the host queue;
    /// a command refused at once throws instead.
    func apply(to host: any ControlTarget, reply: @escaping Reply) throws(HostCommandError)
}

/// A verb that reads the host and changes nothing (`ps`, `metrics`, `host`): the host still
/// answers it while it shuts down, when what it is and how it fares matter most.
public protocol QueryCommand: ControlCommand {}

extension QueryCommand {
    public static var answeredDuringShutdown: Bool { true }
}

/// Where the answer of a verb that answers in words goes: called once, on the host queue.
public typealias SaidReply = @Sendable (Result<String, HostCommandError>) -> Void

/// A verb the host carries out at once, on the host queue, answering in words: the silence
/// switch, the volume, an alert, home. `perform` returns what to say, or throws the host's
/// refusal; the reply is the same for all.
public protocol ImmediateCommand: ControlCommand where Response == ControlMessage {
    func perform(on host: any ControlTarget) throws(HostCommandError) -> String
}

extension ImmediateCommand {
    public func apply(to host: any ControlTarget, reply: @escaping Reply) throws(HostCommandError) {
        reply(.success(.said(try perform(on: host))))
    }
}

extension ControlCommand {
    public static var answeredDuringShutdown: Bool { false }
    public func validate() throws(ControlProtocolError) {}

    /// The request as one line of JSON, without the newline.
    public var line: String { ControlCoding.line(NamedCommand(command: self)) }

    /// The one-line error for a member the request lacks or leaves empty.
    static func needs(_ member: String) -> ControlProtocolError {
        let what =
            switch member {
            case "guest": " (an id or a name)"
            case "scene": " (a session id, a prefix of one, or a handle)"
            default: ""
            }
        return ControlProtocolError("\(name) needs a \"\(member)\"\(what)")
    }

    /// Throws ``needs(_:)`` for an empty `value`.
    static func require(_ value: String, _ member: String) throws(ControlProtocolError) {
        if value.isEmpty { throw needs(member) }
    }

    /// Applies the command and answers with one reply line: the command's response, or the
    /// one-line error.
    public func respond(on host: any ControlTarget, reply: @escaping @Sendable (String) -> Void) {
        let answer: Reply = { result in
            switch result {
            case .success(let response): reply(ControlReply.success(response).line)
            case .failure(let error): reply(ControlReply.failure(error).line)
            }
        }
        do {
            try apply(to: host, reply: answer)
        } catch {
            answer(.failure(error))
        }
    }
}

extension ControlTarget {
    /// An operation shutdown waits for, answered in words: `start` begins it on the core and
    /// calls its completion once with what to say; the reply follows, then shutdown may go on.
    func operation(
        replying reply: @escaping @Sendable (Result<ControlMessage, HostCommandError>) -> Void,
        _ start: (_ completion: @escaping SaidReply) -> Void
    ) {
        operation { done in
            start { result in
                reply(result.map(ControlMessage.said))
                done()
            }
        }
    }
}

extension ControlMessage {
    /// A reply that says what the host did.
    static func said(_ text: String) -> ControlMessage { ControlMessage(message: text) }
}

/// A command with its `"command"` member, as it goes on the wire.
private struct NamedCommand<Command: ControlCommand>: Encodable {
    let command: Command

    private enum Key: String, CodingKey { case command }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(Command.name, forKey: .command)
        try command.encode(to: encoder)
    }
}
