/// Reads apphost_wire.h's field types from a payload, refusing anything that runs past its end.
struct WirePayloadReader {
    private let bytes: ArraySlice<UInt8>
    private var position: Int

    init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        position = bytes.startIndex
    }

    init(_ bytes: [UInt8]) { self.init(bytes[...]) }

    mutating func u8() throws(WireProtocolError) -> UInt8 { try take(1).first! }

    /// A bool must be 0 or 1: anything else means the fields are misaligned.
    mutating func bool() throws(WireProtocolError) -> Bool {
        switch try u8() {
        case 0: return false
        case 1: return true
        case let other: throw WireProtocolError("a bool field holds \(other)")
        }
    }

    mutating func u32() throws(WireProtocolError) -> UInt32 { try littleEndian() }

    mutating func i32() throws(WireProtocolError) -> Int32 { Int32(bitPattern: try littleEndian()) }

    mutating func u64() throws(WireProtocolError) -> UInt64 { try littleEndian() }

    mutating func data() throws(WireProtocolError) -> [UInt8] {
        let count = Int(try u32())
        return Array(try take(count))
    }

    /// A "str" whose bytes are not valid UTF-8 is repaired, as a guest's log message is.
    mutating func string() throws(WireProtocolError) -> String {
        String(decoding: try data(), as: UTF8.self)
    }

    mutating func optionalData() throws(WireProtocolError) -> [UInt8]? {
        try bool() ? try data() : nil
    }

    /// Every field has been read: trailing bytes mean the peer laid the payload out differently.
    func finish() throws(WireProtocolError) {
        guard position == bytes.endIndex else {
            throw WireProtocolError("\(bytes.endIndex - position) unexpected bytes after the last field")
        }
    }

    private mutating func take(_ count: Int) throws(WireProtocolError) -> ArraySlice<UInt8> {
        guard count <= bytes.endIndex - position else {
            throw WireProtocolError("a field runs past the end of its frame")
        }
        defer { position += count }
        return bytes[position..<position + count]
    }

    private mutating func littleEndian<T: FixedWidthInteger>() throws(WireProtocolError) -> T {
        let slice = try take(MemoryLayout<T>.size)
        return slice.reversed().reduce(T(0)) { $0 << 8 | T($1) }
    }
}
