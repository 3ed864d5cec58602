import ArgumentParser

/// A positional number that may be negative (`ctl audio volume -0.5`): ArgumentParser reads a
/// word that begins with "-" as an option, so such a command takes its words unparsed
/// (`@Argument(parsing: .allUnrecognized)`) and reads the number here. Its range is the verb's
/// to check (the command type's `validate`), so that the CLI and the host answer alike.
enum NumberArgument {
    /// The one number in `words`, or the usage error that says what is wrong with them.
    static func value(of words: [String], name: String) throws -> Double {
        guard let word = words.first else { throw ValidationError("Missing expected argument '<\(name)>'") }
        guard words.count == 1 else {
            let extra = words.dropFirst().first ?? ""
            throw ValidationError(
                extra.hasPrefix("--") ? "Unknown option '\(extra)'" : "Unexpected argument '\(extra)'")
        }
        guard let value = Double(word) else {
            throw ValidationError(
                word.hasPrefix("--") ? "Unknown option '\(word)'" : "<\(name)> must be a number, not \"\(word)\"")
        }
        return value
    }
}
