/// A type code of actions.h's signatures: what one argument or result of an action is, in C and
/// in JSON. Its raw value is the code as a signature writes it ("ay" for bytes).
public enum ActionType: String, Sendable, Codable, CaseIterable {
    case bool = "b"
    case uint8 = "y"
    case int16 = "n"
    case uint16 = "q"
    case int32 = "i"
    case uint32 = "u"
    case int64 = "x"
    case uint64 = "t"
    case double = "d"
    case string = "s"
    case bytes = "ay"

    /// The range of an integer type, as the header's table gives it; nil for the others.
    public var integerRange: ClosedRange<Int128>? {
        switch self {
        case .uint8: 0...Int128(UInt8.max)
        case .int16: Int128(Int16.min)...Int128(Int16.max)
        case .uint16: 0...Int128(UInt16.max)
        case .int32: Int128(Int32.min)...Int128(Int32.max)
        case .uint32: 0...Int128(UInt32.max)
        case .int64: Int128(Int64.min)...Int128(Int64.max)
        case .uint64: 0...Int128(UInt64.max)
        case .bool, .double, .string, .bytes: nil
        }
    }

    /// What an operator gives for it, for errors: "an integer from 0 to 255".
    public var expected: String {
        if let range = integerRange { return "an integer from \(range.lowerBound) to \(range.upperBound)" }
        switch self {
        case .bool: return "true or false"
        case .double: return "a finite number"
        case .string: return "a string"
        default: return "base64 text"
        }
    }

    /// A signature's text: the codes one after another, "" for none.
    public static func signature(_ types: [ActionType]) -> String { types.map(\.rawValue).joined() }
}
