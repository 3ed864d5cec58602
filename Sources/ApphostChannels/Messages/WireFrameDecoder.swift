/// Cuts a byte stream into frames. Bytes arrive in arbitrary pieces; a frame comes out once all of
/// it has arrived. A declared length over `WireFrame.maxLength` (or zero) is a protocol error as
/// soon as the length itself has arrived, so a broken peer cannot make the host buffer without
/// bound.
struct WireFrameDecoder: Sendable {
    private var buffer: [UInt8] = []
    /// Where the next undecoded byte is in `buffer`; consumed bytes are dropped in batches.
    private var start = 0

    init() {}

    mutating func append(_ bytes: some Sequence<UInt8>) {
        buffer.append(contentsOf: bytes)
    }

    /// Bytes received but not yet part of a whole frame.
    var bufferedCount: Int { buffer.count - start }

    /// The next whole frame, or nil until more bytes arrive.
    mutating func next() throws(WireProtocolError) -> WireFrame? {
        try next { type, payload in WireFrame(type: type, payload: Array(payload)) }
    }

    /// Hands the next whole frame's type and payload to `body`, without copying them (the payload
    /// lives during the call), or returns nil until more bytes arrive.
    mutating func next<Result>(
        _ body: (_ type: UInt8, _ payload: UnsafeBufferPointer<UInt8>) throws(WireProtocolError) -> Result
    ) throws(WireProtocolError) -> Result? {
        guard bufferedCount >= WireFrame.headerSize else { return nil }
        // Little-endian, as every integer of the wire.
        let length = buffer[start..<start + WireFrame.headerSize].reversed().reduce(0) { $0 << 8 | Int($1) }
        guard length >= 1 else { throw WireProtocolError("a frame of length 0 has no type") }
        guard length <= WireFrame.maxLength else {
            throw WireProtocolError("a frame of \(length) bytes exceeds the maximum of \(WireFrame.maxLength)")
        }
        guard bufferedCount >= WireFrame.headerSize + length else { return nil }
        let typeIndex = start + WireFrame.headerSize
        let result = try buffer.withUnsafeBufferPointer { bytes throws(WireProtocolError) in
            try body(bytes[typeIndex], UnsafeBufferPointer(rebasing: bytes[typeIndex + 1..<typeIndex + length]))
        }
        start = typeIndex + length
        compact()
        return result
    }

    private mutating func compact() {
        if start == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            start = 0
        } else if start > 65536, start > buffer.count / 2 {
            buffer.removeFirst(start)
            start = 0
        }
    }
}
