/// A command the host core refused or could not carry out; `description` is one line for the CLI.
public struct HostCommandError: Error, Sendable, Codable, Equatable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
