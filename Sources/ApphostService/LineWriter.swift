import Foundation

/// Writes lines to a descriptor from a thread of its own, so that whoever hands it a line never
/// waits for the reader: a host whose standard output nobody reads (`apphost launch guest.so |
/// sleep 120`) must go on answering, timing and stopping its guests (CONTRACT X2).
///
/// Lines wait in a queue of at most `capacity` bytes. A line that does not fit is dropped and
/// counted; once there is room again, the line `notice(count)` takes the place of those dropped,
/// after the lines written before them and before the ones after. The writer writes whole lines,
/// a page at most at a time, so that a pipe (where such writes are atomic) never holds half a line.
///
/// Or (`init(sendingEach:)`) it hands each item to a function of its own, as one whole: the host's
/// entries for journald's native socket, one datagram each.
public final class LineWriter: @unchecked Sendable {
    /// Where the items go: whole lines to a descriptor, or each item to `send`, which says
    /// whether it went (an item that did not is counted as dropped, and the writer goes on).
    private enum Sink {
        case descriptor(Int32)
        case items(@Sendable ([UInt8]) -> Bool)
    }

    // Every mutable member is guarded by `condition`.
    private let sink: Sink
    private let capacity: Int
    private let notice: @Sendable (_ dropped: Int) -> [UInt8]
    private let onNotice: @Sendable (_ dropped: Int) -> Void
    private let condition = NSCondition()
    private var queued: [[UInt8]] = []
    /// Which of `queued` are notices, by index, with the count each says: a notice that cannot
    /// be sent is not a dropped line of its own, but its count is still to be said.
    private var queuedNotices: [Int: Int] = [:]
    private var queuedBytes = 0
    /// Lines dropped since the last notice.
    private var dropped = 0
    /// Items a writer that sends each could not send, since the last item queued.
    private var unsent = 0
    private var droppedInAll = 0
    /// The writer thread holds lines it took from the queue.
    private var writing = false
    /// When the writer last wrote something, or started waiting for its reader.
    private var lastProgress = ContinuousClock.now
    /// The reader went away (EPIPE) or the descriptor failed: lines are discarded from now on.
    private var broken = false

    /// The most a pipe takes atomically (PIPE_BUF on Linux).
    private static let atomicWrite = 4096

    /// Starts the writer thread. `notice` makes the line that says how many lines were dropped,
    /// newline included; `onNotice` hears of each such line as it is queued (to log it), on the
    /// thread that queued it.
    public convenience init(
        descriptor: Int32, capacity: Int = 1 << 20, notice: @escaping @Sendable (_ dropped: Int) -> String,
        onNotice: @escaping @Sendable (_ dropped: Int) -> Void = { _ in }
    ) {
        self.init(
            sink: .descriptor(descriptor), name: "apphost.output.\(descriptor)", capacity: capacity,
            notice: { Array(notice($0).utf8) }, onNotice: onNotice)
    }

    /// Starts a writer thread that hands each item queued with `write(item:)` to `send`, in
    /// order, one at a time. `notice` makes the item that says how many were dropped, because the
    /// queue was full or `send` returned false.
    public convenience init(
        sendingEach send: @escaping @Sendable ([UInt8]) -> Bool, name: String, capacity: Int = 1 << 20,
        notice: @escaping @Sendable (_ dropped: Int) -> [UInt8],
        onNotice: @escaping @Sendable (_ dropped: Int) -> Void = { _ in }
    ) {
        self.init(sink: .items(send), name: name, capacity: capacity, notice: notice, onNotice: onNotice)
    }

    private init(
        sink: Sink, name: String, capacity: Int, notice: @escaping @Sendable (_ dropped: Int) -> [UInt8],
        onNotice: @escaping @Sendable (_ dropped: Int) -> Void
    ) {
        self.sink = sink
        self.capacity = capacity
        self.notice = notice
        self.onNotice = onNotice
        let thread = Thread { [self] in run() }
        thread.name = name
        thread.start()
    }

    /// Queues `text` (one line or more, each ending in a newline), or drops it when the queue is
    /// full. Never blocks for longer than it takes to append to the queue.
    public func write(_ text: String) { write(item: Array(text.utf8)) }

    /// Queues one item as it is: a line or more for a descriptor, a whole datagram for a writer
    /// that sends each.
    public func write(item bytes: [UInt8]) {
        var noticed = 0
        condition.lock()
        if broken {
        } else if queuedBytes + bytes.count > capacity {
            dropped += 1
            droppedInAll += 1
        } else {
            dropped += unsent
            unsent = 0
            // Patience (`flush`) counts from when there is something to write.
            if queued.isEmpty && !writing { lastProgress = .now }
            noticed = queueNoticeIfDropped()
            queued.append(bytes)
            queuedBytes += bytes.count
            condition.broadcast()
        }
        condition.unlock()
        if noticed > 0 { onNotice(noticed) }
    }

    /// How many lines were dropped since the writer started.
    public var droppedLines: Int {
        condition.lock()
        defer { condition.unlock() }
        return droppedInAll
    }

    /// Waits until everything queued has been written, its notice included, or until the reader
    /// has taken nothing for `patience`: for a process about to exit. Returns whether all was written.
    @discardableResult
    public func flush(patience: Duration) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while !broken, writing || !queued.isEmpty || dropped > 0 {
            let waited = ContinuousClock.now - lastProgress
            guard waited < patience else { return false }
            _ = condition.wait(until: Date() + (patience - waited).timeInterval)
        }
        return !broken
    }

    /// Queues the notice of the lines dropped so far, if any; returns how many it reports. Call it
    /// with the lock held.
    private func queueNoticeIfDropped() -> Int {
        guard dropped > 0 else { return 0 }
        let count = dropped
        let line = notice(count)
        queuedNotices[queued.count] = count
        queued.append(line)
        queuedBytes += line.count
        dropped = 0
        return count
    }

    private func run() {
        while true { writeNextBatch() }
    }

    /// Waits for something to write, writes all that is queued, and says how it went. Apart
    /// from `run`'s endless loop: with this body inside it, the optimizer's loop-invariant code
    /// motion took over 15 minutes of a release build on `run` alone.
    @inline(never)
    private func writeNextBatch() {
        condition.lock()
        while queued.isEmpty && dropped == 0 || broken {
            condition.wait()
        }
        // Caught up with what was queued, the lines dropped meanwhile are said now.
        let noticed = queued.isEmpty ? queueNoticeIfDropped() : 0
        let lines = queued
        let notices = queuedNotices
        queued = []
        queuedNotices = [:]
        queuedBytes = 0
        writing = true
        lastProgress = .now
        condition.unlock()
        if noticed > 0 { onNotice(noticed) }

        let written: Bool
        switch sink {
        case .descriptor(let descriptor): written = writeAll(lines, to: descriptor)
        case .items(let send):
            let (lost, lostNotices) = Self.sendEach(lines, notices: notices, with: send)
            condition.lock()
            // Said before the next item queued: a notice sent now would fail as these did.
            // A notice refused says its count again with the next one.
            unsent += lost + lostNotices
            droppedInAll += lost
            lastProgress = .now
            condition.unlock()
            written = true
        }
        condition.lock()
        writing = false
        if !written {
            broken = true
            queued = []
            queuedNotices = [:]
            queuedBytes = 0
            dropped = 0
        }
        condition.broadcast()
        condition.unlock()
    }

    /// Sends each item; answers how many could not be sent that were items, and how many lines
    /// the notices among them that could not be sent said were dropped.
    private static func sendEach(
        _ items: [[UInt8]], notices: [Int: Int], with send: ([UInt8]) -> Bool
    ) -> (lost: Int, lostNotices: Int) {
        var lost = 0
        var lostNotices = 0
        for (index, item) in items.enumerated() where !send(item) {
            if let count = notices[index] { lostNotices += count } else { lost += 1 }
        }
        return (lost, lostNotices)
    }

    /// Writes `lines` in chunks of whole lines of up to a page (a longer line goes alone); returns
    /// false once the descriptor fails.
    private func writeAll(_ lines: [[UInt8]], to descriptor: Int32) -> Bool {
        var chunk: [UInt8] = []
        chunk.reserveCapacity(Self.atomicWrite)
        for line in lines {
            if !chunk.isEmpty, chunk.count + line.count > Self.atomicWrite {
                guard writeFully(chunk, to: descriptor) else { return false }
                chunk.removeAll(keepingCapacity: true)
            }
            chunk += line
        }
        return chunk.isEmpty || writeFully(chunk, to: descriptor)
    }

    private func writeFully(_ bytes: [UInt8], to descriptor: Int32) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let count = bytes[offset...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                return false  // A closed pipe: nobody reads any more.
            }
            offset += count
            condition.lock()
            lastProgress = .now
            condition.broadcast()
            condition.unlock()
        }
        return true
    }
}

/// The host's own log lines (swift-log's `StreamLogHandler`) through a `LineWriter`, so that
/// logging never blocks the thread that logs.
public struct LineWriterStream: TextOutputStream, Sendable {
    private let writer: LineWriter

    public init(_ writer: LineWriter) { self.writer = writer }

    public mutating func write(_ string: String) { writer.write(string) }
}
