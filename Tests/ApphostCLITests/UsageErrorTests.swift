import ApphostHost
import XCTest

/// README: bad input gets a clear one-line error on stderr; a usage error exits 64. Every option
/// and argument of every command, whatever ArgumentParser or the command's own checks find wrong.
final class UsageErrorTests: HostTestCase {
    /// A usage error as README promises it: exit 64, and on stderr the one line
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

    // README: usage errors are one line, not ArgumentParser's three or four (the message, a
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
        try assertUsageError(
            ["ctl", "--data-dir", dataDirectory, "layout", "split", "a", "b", "--ratio", "2"],
            containing: "the ratio must be from 0.1 to 0.9", help: "apphost ctl layout split")
        try assertUsageError(["fly"], containing: "'fly'", help: "apphost")
    }

    // Help is not an error: it is printed in full, on stdout, with exit 0.
    func testHelpIsStillPrintedInFull() throws {
        for arguments in [["--help"], ["inspect", "--help"], ["ctl", "layout", "split", "--help"]] {
            let result = try runApphost(arguments)
            XCTAssertEqual(result.status, 0, "\(arguments): \(result.stderr)")
            XCTAssertGreaterThan(result.stdout.count, 3, "\(arguments): \(result.stdout)")
        }
    }
}
