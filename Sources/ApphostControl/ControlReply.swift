/// One response line of the control protocol: `{"ok":true,"result":...}` or
/// `{"ok":false,"error":"one line"}`. `Result` is `HostStatus` for `ps` and `ControlMessage` for the
/// other commands.
public struct ControlReply<Result: Codable & Sendable>: Codable, Sendable {
    public var ok: Bool
    public var result: Result?
    public var error: String?

    public static func success(_ result: Result) -> ControlReply { ControlReply(ok: true, result: result, error: nil) }

    /// The reply as one line of JSON, without the newline.
    public var line: String { ControlCoding.line(self) }
}

extension ControlReply where Result == ControlMessage {
    public static func failure(_ error: String) -> ControlReply { ControlReply(ok: false, result: nil, error: error) }
    public static func message(_ text: String) -> ControlReply { .success(ControlMessage(message: text)) }
    /// What the host answers every command but those ``ControlCommand/answeredDuringShutdown``
    /// once its shutdown has begun.
    public static var shuttingDown: ControlReply { .failure("the host is shutting down") }

    /// Whether a reply line, of any result type, says success; without decoding it: keys are
    /// sorted (ControlCoding), so a success begins {"ok":true and an error {"error".
    public static func succeeded(_ line: String) -> Bool { line.hasPrefix(#"{"ok":true"#) }
}

/// The result of a command that only changes something: what the host did, in words.
public struct ControlMessage: Codable, Sendable, Equatable {
    public var message: String
    public init(message: String) { self.message = message }
}
