/// A frame or payload that breaks apphost_wire.h: the peer is broken or not a worker of this
/// host, so the connection cannot go on. `description` is one line.
struct WireProtocolError: Error, Sendable, Equatable, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
