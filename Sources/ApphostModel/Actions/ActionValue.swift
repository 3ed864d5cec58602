import CApphost
import Foundation

/// One argument or result of an action, of one of actions.h's types, within its range.
public enum ActionValue: Sendable, Equatable {
    case bool(Bool)
    case uint8(UInt8)
    case int16(Int16)
    case uint16(UInt16)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    case string(String)
    case bytes(Data)

    public var type: ActionType {
        switch self {
        case .bool: .bool
        case .uint8: .uint8
        case .int16: .int16
        case .uint16: .uint16
        case .int32: .int32
        case .uint32: .uint32
        case .int64: .int64
        case .uint64: .uint64
        case .double: .double
        case .string: .string
        case .bytes: .bytes
        }
    }

    /// As JSON: numbers exact, bytes as base64 text.
    public var json: JSONValue {
        switch self {
        case .bool(let value): .bool(value)
        case .uint8(let value): .integer(Int64(value))
        case .int16(let value): .integer(Int64(value))
        case .uint16(let value): .integer(Int64(value))
        case .int32(let value): .integer(Int64(value))
        case .uint32(let value): .integer(Int64(value))
        case .int64(let value): .integer(value)
        case .uint64(let value): value <= UInt64(Int64.max) ? .integer(Int64(value)) : .unsigned(value)
        case .double(let value): .double(value)
        case .string(let value): .string(value)
        case .bytes(let value): .string(value.base64EncodedString())
        }
    }

    /// As a person reads it on a terminal: a string as it is, bytes as base64.
    public var text: String {
        switch self {
        case .string(let value): value
        default:
            switch json {
            case .string(let text): text
            case let other: other.description
            }
        }
    }

    /// Why an operator's value is not one of `type` (CONTRACT F2); the caller names the argument.
    public struct Refusal: Error, Sendable, Equatable {
        public let reason: String
    }

    /// `json` as a value of `type`, strictly: JSON's own type must match (a number for an
    /// integer, a string for s and for ay's base64), within the range.
    public init(json: JSONValue, as type: ActionType) throws(Refusal) {
        switch (type, json) {
        case (.bool, .bool(let value)): self = .bool(value)
        case (.double, .integer(let value)): self = .double(Double(value))
        case (.double, .unsigned(let value)): self = .double(Double(value))
        case (.double, .double(let value)):
            guard value.isFinite else { throw Refusal(reason: "\(value) is not finite") }
            self = .double(value)
        case (.string, .string(let value)): self = try Self.checkedString(value)
        case (.bytes, .string(let value)): self = try Self.bytes(base64: value)
        case (_, .integer(let value)) where type.integerRange != nil: self = try Self.integer(Int128(value), as: type)
        case (_, .unsigned(let value)) where type.integerRange != nil:
            self = try Self.integer(Int128(value), as: type)
        case (_, .double(let value)) where type.integerRange != nil:
            guard value.isFinite, value.rounded() == value, let exact = Int128(exactly: value) else {
                throw Refusal(reason: "\(value) is not an integer")
            }
            self = try Self.integer(exact, as: type)
        default:
            throw Refusal(reason: "\(json) is not \(type.expected)")
        }
    }

    /// A command-line word as a value of `type`: "true"/"false", a decimal integer, a number, the
    /// text itself for s, base64 for ay.
    public init(word: String, as type: ActionType) throws(Refusal) {
        switch type {
        case .bool:
            switch word {
            case "true": self = .bool(true)
            case "false": self = .bool(false)
            default: throw Refusal(reason: "\"\(word)\" is not true or false")
            }
        case .double:
            guard let value = Double(word), value.isFinite else {
                throw Refusal(reason: "\"\(word)\" is not a finite number")
            }
            self = .double(value)
        case .string: self = try Self.checkedString(word)
        case .bytes: self = try Self.bytes(base64: word)
        default:
            guard let value = Int128(word) else { throw Refusal(reason: "\"\(word)\" is not an integer") }
            self = try Self.integer(value, as: type)
        }
    }

    private static func integer(_ value: Int128, as type: ActionType) throws(Refusal) -> ActionValue {
        guard let range = type.integerRange, range.contains(value) else {
            throw Refusal(reason: "\(value) is out of range for \(type.rawValue) (\(type.expected))")
        }
        switch type {
        case .uint8: return .uint8(UInt8(value))
        case .int16: return .int16(Int16(value))
        case .uint16: return .uint16(UInt16(value))
        case .int32: return .int32(Int32(value))
        case .uint32: return .uint32(UInt32(value))
        case .int64: return .int64(Int64(value))
        default: return .uint64(UInt64(value))
        }
    }

    private static func checkedString(_ value: String) throws(Refusal) -> ActionValue {
        guard !value.utf8.contains(0) else { throw Refusal(reason: "the string holds a NUL") }
        guard value.utf8.count <= Int(APPHOST_ACTION_VALUE_MAX_BYTES) else {
            throw Refusal(reason: "the string is \(value.utf8.count) bytes, over \(APPHOST_ACTION_VALUE_MAX_BYTES)")
        }
        return .string(value)
    }

    private static func bytes(base64 text: String) throws(Refusal) -> ActionValue {
        guard let data = Data(base64Encoded: text) else { throw Refusal(reason: "\"\(text)\" is not base64") }
        guard data.count <= Int(APPHOST_ACTION_VALUE_MAX_BYTES) else {
            throw Refusal(reason: "the bytes are \(data.count), over \(APPHOST_ACTION_VALUE_MAX_BYTES)")
        }
        return .bytes(data)
    }
}

extension ActionValue: Codable {
    private enum CodingKeys: String, CodingKey { case type, value }

    /// `{"type":"i","value":3}`: the type, then the value as `json` writes it.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let type = try container.decode(ActionType.self, forKey: .type)
        let json = try container.decode(JSONValue.self, forKey: .value)
        do {
            self = try ActionValue(json: json, as: type)
        } catch {
            throw DecodingError.dataCorruptedError(forKey: .value, in: container, debugDescription: error.reason)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(type, forKey: .type)
        try container.encode(json, forKey: .value)
    }
}
