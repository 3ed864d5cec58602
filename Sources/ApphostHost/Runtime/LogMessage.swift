import CApphost
import Foundation

/// Reads a guest's log message: at most `APPHOST_LOG_MESSAGE_MAX_BYTES` bytes, cut at a
/// character boundary, with invalid UTF-8 repaired rather than refused.
enum LogMessage {
    static let maxBytes = Int(APPHOST_LOG_MESSAGE_MAX_BYTES)

    static func decode(_ message: UnsafePointer<CChar>) -> String {
        // strnlen: a longer message is never read past the limit.
        var length = strnlen(message, maxBytes + 1)
        let bytes = UnsafeRawPointer(message).assumingMemoryBound(to: UInt8.self)
        if length > maxBytes {
            length = maxBytes
            // Back up over UTF-8 continuation bytes so that a character is not cut in half.
            var start = length
            while start > 0, bytes[start - 1] & 0xC0 == 0x80 { start -= 1 }
            if start > 0, bytes[start - 1] >= 0xC0, start - 1 + sequenceLength(bytes[start - 1]) > length {
                length = start - 1
            }
        }
        return String(decoding: UnsafeBufferPointer(start: bytes, count: length), as: UTF8.self)
    }

    private static func sequenceLength(_ lead: UInt8) -> Int {
        switch lead {
        case 0xF0...: 4
        case 0xE0...: 3
        default: 2
        }
    }
}
