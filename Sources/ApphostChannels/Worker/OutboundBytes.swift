import Glibc

/// What a channel writes to its worker's socket, in order, without ever blocking: written
/// straight while nothing waits, and kept when the worker does not read (busy, or frozen) until
/// the socket takes it again. Never raises SIGPIPE.
struct OutboundBytes {
    /// Where the bytes stand after a write or a flush.
    enum Progress: Equatable {
        /// All written.
        case written
        /// Some are kept: flush when the socket is writable again.
        case waiting
        /// The worker is gone: what is kept is dropped, and later writes too; its end of file,
        /// after what it sent last, reports it.
        case broken
    }

    private var bytes: [UInt8] = []
    /// Where the unwritten bytes start in `bytes`; written ones are dropped in batches.
    private var start = 0
    private(set) var isBroken = false

    /// Writes `more` after what waits, or keeps it behind.
    mutating func write(_ more: [UInt8], to descriptor: Int32) -> Progress {
        guard !isBroken else { return .broken }
        guard start == bytes.count else {
            bytes.append(contentsOf: more)
            return .waiting
        }
        bytes = more
        start = 0
        return flush(to: descriptor)
    }

    /// Writes what waits, as much as the socket takes.
    mutating func flush(to descriptor: Int32) -> Progress {
        while start < bytes.count, !isBroken {
            let count = bytes[start...].withUnsafeBytes {
                Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if count > 0 {
                start += count
            } else if count < 0, errno == EINTR {
                continue
            } else if count < 0, errno == EAGAIN {
                if start >= 1 << 20, start * 2 >= bytes.count {
                    bytes.removeFirst(start)
                    start = 0
                }
                return .waiting
            } else {
                isBroken = true
            }
        }
        discard()
        return isBroken ? .broken : .written
    }

    /// Drops what waits.
    mutating func discard() {
        bytes = []
        start = 0
    }
}
