import Foundation

/// Reads a pipe on its own thread and keeps what arrived as lines, so that a test can wait for a
/// line without blocking the process that writes them.
final class OutputCollector: @unchecked Sendable {
    // `lines`, `partial`, `closed` and `unterminated` are guarded by `condition`.
    private let condition = NSCondition()
    private var lines: [String] = []
    private var partial = Data()
    private var closed = false
    private var unterminated = false

    let pipe = Pipe()

    func start() {
        let handle = pipe.fileHandleForReading
        Thread.detachNewThread { [self] in
            while true {
                let data = handle.availableData
                condition.lock()
                if data.isEmpty {
                    if !partial.isEmpty {
                        lines.append(String(decoding: partial, as: UTF8.self))
                        unterminated = true
                    }
                    partial = Data()
                    closed = true
                } else {
                    partial.append(data)
                    while let newline = partial.firstIndex(of: UInt8(ascii: "\n")) {
                        lines.append(String(decoding: partial[partial.startIndex..<newline], as: UTF8.self))
                        partial = Data(partial[partial.index(after: newline)...])
                    }
                }
                condition.broadcast()
                condition.unlock()
                // XCTest keeps every test case, and so every collector, until the run ends: the
                // descriptor goes now, or a long run exhausts the process's (512 in some tests).
                if data.isEmpty {
                    try? handle.close()
                    return
                }
            }
        }
    }

    /// The writer closed the pipe in the middle of a line: its last line has no newline.
    var endedMidLine: Bool {
        condition.lock()
        defer { condition.unlock() }
        return unterminated
    }

    var snapshot: [String] {
        condition.lock()
        defer { condition.unlock() }
        return lines
    }

    /// Waits until `ready` holds for the lines so far, or the deadline passes, or the pipe closes
    /// without it holding; returns the lines it last saw and whether `ready` held.
    func wait(until deadline: Date, for ready: ([String]) -> Bool) -> (lines: [String], ready: Bool) {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if ready(lines) { return (lines, true) }
            if closed || !condition.wait(until: deadline) { return (lines, ready(lines)) }
        }
    }

    /// Waits for the writer to close the pipe (it exited).
    func waitForEnd(until deadline: Date) -> [String] {
        condition.lock()
        defer { condition.unlock() }
        while !closed, condition.wait(until: deadline) {}
        return lines
    }
}
