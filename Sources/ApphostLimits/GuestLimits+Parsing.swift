/// The operator's spelling of limits: "256M", "1G", "512K" or plain bytes for memory, whole
/// numbers for counts. Every error is one line that names the option and the value.
extension GuestLimits {
    /// Bytes from "256M", "1G", "512K", "2T" (powers of 1024; "MB" or "m" are read alike) or a
    /// plain number of bytes. Only 0 is refused: a limit below the ~3 MB an idle worker uses
    /// kills it at once, and its death then names the limit, which says enough.
    public static func parseMemory(_ text: String, option: String = "--memory-limit") throws(LimitError) -> UInt64 {
        let trimmed = text.trimmingWhitespace
        if trimmed.hasPrefix("-"), trimmed.dropFirst().first?.isNumber == true {
            throw LimitError("\(option): \(text) is too small; it must be more than 0")
        }
        var digits = Substring(trimmed)
        var unit = digits.drop { $0.isASCII && $0.isNumber }
        digits = digits.prefix(digits.count - unit.count)
        if unit.count == 2, unit.last == "B" || unit.last == "b" { unit = unit.dropLast() }
        let shifts: [String: UInt64] = ["": 0, "K": 10, "M": 20, "G": 30, "T": 40]
        guard !digits.isEmpty, let value = UInt64(digits), let shift = shifts[unit.uppercased()] else {
            throw LimitError(
                "\(option): \"\(text)\" is not a size; use bytes or a number with K, M or G (512K, 256M, 1G)")
        }
        let (bytes, overflow) = value.multipliedReportingOverflow(by: 1 << shift)
        guard !overflow else { throw LimitError("\(option): \(text) is too large") }
        guard bytes > 0 else { throw LimitError("\(option): \(text) is too small; it must be more than 0") }
        return bytes
    }

    /// A whole number of at least 1, for --files-limit and --processes-limit.
    public static func parseCount(_ text: String, option: String, maximum: Int, why: String) throws(LimitError) -> Int {
        let trimmed = text.trimmingWhitespace
        guard let value = Int(trimmed), !trimmed.hasPrefix("+") else {
            throw LimitError("\(option): \"\(text)\" is not a whole number")
        }
        guard value >= 1 else { throw LimitError("\(option): \(text) is too small; it must be at least 1") }
        guard value <= maximum else {
            throw LimitError("\(option): \(text) is too large; it must be at most \(maximum) (\(why))")
        }
        return value
    }

    /// The most open files a process may be allowed: the kernel's fs.nr_open (1048576 unless
    /// raised), past which setrlimit(RLIMIT_NOFILE) fails.
    public static var maximumOpenFiles: Int {
        let text = (try? String(contentsOfFile: "/proc/sys/fs/nr_open", encoding: .utf8)) ?? ""
        return Int(text.trimmingWhitespace) ?? 1 << 20
    }

    /// The most processes a guest may be allowed: the kernel's kernel.pid_max, past which no limit
    /// could bind.
    public static var maximumProcesses: Int {
        let text = (try? String(contentsOfFile: "/proc/sys/kernel/pid_max", encoding: .utf8)) ?? ""
        return Int(text.trimmingWhitespace) ?? 1 << 22
    }

    /// "64 MB", "1 GB", "512 KB" when the value is a whole number of them, else "N bytes", as the
    /// reasons a worker died show it.
    public static func describe(bytes: UInt64) -> String {
        for (shift, unit) in [(UInt64(40), "TB"), (30, "GB"), (20, "MB"), (10, "KB")]
        where bytes >= 1 << shift && bytes % (1 << shift) == 0 {
            return "\(bytes >> shift) \(unit)"
        }
        return "\(bytes) bytes"
    }
}

extension String {
    /// Without leading and trailing spaces and tabs (Foundation's trimming, without Foundation).
    fileprivate var trimmingWhitespace: String {
        String(drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
    }
}
