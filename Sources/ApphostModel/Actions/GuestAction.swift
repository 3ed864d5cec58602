import CApphost

/// One action a guest declares (CONTRACT F1, actions.h): a named, typed entry point an operator
/// calls. Checked when the guest loads, so its name and types are valid.
public struct GuestAction: Sendable, Codable, Equatable, CustomStringConvertible {
    public var name: String
    public var arguments: [ActionType]
    /// Nil for an action that returns nothing.
    public var result: ActionType?
    public var summary: String
    /// Called only while the guest is in the foreground (APPHOST_ACTION_FOREGROUND).
    public var foreground: Bool

    public init(name: String, arguments: [ActionType], result: ActionType?, summary: String, foreground: Bool) {
        self.name = name
        self.arguments = arguments
        self.result = result
        self.summary = summary
        self.foreground = foreground
    }

    /// As the header writes one: `search(s)s`, `add(s)`.
    public var signature: String {
        "\(name)(\(ActionType.signature(arguments)))\(result?.rawValue ?? "")"
    }

    public var description: String { signature }

    /// JSON as operators read it: codes as signatures write them, the description under
    /// "description".
    private enum CodingKeys: String, CodingKey {
        case name, arguments, result
        case summary = "description"
        case foreground
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        arguments = try container.decode([ActionType].self, forKey: .arguments)
        result = try container.decodeIfPresent(ActionType.self, forKey: .result)
        summary = try container.decode(String.self, forKey: .summary)
        foreground = try container.decodeIfPresent(Bool.self, forKey: .foreground) ?? false
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(arguments, forKey: .arguments)
        try container.encodeIfPresent(result, forKey: .result)
        try container.encode(summary, forKey: .summary)
        try container.encode(foreground, forKey: .foreground)
    }

    /// Whether `name` is an action name as actions.h defines it: 1 to 64 bytes of ASCII letters,
    /// digits, '-', '_' and '.', starting with a letter.
    public static func isValidName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard let first = bytes.first, bytes.count <= Int(APPHOST_ACTION_NAME_MAX_BYTES), isLetter(first) else {
            return false
        }
        return bytes.allSatisfy {
            isLetter($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || "-_.".utf8.contains($0)
        }
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }
}
