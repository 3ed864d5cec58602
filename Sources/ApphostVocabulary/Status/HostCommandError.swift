/// A command the host core refused or could not carry out; `description` is one line for the CLI.
///
/// Its ``kind`` says why, for the status a client branches on (CONTRACT O1): the request itself
/// was wrong, it names nothing the host has, or the host's present state refuses it.
public struct HostCommandError: Error, Sendable, Codable, Equatable, CustomStringConvertible {
    /// Why a command was refused: the same answer over every transport (the control socket's
    /// `code`, HTTP's status, the CLI's exit status).
    public enum Kind: String, Sendable, Codable, Equatable {
        /// The request is wrong whatever the host's state: a value out of range, an action's
        /// argument of the wrong type, a name over its limit, a name that fits several guests.
        case invalid
        /// It names a guest, a scene or an action the host does not have.
        case notFound = "not-found"
        /// The host's present state forbids it (not running, already suspended ...), or what the
        /// guest did while carrying it out; the same request may succeed later.
        case conflict
    }

    public var message: String
    public var kind: Kind

    public init(_ message: String, kind: Kind = .conflict) {
        self.message = message
        self.kind = kind
    }

    /// A request wrong whatever the host's state.
    public static func invalid(_ message: String) -> HostCommandError { HostCommandError(message, kind: .invalid) }
    /// A request that names something the host does not have.
    public static func notFound(_ message: String) -> HostCommandError { HostCommandError(message, kind: .notFound) }

    public var description: String { message }
}
