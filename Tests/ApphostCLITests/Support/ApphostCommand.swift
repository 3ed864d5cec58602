import Foundation
import XCTest

/// What a finished `apphost` command printed and how it exited.
struct CommandResult {
    var status: Int32
    var stdout: [String]
    var stderr: [String]
    /// Standard output is empty or ends in a newline, as every line a tool prints must.
    var stdoutEndsInNewline = true
}

/// Runs `apphost` with `arguments` to completion (20 s at most).
func runApphost(
    _ arguments: [String], environment: [String: String] = [:], timeout: TimeInterval = 20,
    file: StaticString = #filePath, line: UInt = #line
) throws -> CommandResult {
    try runCommand(
        try BuildProducts.apphost(file: file, line: line), arguments, environment: environment, timeout: timeout,
        file: file, line: line)
}

/// Runs `executable` with `arguments` in `directory` (the test's own by default) to completion,
/// `timeout` seconds at most.
func runCommand(
    _ executable: String, _ arguments: [String], in directory: String? = nil, environment: [String: String] = [:],
    timeout: TimeInterval = 20, file: StaticString = #filePath, line: UInt = #line
) throws -> CommandResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
    let stdout = OutputCollector()
    let stderr = OutputCollector()
    process.standardOutput = stdout.pipe
    process.standardError = stderr.pipe
    stdout.start()
    stderr.start()
    try process.run()
    let deadline = Date() + timeout
    let out = stdout.waitForEnd(until: deadline)
    let err = stderr.waitForEnd(until: deadline)
    while process.isRunning && Date() < deadline { usleep(10_000) }
    guard !process.isRunning else {
        kill(process.processIdentifier, SIGKILL)
        let command = ([(executable as NSString).lastPathComponent] + arguments).joined(separator: " ")
        XCTFail("\(command) did not finish within \(timeout) s", file: file, line: line)
        throw HostTestFailure()
    }
    return CommandResult(
        status: process.terminationStatus, stdout: out, stderr: err, stdoutEndsInNewline: !stdout.endedMidLine)
}

/// Checks the CLI's error form: a non-zero exit and exactly one line on stderr, "apphost: ...".
func assertOneLineError(
    _ result: CommandResult, containing expected: String, file: StaticString = #filePath, line: UInt = #line
) {
    XCTAssertNotEqual(result.status, 0, "expected a failure exit status", file: file, line: line)
    XCTAssertEqual(result.stderr.count, 1, "expected one error line, got: \(result.stderr)", file: file, line: line)
    guard let error = result.stderr.first else { return }
    XCTAssertTrue(
        error.hasPrefix("apphost: "), "error line without the apphost: prefix: \(error)", file: file, line: line)
    XCTAssertTrue(
        error.contains(expected), "error line \"\(error)\" does not mention \"\(expected)\"", file: file, line: line)
}
