import ApphostControl
import ApphostVocabulary
import Foundation
import XCTest

/// A running `apphost launch --json`, whose events a test reads and waits for.
final class HostProcess {
    let dataDirectory: String
    let process = Process()
    let stdout = OutputCollector()
    let stderr = OutputCollector()

    /// Whether the test reads the host's standard output and standard error; a pipe that is not
    /// read fills up, as when nobody drains a host's output.
    private let readsStandardOutput: Bool
    private let readsStandardError: Bool

    /// Which of the host's streams `JOURNAL_STREAM` names, as systemd sets it for a stream that
    /// goes to the journal.
    enum Stream { case standardOutput, standardError }

    /// `fillsStandardOutput` (when the test does not read it): the host starts with a standard
    /// output that takes no more, as if its reader had stopped reading long ago. `journalStream`:
    /// the host's environment names that stream's pipe (`device:inode`) in `JOURNAL_STREAM`.
    /// `openFiles`: the host starts with that soft and hard descriptor limit (through the shell's
    /// `ulimit`, which the host's process then is).
    init(
        guests: [String], dataDirectory: String, environment: [String: String] = [:], readsStandardOutput: Bool = true,
        readsStandardError: Bool = true, fillsStandardOutput: Bool = false, journalStream: Stream? = nil,
        openFiles: Int? = nil
    ) throws {
        self.dataDirectory = dataDirectory
        self.readsStandardOutput = readsStandardOutput
        self.readsStandardError = readsStandardError
        let apphost = try BuildProducts.apphost()
        process.executableURL = URL(fileURLWithPath: apphost)
        // warning: the host's own info logs would mix with the error lines the tests count.
        // Background guests are suspended 1 s after they go idle (B6): tests of other rules,
        // which drive background guests, ask for a delay they never reach, unless they set one.
        let suspendDelay = guests.contains("--suspend-delay") ? [] : ["--suspend-delay", "3600"]
        // --log-level-file excludes --log-level: a test that gives the file sets the level there.
        let logLevel = guests.contains("--log-level-file") ? [] : ["--log-level", "warning"]
        process.arguments =
            ["launch", "--json"] + logLevel + ["--data-dir", dataDirectory] + suspendDelay + guests
        if let openFiles {
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "ulimit -n \(openFiles) && exec \"$0\" \"$@\"", apphost] + process.arguments!
        }
        var environment = environment
        // No test's host reaches the machine's journald: a test that wants its entries names a
        // socket of its own.
        if environment["APPHOST_JOURNAL_SOCKET"] == nil {
            environment["APPHOST_JOURNAL_SOCKET"] = "/nonexistent/apphost-test-journal"
        }
        if let journalStream {
            let pipe = journalStream == .standardOutput ? stdout.pipe : stderr.pipe
            var info = stat()
            guard fstat(pipe.fileHandleForWriting.fileDescriptor, &info) == 0 else { throw HostTestFailure() }
            environment["JOURNAL_STREAM"] = "\(info.st_dev):\(info.st_ino)"
        }
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = stdout.pipe
        process.standardError = stderr.pipe
        if readsStandardOutput { stdout.start() }
        if readsStandardError { stderr.start() }
        if fillsStandardOutput && !readsStandardOutput { Self.fill(stdout.pipe) }
        try process.run()
    }

    var pid: Int32 { process.processIdentifier }

    /// The events printed so far. Every line of `--json` output must be one event.
    var events: [HostEvent] { Self.decode(stdout.snapshot) }

    /// Waits (10 s at most) for an event from index `after` on that matches `predicate`.
    @discardableResult
    func waitForEvent(
        _ what: String, after: Int = 0, timeout: TimeInterval = 10, file: StaticString = #filePath, line: UInt = #line,
        where predicate: @escaping (HostEvent) -> Bool
    ) throws -> HostEvent {
        let (lines, found) = stdout.wait(until: Date() + timeout) { lines in
            Self.decode(lines).dropFirst(after).contains(where: predicate)
        }
        let events = Self.decode(lines)
        guard found, let event = events.dropFirst(after).first(where: predicate) else {
            let recent = events.filter { $0.kind != .audioMeter }.suffix(40).map(\.humanLine).joined(separator: "\n")
            let errors = stderr.snapshot.joined(separator: "\n")
            XCTFail(
                "no \(what) within \(timeout) s; last events:\n\(recent)\nstderr:\n\(errors)", file: file, line: line)
            throw HostTestFailure()
        }
        return event
    }

    /// Waits for `guest` to log `message` (exactly, or as a prefix when `prefix` is set).
    @discardableResult
    func waitForLog(
        _ guest: String, _ message: String, prefix: Bool = false, after: Int = 0, file: StaticString = #filePath,
        line: UInt = #line
    ) throws -> HostEvent {
        try waitForEvent("log \"\(message)\" from \(guest)", after: after, file: file, line: line) { event in
            guard event.kind == .log, event.guest == guest, let text = event.message else { return false }
            return prefix ? text.hasPrefix(message) : text == message
        }
    }

    /// Where the HTTP API listens (`--http`, with `--log-level info`), with the port the kernel
    /// chose for port 0: the host logs "address=127.0.0.1:40123 [apphost] serving HTTP".
    func httpAddress(file: StaticString = #filePath, line: UInt = #line) throws -> (host: String, port: Int) {
        let address = { (lines: [String]) -> Substring? in
            guard let line = lines.first(where: { $0.contains("serving HTTP") }),
                let field = line.split(separator: " ").first(where: { $0.hasPrefix("address=") })
            else { return nil }
            return field.dropFirst("address=".count)
        }
        let (lines, _) = stderr.wait(until: Date() + 10) { address($0) != nil }
        guard let bound = address(lines), let colon = bound.lastIndex(of: ":"),
            let port = Int(bound[bound.index(after: colon)...])
        else {
            XCTFail(
                "the host did not say where it serves HTTP; stderr:\n\(lines.joined(separator: "\n"))", file: file,
                line: line)
            throw HostTestFailure()
        }
        return (String(bound[..<colon]), port)
    }

    func signal(_ number: Int32) { Foundation.kill(pid, number) }

    /// Waits for the host to exit and returns its status; fails after `timeout`.
    func waitForExit(timeout: TimeInterval = 15, file: StaticString = #filePath, line: UInt = #line) throws -> Int32 {
        let deadline = Date() + timeout
        if readsStandardOutput { _ = stdout.waitForEnd(until: deadline) }
        if readsStandardError { _ = stderr.waitForEnd(until: deadline) }
        while process.isRunning && Date() < deadline { usleep(10_000) }
        guard !process.isRunning else {
            XCTFail("the host did not exit within \(timeout) s", file: file, line: line)
            throw HostTestFailure()
        }
        return process.terminationStatus
    }

    /// Kills the host if a test left it running.
    func kill() {
        if process.isRunning { Foundation.kill(pid, SIGKILL) }
        process.waitUntilExit()
    }

    /// Writes lines "{}" into `pipe` until it takes no more. Its descriptor is non-blocking only
    /// meanwhile: the host gets the same open file, which it must find blocking.
    private static func fill(_ pipe: Pipe) {
        let descriptor = pipe.fileHandleForWriting.fileDescriptor
        let flags = fcntl(descriptor, F_GETFL)
        _ = fcntl(descriptor, F_SETFL, flags | O_NONBLOCK)
        // A page of lines at a time, then a line at a time: writes of up to a page are atomic, so
        // what fits goes in whole and the rest fails with EAGAIN.
        for text in [String(repeating: "{}\n", count: 1365), "{}\n"] {
            let bytes = Array(text.utf8)
            while bytes.withUnsafeBytes({ write(descriptor, $0.baseAddress, $0.count) }) == bytes.count {}
        }
        _ = fcntl(descriptor, F_SETFL, flags)
    }

    private static func decode(_ lines: [String]) -> [HostEvent] {
        lines.map { line in
            guard let event = try? ControlCoding.decode(HostEvent.self, from: line) else {
                XCTFail("launch --json printed a line that is not an event: \(line)")
                return HostEvent(time: Date(), kind: .error, message: "unreadable line: \(line)")
            }
            return event
        }
    }
}

struct HostTestFailure: Error {}
