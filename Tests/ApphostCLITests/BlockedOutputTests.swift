import ApphostControl
import ApphostVocabulary
import Foundation
import XCTest

/// A host whose standard output nobody reads (`apphost launch guest.so | sleep 120`), beside guests
/// that log or print as fast as they can: the host's output must never stop the host (CONTRACT X2).
class BlockedOutputCases: HostTestCase {
    // CONTRACT X2: with its standard output a pipe that takes no more and its standard error one
    // that nobody reads, and a guest logging in a tight loop from a thread of its own, the host
    // still answers `ctl ps` (which counts the event lines it dropped meanwhile) and ends
    // gracefully on SIGTERM.
    func aHostWhoseOutputNobodyReadsAnswersAndStopsGracefully() throws {
        let flood = try TestGuests.busyThread(into: scratch.path, flags: ["-DFIXTURE_FLOOD=1"])
        let host = try startHost(
            [flood], readsStandardOutput: false, readsStandardError: false, fillsStandardOutput: true)
        let status = try waitForDroppedEventLines()
        XCTAssertEqual(status.guest(TestGuests.busyThreadID)?.phase, .running)
        host.signal(SIGTERM)
        XCTAssertEqual(try host.waitForExit(), 0)
    }

    // CONTRACT X2: a guest printing on its standard output in a tight loop, beside another guest,
    // with the host's output full and unread: the host answers and drives the other guest, and
    // stops gracefully.
    func aGuestFloodingItsStandardOutputHarmsNeitherTheHostNorTheOthers() throws {
        let flood = try TestGuests.busyThread(into: scratch.path, flags: ["-DFIXTURE_FLOOD=2"])
        let host = try startHost(
            [BuildProducts.cSample, flood], readsStandardOutput: false, readsStandardError: false,
            fillsStandardOutput: true)
        if Self.isolation == "none" {
            // What it prints goes to the host's standard error, where it fills the pipe and then
            // waits: the host is not in the way.
            _ = try waitForStatus("the flooding guest running") {
                $0.guest(TestGuests.busyThreadID)?.phase == .running
            }
        } else {
            // What it prints reaches the host as its log, and is dropped at the host's output.
            _ = try waitForDroppedEventLines()
        }

        XCTAssertEqual(try answeredStatus().guest(TestGuests.busyThreadID)?.phase, .running)
        XCTAssertEqual(try runApphost(ctlArguments("home"), timeout: 10).status, 0)
        XCTAssertEqual(try runApphost(ctlArguments("switch", Self.cID), timeout: 10).status, 0)
        let status = try answeredStatus()
        XCTAssertEqual(status.guest(Self.cID)?.appState, .active)
        XCTAssertEqual(status.guest(TestGuests.busyThreadID)?.phase, .running)
        // In the host's process the guest's thread is stuck in printf on the full pipe, and its
        // deinit waits for that thread: read the pipe, so that it can end (a guest that hangs in
        // its deinit hangs a host that runs it in its process).
        if Self.isolation == "none" { Self.discard(host.stderr.pipe) }
        host.signal(SIGTERM)
        XCTAssertEqual(try host.waitForExit(), 0)
    }

    // CONTRACT X2: the event lines the host could not write are counted, in `ctl ps`, and said in
    // the stream itself, as an event in their place, once its reader reads again; and in the
    // host's log.
    func eventLinesDroppedAreCountedAndSaid() throws {
        let flood = try TestGuests.busyThread(into: scratch.path, flags: ["-DFIXTURE_FLOOD=1"])
        let host = try startHost([flood], readsStandardOutput: false, fillsStandardOutput: true)
        _ = try waitForDroppedEventLines()
        let table = try runApphost(ctlArguments("ps"), timeout: 10)
        XCTAssertTrue(
            table.stdout.contains {
                $0.hasPrefix("output: ") && $0.hasSuffix(" event lines dropped: standard output was not being read")
            }, "\(table.stdout)")

        let notice = try Self.readEvents(from: host.stdout.pipe) { $0.kind == .eventsDropped }
        let message = try XCTUnwrap(notice.message)
        XCTAssertNotNil(
            message.wholeMatch(of: /dropped [1-9][0-9]* event lines?: standard output is not being read/), message)
        let logged = host.stderr.wait(until: Date() + 10) { lines in
            lines.contains { $0.contains("warning") && $0.hasSuffix(message) }
        }
        XCTAssertTrue(logged.ready, "the host's log does not say it: \(logged.lines)")

        Self.discard(host.stdout.pipe)
        host.signal(SIGTERM)
        XCTAssertEqual(try host.waitForExit(), 0)
    }

    // MARK: Helpers

    /// `ctl ps --json` within 10 s, however busy the host is.
    func answeredStatus(file: StaticString = #filePath, line: UInt = #line) throws -> HostStatus {
        let result = try runApphost(ctlArguments("ps", "--json"), timeout: 10, file: file, line: line)
        XCTAssertEqual(result.status, 0, "ps failed: \(result.stderr)", file: file, line: line)
        return try ControlCoding.decode(HostStatus.self, from: result.stdout.joined())
    }

    func ctlArguments(_ arguments: String...) -> [String] { ["ctl"] + arguments + ["--data-dir", dataDirectory] }

    /// Asks `ctl ps` (for 20 s at most) until the host says it dropped more than a thousand event
    /// lines: a flood is under way, and the host answers through it.
    func waitForDroppedEventLines(file: StaticString = #filePath, line: UInt = #line) throws -> HostStatus {
        try waitForStatus("more than 1000 event lines dropped", file: file, line: line) {
            $0.droppedEventLines ?? 0 > 1000
        }
    }

    /// Asks `ctl ps` (for 20 s at most, each answer within 10 s) until its answer matches
    /// `predicate`; until the host listens, asks again.
    func waitForStatus(
        _ what: String, file: StaticString = #filePath, line: UInt = #line, until predicate: (HostStatus) -> Bool
    ) throws -> HostStatus {
        let deadline = Date() + 20
        var last: HostStatus?
        while Date() < deadline {
            let result = try runApphost(ctlArguments("ps", "--json"), timeout: 10, file: file, line: line)
            if result.status == 0 {
                let status = try ControlCoding.decode(HostStatus.self, from: result.stdout.joined())
                if predicate(status) { return status }
                last = status
            } else if !result.stderr.joined().contains("no host is running") {
                XCTFail("ps failed: \(result.stderr)", file: file, line: line)
                throw HostTestFailure()
            }
            usleep(50_000)
        }
        XCTFail("no \(what) within 20 s; ps said \(String(describing: last))", file: file, line: line)
        throw HostTestFailure()
    }

    /// Reads `pipe` line by line (20 s at most) until an event matches `predicate`; every line
    /// must be an event in JSON.
    static func readEvents(
        from pipe: Pipe, file: StaticString = #filePath, line: UInt = #line, until predicate: (HostEvent) -> Bool
    ) throws -> HostEvent {
        let handle = pipe.fileHandleForReading
        let deadline = Date() + 20
        var partial = Data()
        while Date() < deadline {
            let data = handle.availableData
            guard !data.isEmpty else { break }
            partial.append(data)
            while let newline = partial.firstIndex(of: UInt8(ascii: "\n")) {
                let text = String(decoding: partial[partial.startIndex..<newline], as: UTF8.self)
                partial = Data(partial[partial.index(after: newline)...])
                guard text.hasPrefix("{"), text.hasSuffix("}") else {
                    XCTFail("launch --json printed a line that is not an event: \(text)", file: file, line: line)
                    throw HostTestFailure()
                }
                // Only lines that may match are decoded: the others are many.
                guard text.contains("events-dropped") else { continue }
                let event = try ControlCoding.decode(HostEvent.self, from: text)
                if predicate(event) { return event }
            }
        }
        XCTFail("no such event within 20 s", file: file, line: line)
        throw HostTestFailure()
    }

    /// Reads `pipe` to its end on a thread of its own and throws what it read away.
    static func discard(_ pipe: Pipe) {
        let descriptor = pipe.fileHandleForReading.fileDescriptor
        Thread.detachNewThread {
            var buffer = [UInt8](repeating: 0, count: 65536)
            while buffer.withUnsafeMutableBytes({ read(descriptor, $0.baseAddress, $0.count) }) > 0 {}
        }
    }
}

final class BlockedOutputTests: BlockedOutputCases {
    func testAHostWhoseOutputNobodyReadsAnswersAndStopsGracefully() throws {
        try aHostWhoseOutputNobodyReadsAnswersAndStopsGracefully()
    }
    func testAGuestFloodingItsStandardOutputHarmsNeitherTheHostNorTheOthers() throws {
        try aGuestFloodingItsStandardOutputHarmsNeitherTheHostNorTheOthers()
    }
    func testEventLinesDroppedAreCountedAndSaid() throws { try eventLinesDroppedAreCountedAndSaid() }
}

/// The same with the guests in the host's process.
final class BlockedOutputInProcessTests: BlockedOutputCases {
    override class var isolation: String? { "none" }

    func testAHostWhoseOutputNobodyReadsAnswersAndStopsGracefully() throws {
        try aHostWhoseOutputNobodyReadsAnswersAndStopsGracefully()
    }
    func testAGuestFloodingItsStandardOutputHarmsNeitherTheHostNorTheOthers() throws {
        try aGuestFloodingItsStandardOutputHarmsNeitherTheHostNorTheOthers()
    }
    func testEventLinesDroppedAreCountedAndSaid() throws { try eventLinesDroppedAreCountedAndSaid() }
}
