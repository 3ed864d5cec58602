/// Why the host service could not start; `description` is one line for the CLI.
public struct HostServiceError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
