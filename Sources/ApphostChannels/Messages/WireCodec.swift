import ApphostWire

/// The host's way into the wire's one codec (wire_messages.h, in C), which the worker uses too:
/// every message is encoded and decoded there, from the catalogue's one description of it.
enum WireCodec {
    /// `message` as a whole frame: length prefix, type, payload, and the descriptors of its "fd"
    /// fields, borrowed from the message, to send beside it. Its byte strings are read here and not
    /// kept.
    static func encode(_ message: wire_message) -> (bytes: [UInt8], descriptors: [Int32]) {
        var message = message
        // The builder's parts point into the builder itself: it must not move while in use.
        return withUnsafeTemporaryAllocation(of: frame_builder.self, capacity: 1) { builder in
            let frame = builder.baseAddress!
            wire_encode(&message, frame)
            let size = frame_size(frame)
            let bytes = [UInt8](unsafeUninitializedCapacity: size) { bytes, count in
                frame_copy(frame, bytes.baseAddress)
                count = size
            }
            let descriptors = withUnsafeBytes(of: frame.pointee.fds) { raw in
                Array(raw.bindMemory(to: Int32.self).prefix(Int(frame.pointee.fd_count)))
            }
            return (bytes, descriptors)
        }
    }

    /// Decodes `frame`, sent to `direction`'s end, and hands the message to `body`: its pointers
    /// point into the frame and live only during the call.
    static func decode<Result>(
        _ frame: WireFrame, sentTo direction: wire_direction, _ body: (wire_message) -> Result
    ) throws(WireProtocolError) -> Result {
        try frame.payload.withUnsafeBufferPointer { payload throws(WireProtocolError) in
            try decode(type: frame.type, payload: payload, sentTo: direction, body)
        }
    }

    /// Decodes a frame of `type`, sent to `direction`'s end, and hands the message to `body`: its
    /// pointers point into `payload` and live only during the call.
    static func decode<Result>(
        type: UInt8, payload: UnsafeBufferPointer<UInt8>, sentTo direction: wire_direction,
        _ body: (wire_message) -> Result
    ) throws(WireProtocolError) -> Result {
        var message = wire_message()
        var problem = wire_problem()
        // The host's end is sent no descriptors.
        guard wire_decode(direction, type, payload.baseAddress, payload.count, nil, &message, &problem) else {
            throw WireProtocolError(problem)
        }
        return body(message)
    }

    /// The bytes of `strings`, in one buffer that lives during `body`, as the wire's byte strings.
    static func withBytes<Result>(of strings: [String], _ body: ([wire_bytes]) -> Result) -> Result {
        let joined = strings.flatMap(\.utf8)
        return joined.withUnsafeBufferPointer { buffer in
            var offset = 0
            let pieces = strings.map { string in
                let length = string.utf8.count
                defer { offset += length }
                return wire_bytes(bytes: buffer.baseAddress.map { $0 + offset }, length: length)
            }
            return body(pieces)
        }
    }
}
