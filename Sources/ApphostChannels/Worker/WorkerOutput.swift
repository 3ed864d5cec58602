import ApphostExecutors
import ApphostVocabulary
import CApphost
import Dispatch
import Glibc

/// A worker's standard output and standard error: pipes whose write ends are its descriptors 1
/// and 2, read by the host on its event loop, as a service manager reads its services'. Each
/// line becomes a log event of the guest (info from standard output, warning from standard
/// error), so a guest can neither print among the host's events nor pass a line for one
/// (CONTRACT X2).
///
/// Lines are cut at `APPHOST_LOG_MESSAGE_MAX_BYTES` (a longer one goes in several pieces), bytes
/// that are not UTF-8 are replaced with U+FFFD, and a carriage return before the newline is
/// dropped. Lines reach the host queue a few at a time, each batch with `executeAndWait` on the
/// loop's thread (at once where the host queue is the loop), as the worker channel delivers: a
/// guest that prints faster than the host takes it fills its pipe and waits in its own write, as
/// it waits on its socket when it logs too fast, and never makes the host queue more than a batch
/// behind.
final class WorkerOutput: @unchecked Sendable {
    typealias LineHandler = @Sendable (GuestLogLevel, String) -> Void

    static let maximumLineBytes = Int(APPHOST_LOG_MESSAGE_MAX_BYTES)
    /// Read at a time, so that one guest's flood leaves the loop to the other workers between reads.
    private static let readSize = 16384
    /// Delivered with one `executeAndWait`: the host queue runs other work between batches.
    private static let linesPerBatch = 64

    private struct Stream {
        let descriptor: Int32
        let level: GuestLogLevel
        var token: HostEventLoop.Token?
        /// The start of a line whose newline has not arrived yet.
        var partial: [UInt8] = []
        var open = true
    }

    // `streams` is guarded by `lock`, which is held while lines are delivered, so that the loop
    // and `drain` deliver them in the order they were read.
    private let lock = WorkerLock()
    private var streams: [Stream]
    private let hostQueue: any HostExecutor
    private let handleLine: LineHandler
    private let loop = HostEventLoop.shared

    /// Takes over the read ends `standardOutput` and `standardError` (close-on-exec), makes them
    /// non-blocking and starts reading them; `handleLine` gets each line on the host queue. The
    /// descriptors are closed at their end of file, once every process that holds the write end
    /// (the worker, and whatever the guest started) has closed it.
    init(standardOutput: Int32, standardError: Int32, hostQueue: any HostExecutor, handleLine: @escaping LineHandler) {
        self.hostQueue = hostQueue
        self.handleLine = handleLine
        streams = [
            Stream(descriptor: standardOutput, level: .info), Stream(descriptor: standardError, level: .warning),
        ]
        lock.withLock {
            for index in streams.indices {
                let descriptor = streams[index].descriptor
                _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
                streams[index].token = loop.register(descriptor: descriptor) { [self] _, buffer in
                    lock.withLock { _ = read(index, into: buffer) }
                }
            }
        }
    }

    /// Delivers what the worker has written so far, before the caller tells the host what comes
    /// after it: once the library is loaded (what its constructors printed is named by its path,
    /// before the guest is identified), and once the worker has exited (its last words come
    /// before its end, with `finishingLines`, an unfinished line included). What a process the
    /// guest started writes later still comes, as it arrives. Never call it on the host queue.
    ///
    /// Where the host queue is the event loop, it drains on the loop: holding the lock while it
    /// waited for the loop to take the lines would deadlock with a handler of the loop's waiting
    /// for the lock.
    func drain(finishingLines: Bool) {
        if HostEventLoop.isHostQueue(hostQueue) {
            hostQueue.executeAndWait { drainHere(finishingLines: finishingLines) }
        } else {
            drainHere(finishingLines: finishingLines)
        }
    }

    private func drainHere(finishingLines: Bool) {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.readSize, alignment: 16)
        defer { buffer.deallocate() }
        lock.withLock {
            for index in streams.indices {
                while streams[index].open, read(index, into: buffer) {}
                if finishingLines, streams[index].open { finishLine(index) }
            }
        }
    }

    /// Reads once from stream `index` and delivers the lines it completed; returns whether more
    /// may be waiting. Call it with the lock held.
    private func read(_ index: Int, into buffer: UnsafeMutableRawBufferPointer) -> Bool {
        guard streams[index].open else { return false }
        let count = Glibc.read(streams[index].descriptor, buffer.baseAddress, min(buffer.count, Self.readSize))
        if count < 0 {
            if errno == EINTR || errno == EAGAIN { return errno == EINTR }
            end(index)
            return false
        }
        if count == 0 {
            end(index)
            return false
        }
        var lines: [String] = []
        for byte in UnsafeRawBufferPointer(rebasing: buffer[..<count]) {
            if byte == UInt8(ascii: "\n") {
                lines += Self.messages(from: streams[index].partial[...])
                streams[index].partial.removeAll(keepingCapacity: true)
            } else {
                streams[index].partial.append(byte)
                if streams[index].partial.count == Self.maximumLineBytes {
                    lines += Self.cutLongLine(&streams[index].partial)
                }
            }
        }
        deliver(lines, level: streams[index].level)
        return count == min(buffer.count, Self.readSize)
    }

    /// End of file, or a failed read: the unfinished line, then the descriptor goes.
    private func end(_ index: Int) {
        finishLine(index)
        streams[index].open = false
        if let token = streams[index].token { loop.unregister(descriptor: streams[index].descriptor, token: token) }
        close(streams[index].descriptor)
    }

    private func finishLine(_ index: Int) {
        guard !streams[index].partial.isEmpty else { return }
        deliver(Self.messages(from: streams[index].partial[...]), level: streams[index].level)
        streams[index].partial.removeAll()
    }

    private func deliver(_ lines: [String], level: GuestLogLevel) {
        var start = 0
        while start < lines.count {
            let batch = lines[start..<min(start + Self.linesPerBatch, lines.count)]
            hostQueue.executeAndWait { [handleLine] in for line in batch { handleLine(level, line) } }
            start = batch.endIndex
        }
    }

    /// A full line buffer without a newline: sends its first piece, cut before a character that
    /// does not fit, and keeps the rest.
    private static func cutLongLine(_ partial: inout [UInt8]) -> [String] {
        // A character that starts in the last 3 bytes may go on past them: it goes to the next piece.
        var start = partial.count - 1
        while start > partial.count - 4, partial[start] & 0xC0 == 0x80 { start -= 1 }
        let cut = partial[start] & 0xC0 == 0xC0 ? start : partial.count
        let piece = messages(from: partial[..<cut])
        partial.removeFirst(cut)
        return piece
    }

    /// The log messages of one line: repaired, and cut again where the repair made it longer than
    /// a message may be (each bad byte becomes three).
    static func messages(from line: ArraySlice<UInt8>) -> [String] {
        var bytes = line
        if bytes.last == UInt8(ascii: "\r") { bytes = bytes.dropLast() }
        let text = String(decoding: bytes, as: UTF8.self)
        guard text.utf8.count > maximumLineBytes else { return [text] }
        var pieces: [String] = []
        var piece = ""
        var length = 0
        for scalar in text.unicodeScalars {
            let size = String(scalar).utf8.count
            if length + size > maximumLineBytes {
                pieces.append(piece)
                piece = ""
                length = 0
            }
            piece.unicodeScalars.append(scalar)
            length += size
        }
        pieces.append(piece)
        return pieces
    }
}
