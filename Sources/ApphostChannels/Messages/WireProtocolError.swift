import ApphostWire

/// A frame or payload that breaks apphost_wire.h: the peer is broken or not a worker of this
/// host, so the connection cannot go on. `description` is one line.
struct WireProtocolError: Error, Sendable, Equatable, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }

    /// What the wire's decoder said of a payload it refused.
    init(_ problem: wire_problem) {
        description = withUnsafeBytes(of: problem.text) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }
}
