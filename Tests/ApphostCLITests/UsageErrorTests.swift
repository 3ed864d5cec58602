import XCTest

/// docs/operating.md: bad input gets a clear one-line error on stderr; a usage error exits 64. Every option
/// and argument of every command, whatever ArgumentParser or the command's own checks find wrong.
final class UsageErrorTests: HostTestCase {
    /// A usage error as docs/operating.md promises it: exit 64, and on stderr the one line
    /// "apphost: <message> (see <command> --help)", nothing on stdout.
    @discardableResult
    private func assertUsageError(
        _ arguments: [String], containing expected: String, help command: String = "", file: StaticString = #filePath,
        line: UInt = #line
    ) throws -> CommandResult {
        let result = try runApphost(arguments, file: file, line: line)
        let what = arguments.joined(separator: " ")
        XCTAssertEqual(result.status, 64, "\(what): \(result.stderr)", file: file, line: line)
        assertOneLineError(result, containing: expected, file: file, line: line)
        XCTAssertEqual(result.stdout, [], "\(what)", file: file, line: line)
        if !command.isEmpty, let error = result.stderr.first {
            XCTAssertTrue(
                error.hasSuffix("(see \(command) --help)"), "\(what): \"\(error)\" does not point to \(command) --help",
                file: file, line: line)
        }
        return result
    }

    /// A guest path that no check reaches before validation: were an option let through, the
    /// command would fail on the missing file rather than start a host.
    private var missingGuest: String { scratch.path + "/missing.so" }

    // docs/operating.md: usage errors are one line, not ArgumentParser's three or four (the message, a
    // "Help:" line, the usage, "See ..."), and say where the help is.
    func testUsageErrorsAreOneLineAndNameTheCommandsHelp() throws {
        let guest = missingGuest
        try assertUsageError(["inspect"], containing: "Missing expected argument", help: "apphost inspect")
        try assertUsageError(
            ["inspect", "--bogus", guest], containing: "Unknown option '--bogus'", help: "apphost inspect")
        try assertUsageError(["inspect", "--isolation", "jail", guest], containing: "'jail'", help: "apphost inspect")
        try assertUsageError(["launch"], containing: "Missing expected argument", help: "apphost launch")
        try assertUsageError(
            ["launch", "--restart", "sometimes", guest], containing: "'sometimes'", help: "apphost launch")
        try assertUsageError(["ctl", "switch"], containing: "Missing expected argument", help: "apphost ctl switch")
        // A value the verb's own rules refuse: the host's line (and HTTP's), before any host is asked.
        try assertUsageError(
            ["ctl", "--data-dir", dataDirectory, "layout", "split", "a", "b", "--ratio", "2"],
            containing: "ratio 2.0 is out of range (0.1 to 0.9)")
        try assertUsageError(["fly"], containing: "'fly'", help: "apphost")
        // Values no later check would catch before the host starts are usage errors too.
        try assertUsageError(
            ["launch", "--http", "99999", guest], containing: "--http 99999: expected PORT", help: "apphost launch")
        try assertUsageError(
            ["launch", "--data-dir", "", guest], containing: "--data-dir must not be empty", help: "apphost launch")
        try assertUsageError(
            ["ctl", "--data-dir", "", "ps"], containing: "--data-dir must not be empty", help: "apphost ctl ps")
        try assertUsageError(
            ["ctl", "--data-dir", dataDirectory, "call", "g", "a", "--arguments", "{"],
            containing: "--arguments takes one JSON array", help: "apphost ctl call")
        try assertUsageError(
            ["launch", "--files-limit", "4294967296", guest],
            containing: "--files-limit: 4294967296 is too large; it must be at most", help: "apphost launch")
    }

    // Help is not an error: it is printed in full, on stdout, with exit 0.
    func testHelpIsStillPrintedInFull() throws {
        for arguments in [["--help"], ["inspect", "--help"], ["ctl", "layout", "split", "--help"]] {
            let result = try runApphost(arguments)
            XCTAssertEqual(result.status, 0, "\(arguments): \(result.stderr)")
            XCTAssertGreaterThan(result.stdout.count, 3, "\(arguments): \(result.stdout)")
        }
    }

    // Every duration option of every command: a value no Duration holds (1e16 seconds is past
    // what inspect's Int64 of milliseconds held: a crash with a 49-line backtrace), infinity
    // or not a number is a usage error that names the option.
    func testHugeDurationsAreUsageErrors() throws {
        let guest = missingGuest
        for value in ["1e16", "inf", "nan"] {
            try assertUsageError(
                ["inspect", "--timeout", value, guest], containing: "--timeout", help: "apphost inspect")
        }
        let durations = [
            "--restart-interval", "--watchdog", "--watchdog-hard-limit", "--background-budget", "--expiration-grace",
            "--suspend-delay", "--activation", "--notification-window",
        ]
        for option in durations {
            for value in ["1e16", "inf", "nan"] {
                try assertUsageError(
                    ["launch", "--data-dir", dataDirectory, option, value, guest], containing: option + " ",
                    help: "apphost launch")
            }
        }
    }

    // Counts, sizes and sizes in points past what they may be are usage errors too.
    func testHugeCountsAndSizesAreUsageErrors() throws {
        let guest = missingGuest
        let options = [
            ("--restart-burst", "1e16"), ("--background-scene-limit", "1e16"), ("--notification-limit", "1e30"),
            ("--compact-width", "99999999999"), ("--memory-limit", "99999999999G"),
            ("--host-memory-limit", "99999999999G"), ("--files-limit", "1e16"), ("--processes-limit", "1e16"),
            ("--display", "99999x99999"),
        ]
        for (option, value) in options {
            try assertUsageError(
                ["launch", "--data-dir", dataDirectory, option, value, guest], containing: option,
                help: "apphost launch")
        }
        try assertUsageError(
            ["ctl", "--data-dir", dataDirectory, "layout", "split", "a", "b", "--ratio", "1e16"],
            containing: "ratio 1e+16 is out of range")
    }

    // A negative number after an option is its value, not an option of its own: ArgumentParser
    // read `--timeout -1` as a --timeout without a value ("Missing value"). It says what the value
    // must be, as --timeout=-1 does.
    func testNegativeValuesSayWhatTheValueMustBe() throws {
        let guest = missingGuest
        for arguments in [["inspect", "--timeout", "-1", guest], ["inspect", "--timeout=-1", guest]] {
            try assertUsageError(arguments, containing: "--timeout must be a positive number of seconds, not -1")
        }
        let options = [
            ("--restart-burst", "must be at least 1"), ("--restart-interval", "must be a positive number of seconds"),
            ("--watchdog", "must be a positive number of seconds"),
            ("--watchdog-hard-limit", "must be a positive number of seconds"),
            ("--background-budget", "must be a positive number of seconds"),
            ("--expiration-grace", "must be 0 seconds or more"), ("--suspend-delay", "must be 0 seconds or more"),
            ("--activation", "must be 0 seconds or more"), ("--notification-window", "must be a positive number"),
            ("--background-scene-limit", "must be 0 or more"), ("--notification-limit", "must be 0 or more"),
            ("--compact-width", "must be more than 0"), ("--memory-limit", "must be more than 0"),
            ("--host-memory-limit", "must be more than 0"), ("--files-limit", "must be at least 1"),
            ("--processes-limit", "must be at least 1"),
        ]
        for (option, expected) in options {
            let result = try assertUsageError(
                ["launch", "--data-dir", dataDirectory, option, "-1", guest], containing: option, help: "apphost launch"
            )
            XCTAssertTrue(result.stderr.first?.contains(expected) == true, "\(option) -1: \(result.stderr)")
        }
        try assertUsageError(
            ["ctl", "--data-dir", dataDirectory, "layout", "split", "a", "b", "--ratio", "-0.5"],
            containing: "ratio -0.5 is out of range (0.1 to 0.9)")
        // A positional number too reaches the verb's own check, negative or not (issue 35).
        try assertUsageError(
            ["ctl", "--data-dir", dataDirectory, "layout", "ratio", "-0.5"],
            containing: "ratio -0.5 is out of range (0.1 to 0.9)")
        try assertUsageError(
            ["ctl", "--data-dir", dataDirectory, "audio", "volume", "-0.5"],
            containing: "the volume is from 0 to 1, not -0.5")
        try assertUsageError(
            ["ctl", "--data-dir", dataDirectory, "audio", "volume", "loud"],
            containing: #"<volume> must be a number, not "loud""#, help: "apphost ctl audio volume")
        try assertUsageError(
            ["ctl", "--data-dir", dataDirectory, "audio", "volume"], containing: "Missing expected argument",
            help: "apphost ctl audio volume")
    }
}
