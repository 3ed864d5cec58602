/// Text a guest gave (a log line, a title, a name), made safe for a terminal (CONTRACT X2, X7):
/// every character that a terminal would act on rather than print is written out as an escape,
/// so that one event is one line and a guest can neither move the cursor back over what the host
/// printed, nor set the window title, nor print a line that passes for the host's. The JSON forms
/// carry the exact text; only plain output is escaped.
///
/// - CR, LF and ESC as `\r`, `\n`, `\e`;
/// - the rest of C0 (but the tab, which moves to the next column and nothing else) and DEL as
///   `\xNN`;
/// - C1 (U+0080 to U+009F: U+009B is a CSI to some terminals), the Unicode line and paragraph
///   separators, and the direction marks and overrides that reorder what is shown (U+200E,
///   U+200F, U+202A to U+202E, U+2066 to U+2069) as `\u{N}`.
///
/// A backslash stays as it is: the escapes are for people reading, the JSON is for machines.
public enum TerminalText {
    /// `text` with every control character escaped; the text itself when it has none (no copy).
    public static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var result = ""
        result.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            guard needsEscape(scalar) else {
                result.unicodeScalars.append(scalar)
                continue
            }
            switch scalar.value {
            case 0x0D: result += "\\r"
            case 0x0A: result += "\\n"
            case 0x1B: result += "\\e"
            case 0x00..<0x20, 0x7F: result += "\\x" + hex(scalar.value, digits: 2)
            default: result += "\\u{" + hex(scalar.value, digits: 1) + "}"
            }
        }
        return result
    }

    static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x09: false
        case 0x00..<0x20, 0x7F..<0xA0: true
        case 0x200E, 0x200F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    private static func hex(_ value: UInt32, digits: Int) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}
