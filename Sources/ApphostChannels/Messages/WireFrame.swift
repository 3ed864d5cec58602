import ApphostWire

/// One frame of the wire protocol (apphost_wire.h): a type byte and its payload. On the wire it
/// is preceded by a little-endian u32 counting the type byte and the payload.
struct WireFrame: Sendable, Equatable {
    /// `APPHOST_WIRE_MAX_FRAME`: the largest length a frame may declare.
    static let maxLength = Int(APPHOST_WIRE_MAX_FRAME)
    static let headerSize = MemoryLayout<UInt32>.size

    var type: UInt8
    var payload: [UInt8]

    init(type: UInt8, payload: [UInt8]) {
        self.type = type
        self.payload = payload
    }
}
