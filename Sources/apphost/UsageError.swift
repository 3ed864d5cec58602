import ArgumentParser

/// A usage error (a bad option, a missing argument, a value out of range) as the one line that
/// README promises: "<message> (see apphost <command> --help)", for exit status 64. ArgumentParser's
/// own rendering is "Error: ...", then the usage and a "See ..." line: three or four lines.
struct UsageError {
    /// The error's message, on one line, without a final period.
    let message: String
    /// The command whose help explains it: "apphost inspect", "apphost ctl layout split".
    let command: String

    /// Nil for anything ArgumentParser does not report as a usage error (help, --version, an
    /// ExitCode, a failure of the command itself).
    init?(_ error: any Error, arguments: [String]) {
        guard Apphost.exitCode(for: error) == .validationFailure else { return nil }
        let text = Apphost.message(for: error).split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: " \t") }.filter { !$0.isEmpty }.joined(separator: " ")
        guard !text.isEmpty else { return nil }
        var message = text.hasSuffix(".") ? String(text.dropLast()) : text
        // Options take negative numbers as values (`.unconditional`), and so do the positional
        // numbers (NumberArgument); any other positional argument reads "-1" as an option, and
        // then misses the argument.
        if message.hasPrefix("Missing expected argument"), let negative = arguments.first(where: Self.isNegativeNumber)
        {
            message += ": \(negative) reads as an option"
        }
        self.message = message
        command = Self.commandPath(arguments)
    }

    static func isNegativeNumber(_ argument: String) -> Bool {
        argument.hasPrefix("-") && argument.dropFirst().first?.isNumber == true && Double(argument) != nil
    }

    var line: String { "\(message) (see \(command) --help)" }

    /// The subcommands named in `arguments`, in order, as far as they go: the deepest command the
    /// arguments reach. An option's value that happens to be a subcommand's name may take its
    /// place; the help named is then a neighbour's, which is harmless.
    static func commandPath(_ arguments: [String]) -> String {
        var command: any ParsableCommand.Type = Apphost.self
        var names = ["apphost"]
        for argument in arguments {
            if argument == "--" { break }
            guard
                let next = command.configuration.subcommands.first(where: {
                    $0._commandName == argument || $0.configuration.aliases.contains(argument)
                })
            else { continue }
            command = next
            names.append(next._commandName)
        }
        return names.joined(separator: " ")
    }
}

extension StringProtocol {
    fileprivate func trimmingCharacters(in set: String) -> String {
        String(drop { set.contains($0) }.reversed().drop { set.contains($0) }.reversed())
    }
}
