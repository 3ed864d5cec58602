import ApphostGuestRuntime
import ApphostVocabulary
import ApphostWire

/// What the host sends a worker (apphost_wire.h, "Host to worker"), encoded by the wire's codec.
enum HostToWorkerMessage: Sendable, Equatable {
    case load(path: String, guestsDirectory: String, hostName: String, hostVersion: String)
    case start(dataDirectory: String)
    case call(sequence: UInt64, GuestMessage)
    case stop

    /// The whole frame: length prefix, type, payload; for a message that carries no descriptor.
    var encoded: [UInt8] {
        var bytes: [UInt8] = []
        // Room for LOAD's paths, most often: the frame is encoded once.
        var size = 1024
        repeat {
            bytes = [UInt8](repeating: 0, count: size)
            size = bytes.withUnsafeMutableBytes { encode(into: $0).size }
        } while size > bytes.count
        return Array(bytes.prefix(size))
    }

    /// Writes the whole frame into `room` when it fits, and says how large it is (when larger than
    /// `room`, nothing was written: encode again into as much), with the descriptors that go
    /// beside it.
    ///
    /// A call, the frame sent most, is encoded by `wire_encode_call` straight into `room`: after an
    /// idle moment every page an encoding touches costs a cache and a TLB miss, and the way through
    /// a `wire_message` zeroed and copied 5.8 KB and allocated a 10 KB builder on the heap
    /// (Benchmarks/README.md, sporadic).
    func encode(into room: UnsafeMutableRawBufferPointer) -> EncodedFrame {
        switch self {
        case .load(let path, let guestsDirectory, let hostName, let hostVersion):
            var message = wire_message()
            message.type = UInt8(APPHOST_WIRE_LOAD.rawValue)
            return WireCodec.withBytes(of: [path, guestsDirectory, hostName, hostVersion]) { strings in
                message.body.load = wire_load(
                    path: strings[0], guests_directory: strings[1], host_name: strings[2], host_version: strings[3])
                return Self.encode(message, into: room)
            }
        case .start(let dataDirectory):
            var message = wire_message()
            message.type = UInt8(APPHOST_WIRE_START.rawValue)
            return WireCodec.withBytes(of: [dataDirectory]) { strings in
                message.body.start = wire_start(data_directory: strings[0])
                return Self.encode(message, into: room)
            }
        case .call(let sequence, let guestMessage):
            return RuntimeCall.with(guestMessage) { call in
                withUnsafeTemporaryAllocation(of: Int32.self, capacity: Int(FRAME_MAX_FDS)) { fds in
                    var count: Int32 = 0
                    let size = wire_encode_call(
                        sequence, call, room.baseAddress?.assumingMemoryBound(to: UInt8.self), room.count,
                        fds.baseAddress, &count)
                    guard size <= room.count, count > 0, case .audioStream(let handle) = guestMessage.call else {
                        return EncodedFrame(size: size)
                    }
                    // Sent beside the frame's first byte; the stream keeps them open until then.
                    return EncodedFrame(size: size, descriptors: Array(fds.prefix(Int(count))), owner: handle.stream)
                }
            }
        case .stop:
            var message = wire_message()
            message.type = UInt8(APPHOST_WIRE_STOP.rawValue)
            return Self.encode(message, into: room)
        }
    }

    private static func encode(_ message: wire_message, into room: UnsafeMutableRawBufferPointer) -> EncodedFrame {
        let (bytes, descriptors) = WireCodec.encode(message)
        guard bytes.count <= room.count else { return EncodedFrame(size: bytes.count) }
        room.copyBytes(from: bytes)
        return EncodedFrame(size: bytes.count, descriptors: descriptors)
    }
}

/// A frame written into the room it was given: its size, and the descriptors sent beside its
/// first byte (SCM_RIGHTS, apphost_wire.h), which `owner` keeps open until then.
struct EncodedFrame {
    var size: Int
    var descriptors: [Int32] = []
    var owner: AnyObject? = nil
}
