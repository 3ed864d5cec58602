import ApphostGuestRuntime
import ApphostModel
import Foundation

/// Action values (`ActionValue`) as the C runtime's `ahr_value`, both ways: the host's calls and
/// the runtime's results (ACTION, ACTION_RESULT), in process and, through the wire's codec, in a
/// worker alike.
enum ActionABI {
    /// Calls `body` with `values` as `ahr_value`s, whose strings and bytes live only during it.
    static func withValues<Result>(
        _ values: [ActionValue], _ body: (UnsafeBufferPointer<ahr_value>) -> Result
    ) -> Result {
        // Every string and byte array in one buffer, each value pointing at its own span.
        var payload: [UInt8] = []
        var spans: [Range<Int>] = []
        for value in values {
            let start = payload.count
            switch value {
            case .string(let text): payload += text.utf8
            case .bytes(let data): payload += data
            default: break
            }
            spans.append(start..<payload.count)
        }
        return payload.withUnsafeBytes { buffer in
            let converted = zip(values, spans).map { value, span in
                self.value(value, bytes: span.isEmpty ? nil : buffer.baseAddress.map { $0 + span.lowerBound })
            }
            return converted.withUnsafeBufferPointer(body)
        }
    }

    private static func value(_ value: ActionValue, bytes: UnsafeRawPointer?) -> ahr_value {
        var converted = ahr_value()
        converted.type = ahr_value_type(
            UInt32(value.type == .bytes ? UInt8(ascii: "a") : value.type.rawValue.utf8.first!))
        switch value {
        case .bool(let flag): converted.boolean = flag
        case .uint8(let number): converted.unsigned_integer = UInt64(number)
        case .int16(let number): converted.integer = Int64(number)
        case .uint16(let number): converted.unsigned_integer = UInt64(number)
        case .int32(let number): converted.integer = Int64(number)
        case .uint32(let number): converted.unsigned_integer = UInt64(number)
        case .int64(let number): converted.integer = number
        case .uint64(let number): converted.unsigned_integer = number
        case .double(let number): converted.real = number
        case .string(let text):
            converted.bytes = bytes
            converted.length = text.utf8.count
        case .bytes(let data):
            converted.bytes = bytes
            converted.length = data.count
        }
        return converted
    }

    /// A result as the runtime reported it: nil for none (a void action's), or for a value the
    /// runtime never reports (it checks them); `valid` says which.
    static func value(of raw: ahr_value) -> (value: ActionValue?, valid: Bool) {
        guard ahr_value_is_valid([raw]) else { return (nil, false) }
        let bytes = raw.bytes.map { Data(bytes: $0, count: raw.length) } ?? Data()
        switch raw.type {
        case AHR_VALUE_NONE: return (nil, true)
        case AHR_VALUE_BOOL: return (.bool(raw.boolean), true)
        case AHR_VALUE_UINT8: return (.uint8(UInt8(raw.unsigned_integer)), true)
        case AHR_VALUE_INT16: return (.int16(Int16(raw.integer)), true)
        case AHR_VALUE_UINT16: return (.uint16(UInt16(raw.unsigned_integer)), true)
        case AHR_VALUE_INT32: return (.int32(Int32(raw.integer)), true)
        case AHR_VALUE_UINT32: return (.uint32(UInt32(raw.unsigned_integer)), true)
        case AHR_VALUE_INT64: return (.int64(raw.integer), true)
        case AHR_VALUE_UINT64: return (.uint64(raw.unsigned_integer), true)
        case AHR_VALUE_DOUBLE: return (.double(raw.real), true)
        case AHR_VALUE_STRING: return (.string(String(decoding: bytes, as: UTF8.self)), true)
        case AHR_VALUE_BYTES: return (.bytes(bytes), true)
        default: return (nil, false)
        }
    }
}
