/// A request the control server could not understand; `description` is the one-line error it answers with.
public struct ControlProtocolError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
