import ApphostWire

/// A worker channel's frames both ways: the bytes read from the worker cut into frames and
/// decoded, and the frames for the worker encoded behind what waits to be written. It holds
/// bytes only; the transport moves them and the state decides what they mean.
struct WorkerFraming {
    /// A frame from the worker, decoded.
    enum Frame {
        /// A REPLY, the frame read most, decoded without a `WorkerToHostMessage` made and
        /// destroyed: after an idle moment that took some 5 us of a sporadic round trip.
        case reply(sequence: UInt64, status: Int32)
        /// Every other frame, with its type for the protocol error of one not allowed now.
        case message(WorkerToHostMessage, type: UInt8)
    }

    /// What was read and not yet decoded; from the handshake, the bytes read past its last answer.
    private var decoder: WireFrameDecoder
    /// What is written to the worker; once it is broken (the worker closed its end, or the
    /// socket failed) nothing more is, and the read side drains what the worker sent before it went.
    var outbound = OutboundBytes()

    init(decoder: WireFrameDecoder = WireFrameDecoder()) {
        self.decoder = decoder
    }

    /// Bytes read from the worker.
    mutating func received(_ bytes: UnsafeRawBufferPointer) {
        decoder.append(bytes)
    }

    /// The next whole frame received, decoded where it lies in the decoder's buffer; nil until
    /// more bytes arrive.
    mutating func next() throws(WireProtocolError) -> Frame? {
        try decoder.next { (type, payload) throws(WireProtocolError) -> Frame in
            if type == UInt8(APPHOST_WIRE_REPLY.rawValue) {
                let reply = try WorkerToHostMessage.reply(from: payload)
                return .reply(sequence: reply.sequence, status: reply.status)
            }
            return .message(try WorkerToHostMessage(type: type, payload: payload), type: type)
        }
    }

    /// Puts `message`'s frame behind what waits to be written.
    mutating func append(_ message: HostToWorkerMessage) {
        outbound.append { message.encode(into: $0) }
    }

    /// Drops what waits: the connection is over.
    mutating func discard() {
        outbound.discard()
    }
}
