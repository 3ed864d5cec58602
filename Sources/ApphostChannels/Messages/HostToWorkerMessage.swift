import ApphostCore
import ApphostGuestRuntime
import ApphostWire

/// What the host sends a worker (apphost_wire.h, "Host to worker"), encoded by the wire's codec.
enum HostToWorkerMessage: Sendable, Equatable {
    case load(path: String, guestsDirectory: String, hostName: String, hostVersion: String)
    case start(dataDirectory: String)
    case call(sequence: UInt64, GuestMessage)
    case stop

    /// The whole frame: length prefix, type, payload; for a message that carries no descriptor.
    var encoded: [UInt8] { frame.bytes }

    /// The whole frame, with the descriptors an AUDIO_STREAM call carries and the stream that keeps
    /// them open until they are sent.
    var frame: OutboundFrame {
        var message = wire_message()
        switch self {
        case .load(let path, let guestsDirectory, let hostName, let hostVersion):
            message.type = UInt8(APPHOST_WIRE_LOAD.rawValue)
            return WireCodec.withBytes(of: [path, guestsDirectory, hostName, hostVersion]) { strings in
                message.body.load = wire_load(
                    path: strings[0], guests_directory: strings[1], host_name: strings[2], host_version: strings[3])
                return OutboundFrame(bytes: WireCodec.encode(message).bytes)
            }
        case .start(let dataDirectory):
            message.type = UInt8(APPHOST_WIRE_START.rawValue)
            return WireCodec.withBytes(of: [dataDirectory]) { strings in
                message.body.start = wire_start(data_directory: strings[0])
                return OutboundFrame(bytes: WireCodec.encode(message).bytes)
            }
        case .call(let sequence, let guestMessage):
            message.type = UInt8(APPHOST_WIRE_CALL.rawValue)
            return RuntimeCall.with(guestMessage) { call in
                message.body.call.sequence = sequence
                message.body.call.call = call.pointee
                let (bytes, descriptors) = WireCodec.encode(message)
                guard case .audioStream(let handle) = guestMessage.call else { return OutboundFrame(bytes: bytes) }
                return OutboundFrame(bytes: bytes, descriptors: descriptors, owner: handle.stream)
            }
        case .stop:
            message.type = UInt8(APPHOST_WIRE_STOP.rawValue)
            return OutboundFrame(bytes: WireCodec.encode(message).bytes)
        }
    }
}
