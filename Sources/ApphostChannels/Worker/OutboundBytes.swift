import Glibc

/// What a channel writes to its worker's socket, in order, without ever blocking: written
/// straight while nothing waits, and kept when the worker does not read (busy, or frozen) until
/// the socket takes it again. Never raises SIGPIPE.
struct OutboundBytes {
    /// Where the bytes stand after a flush.
    enum Progress: Equatable {
        /// All written.
        case written
        /// Some are kept: flush when the socket is writable again.
        case waiting
        /// The worker is gone: what is kept is dropped, and later frames too; its end of file,
        /// after what it sent last, reports it.
        case broken
    }

    /// Descriptors to send with the byte at `offset` of `bytes`, a frame's first.
    private struct Attachment {
        var offset: Int
        var descriptors: [Int32]
        var owner: AnyObject?
    }

    private var bytes: [UInt8] = []
    /// Where the unwritten bytes start in `bytes`; written ones are dropped in batches.
    private var start = 0
    /// In offset order; each is dropped (its owner released) once its byte is sent.
    private var attachments: [Attachment] = []
    private(set) var isBroken = false

    /// What `bytes` keeps allocated once all is written: a call's frame is a few dozen bytes, and
    /// reusing the buffer spares an allocation per call; a larger one (a scene's restoration
    /// state, a burst held for a frozen guest) is released.
    private static let keptCapacity = 4096

    /// Puts a frame behind what waits: `encode` writes it into the room it is given, or says how
    /// much it needs (as `HostToWorkerMessage.encode(into:)` does). `flush` writes it.
    mutating func append(_ encode: (UnsafeMutableRawBufferPointer) -> EncodedFrame) {
        guard !isBroken else { return }
        let offset = bytes.count
        // A call's frame is a few dozen bytes: encoded on the stack, then copied once. (Swift
        // puts a temporary allocation of 1 KB or less on the stack; on Linux, a larger one is a
        // malloc.)
        var frame = withUnsafeTemporaryAllocation(byteCount: 256, alignment: 8) { room in
            let frame = encode(room)
            if frame.size <= room.count {
                bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: room[..<frame.size]))
            }
            return frame
        }
        if bytes.count == offset {
            var large = [UInt8](repeating: 0, count: frame.size)
            frame = large.withUnsafeMutableBytes { encode($0) }
            bytes += large
        }
        if !frame.descriptors.isEmpty {
            attachments.append(Attachment(offset: offset, descriptors: frame.descriptors, owner: frame.owner))
        }
    }

    /// Writes what waits, as much as the socket takes.
    mutating func flush(to descriptor: Int32) -> Progress {
        while start < bytes.count, !isBroken {
            let count = sendNext(to: descriptor)
            if count > 0 {
                start += count
            } else if count < 0, errno == EINTR {
                continue
            } else if count < 0, errno == EAGAIN {
                if start >= 1 << 20, start * 2 >= bytes.count {
                    bytes.removeFirst(start)
                    for index in attachments.indices { attachments[index].offset -= start }
                    start = 0
                }
                return .waiting
            } else {
                isBroken = true
            }
        }
        guard !isBroken else {
            discard()
            return .broken
        }
        bytes.removeAll(keepingCapacity: bytes.capacity <= Self.keptCapacity)
        start = 0
        return .written
    }

    /// Hands all that waits to `write`, for a transport that is no socket (the tests' in-memory
    /// one), which takes every byte; the descriptors are dropped, and their owners close them.
    mutating func flush(into write: (UnsafeRawBufferPointer) -> Void) -> Progress {
        guard !isBroken else { return .broken }
        bytes[start...].withUnsafeBytes(write)
        discard()
        return .written
    }

    /// Drops what waits, and the descriptors it would have sent.
    mutating func discard() {
        bytes = []
        start = 0
        attachments = []
    }

    /// One send(2) of the bytes up to the next attachment, or one sendmsg(2) of an attachment's
    /// descriptors with the bytes from its offset up to the next one: a descriptor goes with its
    /// frame's first byte, so the worker has it by the time it reads that frame.
    private mutating func sendNext(to descriptor: Int32) -> Int {
        let end = attachments.first(where: { $0.offset > start })?.offset ?? bytes.count
        guard let attachment = attachments.first, attachment.offset == start else {
            return bytes[start..<end].withUnsafeBytes {
                Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
        }
        let count = bytes[start..<end].withUnsafeBytes { payload in
            sendWithDescriptors(payload, attachment.descriptors, to: descriptor)
        }
        if count > 0 { attachments.removeFirst() }
        return count
    }
}
