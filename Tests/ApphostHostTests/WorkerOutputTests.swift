import ApphostVocabulary
import Dispatch
import Foundation
import XCTest

@testable import ApphostChannels

/// How a worker's standard output and standard error become its guest's log lines (CONTRACT X2):
/// bounded, valid UTF-8, whole characters, nothing lost.
final class WorkerOutputTests: XCTestCase {
    // CONTRACT X2: a line longer than a log message comes in pieces of at most 4096 bytes, each cut
    // before a character that would not fit; invalid UTF-8 is repaired and cut again where the
    // repair made it longer; a carriage return before the newline goes; the unfinished last line
    // comes at the end of the output; standard output is info, standard error warning.
    func testLinesAreCutAtCharactersRepairedAndLeveled() throws {
        let capture = try Capture()
        let x4095 = String(repeating: "x", count: 4095)
        capture.write(Array((x4095 + "é and more\n").utf8), standardError: false)
        capture.write(Array((x4095 + "😀 and more\n").utf8), standardError: false)
        capture.write([UInt8](repeating: 0xFF, count: 4096) + Array("\n".utf8), standardError: false)
        capture.write(Array("with a carriage return\r\n".utf8), standardError: false)
        capture.write(Array("on standard error\nunfinished".utf8), standardError: true)
        let lines = capture.finish(expecting: 11)

        let info = lines.filter { $0.0 == .info }.map(\.1)
        let repaired = String(repeating: "\u{FFFD}", count: 4096)
        XCTAssertEqual(Array(info.prefix(4)), [x4095, "é and more", x4095, "😀 and more"])
        // 4096 bad bytes are 4096 replacement characters of 3 bytes: four pieces.
        XCTAssertEqual(info.dropFirst(4).dropLast().map(\.unicodeScalars.count), [1365, 1365, 1365, 1])
        XCTAssertEqual(info.dropFirst(4).dropLast().joined(), repaired)
        XCTAssertEqual(info.last, "with a carriage return")
        XCTAssertEqual(lines.filter { $0.0 == .warning }.map(\.1), ["on standard error", "unfinished"])
        for line in lines { XCTAssertLessThanOrEqual(line.1.utf8.count, 4096) }
    }
}

/// A `WorkerOutput` on two pipes the test writes to, its lines collected from the host queue.
private final class Capture {
    private let lines = Collected()
    private let standardOutput: Int32
    private let standardError: Int32
    private let output: WorkerOutput

    init() throws {
        var out: [Int32] = [-1, -1]
        var err: [Int32] = [-1, -1]
        guard pipe(&out) == 0, pipe(&err) == 0 else { throw POSIXError(.EMFILE) }
        standardOutput = out[1]
        standardError = err[1]
        output = WorkerOutput(
            standardOutput: out[0], standardError: err[0], hostQueue: DispatchQueue(label: "test.host"),
            handleLine: { [lines] level, line in lines.append(level, line) })
    }

    func write(_ bytes: [UInt8], standardError toStandardError: Bool) {
        let descriptor = toStandardError ? standardError : standardOutput
        var offset = 0
        while offset < bytes.count {
            let count = bytes[offset...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { return }
            offset += count
        }
    }

    /// Closes the write ends, as a worker that exits does, and waits (10 s at most) for `count`
    /// lines.
    func finish(expecting count: Int) -> [(GuestLogLevel, String)] {
        close(standardOutput)
        close(standardError)
        return withExtendedLifetime(output) { lines.wait(for: count) }
    }
}

private final class Collected: @unchecked Sendable {
    private let condition = NSCondition()
    private var lines: [(GuestLogLevel, String)] = []

    func append(_ level: GuestLogLevel, _ line: String) {
        condition.lock()
        lines.append((level, line))
        condition.broadcast()
        condition.unlock()
    }

    func wait(for count: Int) -> [(GuestLogLevel, String)] {
        let deadline = Date() + 10
        condition.lock()
        defer { condition.unlock() }
        while lines.count < count, condition.wait(until: deadline) {}
        XCTAssertEqual(lines.count, count, "\(lines.map(\.1))")
        return lines
    }
}
