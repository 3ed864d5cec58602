/// One entry of systemd's journal as its native protocol carries it
/// (https://systemd.io/JOURNAL_NATIVE_PROTOCOL/): fields in order, each `NAME=value\n`, or, for a
/// value that holds a newline (or a NUL), the binary-safe form `NAME\n`, the value's length as a
/// little-endian 64-bit number, the value and `\n`. journald stamps the entry with its own time
/// and the sender's credentials (`_PID`, `_UID`, ...), so an entry carries no time of its own.
public struct JournalEntry: Sendable, Equatable {
    public private(set) var fields: [(name: String, value: String)] = []

    public init() {}

    /// An entry with `MESSAGE`, `PRIORITY` (syslog's 0 to 7) and `SYSLOG_IDENTIFIER`, the fields
    /// every entry of the host's has.
    public init(message: String, priority: Int, identifier: String = "apphost") {
        append("MESSAGE", message)
        append("PRIORITY", String(priority))
        append("SYSLOG_IDENTIFIER", identifier)
    }

    /// Adds a field; nothing when `value` is nil. `name` is made a name journald accepts
    /// (`fieldName`).
    public mutating func append(_ name: String, _ value: String?) {
        guard let value else { return }
        fields.append((Self.fieldName(name), value))
    }

    /// The value of the first field named `name`.
    public subscript(name: String) -> String? {
        fields.first { $0.name == name }?.value
    }

    /// A name journald keeps: uppercase letters, digits and underscores, not starting with an
    /// underscore (those are journald's own, trusted fields) or a digit, at most 64 bytes. Other
    /// characters become underscores (`request-id` is `REQUEST_ID`), and a name that would start
    /// badly gets `F` in front.
    public static func fieldName(_ name: String) -> String {
        var bytes: [UInt8] = name.utf8.map { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"): byte - 32
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): byte
            default: UInt8(ascii: "_")
            }
        }
        if bytes.first.map({ $0 == UInt8(ascii: "_") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
            ?? true
        {
            bytes.insert(UInt8(ascii: "F"), at: 0)
        }
        return String(decoding: bytes.prefix(64), as: UTF8.self)
    }

    /// The entry as one datagram of the native protocol.
    public var datagram: [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(fields.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 10 })
        for (name, value) in fields {
            bytes += name.utf8
            let valueBytes = Array(value.utf8)
            if valueBytes.contains(where: { $0 == UInt8(ascii: "\n") || $0 == 0 }) {
                bytes.append(UInt8(ascii: "\n"))
                var length = UInt64(valueBytes.count).littleEndian
                withUnsafeBytes(of: &length) { bytes += $0 }
                bytes += valueBytes
            } else {
                bytes.append(UInt8(ascii: "="))
                bytes += valueBytes
            }
            bytes.append(UInt8(ascii: "\n"))
        }
        return bytes
    }

    public static func == (lhs: JournalEntry, rhs: JournalEntry) -> Bool {
        lhs.fields.elementsEqual(rhs.fields) { $0.name == $1.name && $0.value == $1.value }
    }
}
