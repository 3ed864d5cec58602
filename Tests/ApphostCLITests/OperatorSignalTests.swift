import ApphostControl
import ApphostServiceTesting
import Foundation
import XCTest

/// What the signals an operator sends mean (CONTRACT O3, A3): SIGHUP reads the token files and the
/// log level file again and the host and its guests go on; SIGTERM stays graceful after it, and
/// SIGQUIT is as graceful; SIGUSR1 and SIGUSR2 kill nothing. (SIGINT and SIGTERM alone:
/// TerminationTests.)
final class OperatorSignalTests: HostTestCase {
    override class var stopsHostsGracefully: Bool { true }

    // CONTRACT O3, O1, A3: SIGHUP rotates the HTTP token and the log level without a restart,
    // keeps what it cannot read, and terminates nothing; SIGTERM afterwards is still graceful.
    func testO3SIGHUPReloadsTokensAndLogLevelAndKeepsGuests() throws {
        let tokenFile = try scratch.file("token", contents: "first-token-0123456789\n")
        chmod(tokenFile, 0o600)
        let levelFile = try scratch.file("log-level", contents: "info\n")
        let host = try startHost(
            [BuildProducts.cSample, BuildProducts.swiftSample],
            options: ["--http", "0", "--http-token-file", tokenFile, "--log-level-file", levelFile])
        try host.waitForLog(Self.cID, "callback did_become_active", prefix: true)
        try host.waitForLog(Self.swiftID, "callback will_connect", prefix: true)
        let port = try host.httpAddress().port
        func status(_ token: String) throws -> Int {
            try HTTPTestClient.request("GET", "/v1/guests", port: port, headers: ["Authorization": "Bearer \(token)"])
                .status
        }
        XCTAssertEqual(try status("first-token-0123456789"), 200)

        try "second-token-0123456789\n".write(toFile: tokenFile, atomically: false, encoding: .utf8)
        try "debug\n".write(toFile: levelFile, atomically: false, encoding: .utf8)
        host.signal(SIGHUP)
        try waitForError(host, "SIGHUP: log level debug, was info")
        XCTAssertTrue(
            host.stderr.snapshot.contains {
                $0.contains("SIGHUP: read the control token again from \(tokenFile): a new token")
            },
            host.stderr.snapshot.joined(separator: "\n"))
        XCTAssertEqual(try status("second-token-0123456789"), 200)
        XCTAssertEqual(try status("first-token-0123456789"), 401)

        // What cannot be read is kept, and said.
        try "loud\n".write(toFile: levelFile, atomically: false, encoding: .utf8)
        chmod(tokenFile, 0o644)
        host.signal(SIGHUP)
        try waitForError(host, "SIGHUP: kept log level debug: the log level file \(levelFile) says \"loud\"")
        try waitForError(host, "SIGHUP: kept the control token: the token file \(tokenFile) has mode 644")
        XCTAssertEqual(try status("second-token-0123456789"), 200)

        XCTAssertTrue(host.process.isRunning, "SIGHUP leaves the host running")
        XCTAssertFalse(host.events.contains { $0.kind == .terminated }, "and terminates no guest")
        XCTAssertEqual(try self.status().guests.count, 2)

        let mark = host.events.count
        host.signal(SIGTERM)
        XCTAssertEqual(try host.waitForExit(), 0)
        let terminations = host.events.dropFirst(mark).filter { $0.kind == .terminated }
        XCTAssertEqual(Set(terminations.compactMap(\.guest)), [Self.cID, Self.swiftID])
        XCTAssertTrue(
            host.events.dropFirst(mark).contains {
                $0.kind == .log && $0.message?.hasPrefix("callback will_terminate") == true
            },
            "the guests got will_terminate")
    }

    // CONTRACT O3, A3: signals that would end a process by default do not end the guests without
    // their callbacks: SIGUSR1 and SIGUSR2 are logged and ignored, SIGQUIT stops gracefully.
    func testO3NoSignalEndsGuestsWithoutTheirCallbacks() throws {
        let host = try startHost([BuildProducts.cSample, BuildProducts.swiftSample], options: ["--log-level", "info"])
        try host.waitForLog(Self.cID, "callback did_become_active", prefix: true)
        try host.waitForLog(Self.swiftID, "callback will_connect", prefix: true)
        host.signal(SIGUSR1)
        try waitForError(host, "ignored SIGUSR1: it means nothing to apphost")
        host.signal(SIGUSR2)
        try waitForError(host, "ignored SIGUSR2: it means nothing to apphost")
        XCTAssertEqual(try self.status().guests.count, 2)

        let mark = host.events.count
        host.signal(SIGQUIT)
        XCTAssertEqual(try host.waitForExit(), 0)
        let after = host.events.dropFirst(mark)
        XCTAssertEqual(Set(after.filter { $0.kind == .terminated }.compactMap(\.guest)), [Self.cID, Self.swiftID])
        XCTAssertTrue(after.contains { $0.guest == Self.cID && $0.message == "callback will_terminate" })
    }

    // CONTRACT O3: a log level file that cannot be used stops the launch in one line, before any
    // guest; and it goes with --log-level no more than two levels do.
    func testO3ABadLogLevelFileIsOneLine() throws {
        let guest = try BuildProducts.path(BuildProducts.cSample)
        let levelFile = try scratch.file("log-level", contents: "chatty\n")
        let bad = try runApphost(["launch", "--data-dir", dataDirectory, "--log-level-file", levelFile, guest])
        XCTAssertEqual(bad.status, 1)
        XCTAssertEqual(
            bad.stderr,
            [
                "apphost: the log level file \(levelFile) says \"chatty\": expected one of trace, debug, info, notice, warning, error, critical"
            ])
        // The first line is the level, as a token file's first line is the token.
        try "\ndebug\n".write(toFile: levelFile, atomically: false, encoding: .utf8)
        let blank = try runApphost(["launch", "--data-dir", dataDirectory, "--log-level-file", levelFile, guest])
        XCTAssertEqual(blank.status, 1)
        XCTAssertTrue(blank.stderr.first?.contains("says \"\": expected one of") == true, "\(blank.stderr)")
        let both = try runApphost([
            "launch", "--log-level", "info", "--log-level-file", levelFile, guest,
        ])
        XCTAssertEqual(both.status, 64)
        XCTAssertTrue(both.stderr.first?.contains("exclude each other") == true, "\(both.stderr)")
    }

    private func waitForError(_ host: HostProcess, _ text: String, file: StaticString = #filePath, line: UInt = #line)
        throws
    {
        let (lines, found) = host.stderr.wait(until: Date() + 10) { $0.contains { $0.contains(text) } }
        guard found else {
            XCTFail("no \"\(text)\" on stderr:\n\(lines.joined(separator: "\n"))", file: file, line: line)
            throw HostTestFailure()
        }
    }
}
