import ArgumentParser

/// The policy flags take durations in seconds (5, 0.25). `Duration` traps on a value it cannot
/// hold (1e300, inf), so every such flag is also held to a bound far past any policy's needs.
enum Seconds {
    /// About 31 years.
    static let maximum: Double = 1_000_000_000

    /// Fails unless `value` is a number of seconds `Duration` holds.
    static func checkBounded(_ value: Double, _ option: String) throws {
        guard value.isFinite, value <= maximum else {
            throw ValidationError("\(option) must be at most \(Int(maximum)) seconds.")
        }
    }
}
