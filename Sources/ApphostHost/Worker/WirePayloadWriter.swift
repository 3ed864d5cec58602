/// Appends apphost_wire.h's field types to a payload: little-endian integers, u32-length-prefixed
/// strings and bytes, and u8-flagged optionals.
struct WirePayloadWriter: Sendable {
    private(set) var bytes: [UInt8] = []

    init() {}

    mutating func u8(_ value: UInt8) { bytes.append(value) }

    mutating func bool(_ value: Bool) { bytes.append(value ? 1 : 0) }

    mutating func u32(_ value: UInt32) { littleEndian(value) }

    mutating func i32(_ value: Int32) { littleEndian(UInt32(bitPattern: value)) }

    mutating func u64(_ value: UInt64) { littleEndian(value) }

    /// "bytes": u32 length, then the bytes.
    mutating func data(_ value: some Collection<UInt8>) {
        u32(UInt32(value.count))
        bytes.append(contentsOf: value)
    }

    /// "str": its UTF-8 as bytes, not NUL-terminated.
    mutating func string(_ value: String) { data(Array(value.utf8)) }

    /// "opt bytes": u8 present, then the bytes when present.
    mutating func optionalData(_ value: (some Collection<UInt8>)?) {
        bool(value != nil)
        if let value { data(value) }
    }

    /// "opt str".
    mutating func optionalString(_ value: String?) { optionalData(value.map { Array($0.utf8) }) }

    private mutating func littleEndian<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }
}
