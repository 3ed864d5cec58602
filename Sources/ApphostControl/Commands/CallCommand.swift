import ApphostModel
import ApphostVocabulary

/// `{"command":"call","guest":G,"action":A,"arguments":[...]}`: calls a guest's typed action (F2)
/// and answers with its result. The arguments are JSON values of the declared types, checked
/// strictly; `"words":[...]` gives them as command-line words instead, each read as its type says
/// (what `apphost ctl call` sends for its positional arguments). Neither: no arguments.
public struct CallCommand: ControlCommand, Equatable {
    public static let name = "call"
    public typealias Response = ActionCallResult
    /// The guest: its id, or its descriptor name.
    public var guest: String
    /// The action's name, as the guest declares it.
    public var action: String
    public var arguments: [JSONValue]?
    public var words: [String]?

    public init(guest: String, action: String, arguments: [JSONValue]? = nil, words: [String]? = nil) {
        self.guest = guest
        self.action = action
        self.arguments = arguments
        self.words = words
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        // Missing reads as empty, which validate() refuses, the guest first.
        guest = try container.decodeIfPresent(String.self, forKey: .guest) ?? ""
        action = try container.decodeIfPresent(String.self, forKey: .action) ?? ""
        arguments = try container.decodeIfPresent([JSONValue].self, forKey: .arguments)
        words = try container.decodeIfPresent([String].self, forKey: .words)
    }

    private enum CodingKeys: String, CodingKey { case guest, action, arguments, words }

    public func validate() throws(ControlProtocolError) {
        try Self.require(guest, "guest")
        try Self.require(action, "action")
        if arguments != nil, words != nil {
            throw ControlProtocolError("call takes \"arguments\" (JSON values) or \"words\", not both")
        }
    }

    public func apply(to host: any ControlTarget, reply: @escaping Reply) {
        let given: ActionArguments = words.map { .words($0) } ?? .json(arguments ?? [])
        host.callAction(guest: guest, action: action, arguments: given) { [guest, action] result in
            reply(result.map { ActionCallResult(guest: guest, action: action, result: $0) })
        }
    }
}

/// The answer to `call`: the action's result as JSON (numbers exact, bytes as base64 text), absent
/// for an action that returns nothing, and its type code.
public struct ActionCallResult: Codable, Sendable, Equatable {
    public var guest: String
    public var action: String
    public var type: ActionType?
    public var result: JSONValue?

    public init(guest: String, action: String, result: ActionValue?) {
        self.guest = guest
        self.action = action
        type = result?.type
        self.result = result?.json
    }

    /// The result as a terminal shows it: a string as it is, nothing for none.
    public var text: String? {
        switch result {
        case .none: nil
        case .string(let text): text
        case .some(let other): other.description
        }
    }
}
