import ApphostVocabulary

/// One response line of the control protocol: `{"ok":true,"result":...}` or
/// `{"code":"not-found","error":"one line","ok":false}`. `Result` is `HostStatus` for `ps` and
/// `ControlMessage` for the other commands.
public struct ControlReply<Result: Codable & Sendable>: Codable, Sendable {
    public var ok: Bool
    public var result: Result?
    public var error: String?
    /// Why an error reply refused: the same on the socket and over HTTP, where it picks the status.
    public var code: ControlErrorCode?

    public static func success(_ result: Result) -> ControlReply {
        ControlReply(ok: true, result: result, error: nil, code: nil)
    }

    /// The reply as one line of JSON, without the newline.
    public var line: String { ControlCoding.line(self) }
}

extension ControlReply where Result == ControlMessage {
    public static func failure(_ error: String, code: ControlErrorCode?) -> ControlReply {
        ControlReply(ok: false, result: nil, error: error, code: code)
    }
    public static func failure(_ error: HostCommandError) -> ControlReply {
        failure(error.message, code: ControlErrorCode(error.kind))
    }
    /// A request the host could not read or that breaks a verb's rules: always `invalid`.
    public static func failure(_ error: ControlProtocolError) -> ControlReply { failure(error.message, code: .invalid) }
    public static func message(_ text: String) -> ControlReply { .success(ControlMessage(message: text)) }
    /// What the host answers every command but those ``ControlCommand/answeredDuringShutdown``
    /// once its shutdown has begun.
    public static var shuttingDown: ControlReply { .failure("the host is shutting down", code: .unavailable) }

    /// Whether a reply line, of any result type, says success; without decoding it: keys are
    /// sorted (ControlCoding), so a success begins {"ok":true and an error {"code".
    public static func succeeded(_ line: String) -> Bool { line.hasPrefix(#"{"ok":true"#) }

    /// The code of an error reply line, read from its start without decoding the line (keys are
    /// sorted, and `code` comes first); nil for a success or a line without one.
    public static func code(of line: String) -> ControlErrorCode? {
        let prefix = #"{"code":""#
        guard line.hasPrefix(prefix) else { return nil }
        let rest = line.utf8.dropFirst(prefix.utf8.count)
        guard let end = rest.firstIndex(of: UInt8(ascii: "\"")) else { return nil }
        return ControlErrorCode(rawValue: String(decoding: rest[..<end], as: UTF8.self))
    }
}

/// Why the host refused a request, on every error reply (CONTRACT O1): a client branches on it
/// as an HTTP client does on the status, and `apphost ctl` picks its exit status by it. A value
/// this build does not know (a newer host's) reads as itself.
public struct ControlErrorCode: RawRepresentable, Codable, Sendable, Hashable, CustomStringConvertible {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// A malformed request, or one that breaks a verb's rules (a value out of range, a member
    /// the verb does not have, an action's argument of the wrong type): HTTP 400.
    public static let invalid = ControlErrorCode(rawValue: "invalid")
    /// No such guest, scene or action: HTTP 404.
    public static let notFound = ControlErrorCode(rawValue: "not-found")
    /// Refused in the host's present state (not running, already suspended ...): HTTP 409.
    public static let conflict = ControlErrorCode(rawValue: "conflict")
    /// The host shuts down, or cannot serve this follower any longer: HTTP 503.
    public static let unavailable = ControlErrorCode(rawValue: "unavailable")

    public init(_ kind: HostCommandError.Kind) { self.init(rawValue: kind.rawValue) }

    public var description: String { rawValue }
}

/// The result of a command that only changes something: what the host did, in words.
public struct ControlMessage: Codable, Sendable, Equatable {
    public var message: String
    public init(message: String) { self.message = message }
}
