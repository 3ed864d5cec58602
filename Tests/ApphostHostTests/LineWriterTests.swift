import ApphostService
import Foundation
import XCTest

/// The writer of `apphost launch`'s output (CONTRACT X2): it never blocks whoever writes, and
/// says how many lines it dropped, where it dropped them.
final class LineWriterTests: XCTestCase {
    // CONTRACT X2: lines written while nobody reads are kept up to the capacity, then dropped and
    // counted; once the reader reads again, each run of dropped lines is replaced, in its place,
    // by one notice with its count, and nothing else is lost, reordered or cut.
    func testDroppedLinesAreCountedAndNoticedInTheirPlace() throws {
        var ends: [Int32] = [-1, -1]
        XCTAssertEqual(pipe(&ends), 0)
        defer { close(ends[0]) }
        let writer = LineWriter(descriptor: ends[1], capacity: 1000, notice: { "dropped \($0)\n" })

        // Nobody reads yet: the pipe fills, then the queue, and the rest is dropped. Each write
        // returns at once.
        let total = 20_000
        for index in 0..<total { writer.write("line \(index)\n") }
        XCTAssertGreaterThan(writer.droppedLines, 0)

        let reader = Thread.detachedReader(ends[0])
        XCTAssertTrue(writer.flush(patience: .seconds(10)), "the writer did not catch up with a reader")
        close(ends[1])
        let lines = reader.wait()

        var next = 0
        var notices = 0
        var noticed = 0
        for line in lines {
            if let count = line.wholeMatch(of: /dropped ([0-9]+)/).flatMap({ Int($0.1) }) {
                XCTAssertGreaterThan(count, 0)
                notices += 1
                noticed += count
                next += count
            } else {
                XCTAssertEqual(line, "line \(next)", "lines out of order, lost or cut")
                next += 1
            }
        }
        XCTAssertEqual(next, total, "every line is either written or counted in a notice")
        XCTAssertEqual(noticed, writer.droppedLines)
        XCTAssertGreaterThan(notices, 0)
    }

    // CONTRACT X2: a process about to exit waits for its output only while someone reads it.
    func testFlushGivesUpOnAReaderThatTakesNothing() throws {
        var ends: [Int32] = [-1, -1]
        XCTAssertEqual(pipe(&ends), 0)
        let writer = LineWriter(descriptor: ends[1], capacity: 1 << 20, notice: { "dropped \($0)\n" })
        for index in 0..<20_000 { writer.write("line \(index)\n") }
        XCTAssertFalse(writer.flush(patience: .milliseconds(200)))

        // Read, so that the writer ends its write before the pipe closes under it.
        let reader = Thread.detachedReader(ends[0])
        XCTAssertTrue(writer.flush(patience: .seconds(10)))
        close(ends[1])
        XCTAssertEqual(reader.wait().count, 20_000)
        close(ends[0])
    }
}

extension Thread {
    /// Reads `descriptor` to its end on a thread of its own; `wait` returns the lines.
    fileprivate static func detachedReader(_ descriptor: Int32) -> LinesRead {
        let result = LinesRead()
        Thread.detachNewThread {
            var data = Data()
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                guard count > 0 else { break }
                data.append(contentsOf: buffer[..<count])
            }
            result.finish(String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init))
        }
        return result
    }
}

private final class LinesRead: @unchecked Sendable {
    private let condition = NSCondition()
    private var lines: [String]?

    func finish(_ lines: [String]) {
        condition.lock()
        self.lines = lines
        condition.broadcast()
        condition.unlock()
    }

    func wait() -> [String] {
        condition.lock()
        defer { condition.unlock() }
        while lines == nil { condition.wait() }
        return lines ?? []
    }
}
