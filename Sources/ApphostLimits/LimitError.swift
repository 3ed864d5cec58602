/// Why a limit could not be parsed or put on a worker: one line, for the operator (CONTRACT X2).
public struct LimitError: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
