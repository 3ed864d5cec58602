import ArgumentParser

/// The duration options take seconds (5, 0.25). `Duration` traps on a value it cannot hold
/// (1e300, inf), and so does a conversion to whole milliseconds past Int64 (1e16), so every such
/// option is also held to a bound far past any policy's needs; not a number fails the range checks.
enum Seconds {
    /// About 31 years.
    static let maximum: Double = 1_000_000_000

    /// Fails unless `value` is more than 0 and at most `maximum`.
    static func checkPositive(_ value: Double, _ option: String) throws {
        guard value > 0 else {
            throw ValidationError("\(option) must be a positive number of seconds, not \(text(value))")
        }
        try checkBounded(value, option)
    }

    /// Fails unless `value` is from 0 to `maximum`.
    static func checkNotNegative(_ value: Double, _ option: String) throws {
        guard value >= 0 else { throw ValidationError("\(option) must be 0 seconds or more, not \(text(value))") }
        try checkBounded(value, option)
    }

    /// Fails unless `value` is a number of seconds `Duration` holds.
    static func checkBounded(_ value: Double, _ option: String) throws {
        guard value.isFinite, value <= maximum else {
            throw ValidationError("\(option) must be at most \(Int(maximum)) seconds, not \(text(value))")
        }
    }

    /// A value as the operator likely typed it: -1 rather than -1.0.
    static func text(_ value: Double) -> String {
        value.isFinite && value == value.rounded() && value.magnitude < 1e15 ? String(Int64(value)) : "\(value)"
    }
}
