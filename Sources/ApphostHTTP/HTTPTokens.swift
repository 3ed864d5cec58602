import Synchronization

/// The HTTP API's bearer tokens (CONTRACT O1): the control token, good for every request, and a
/// read-only one, good for what only reads (``RouteAccess``), for a dashboard or a Prometheus
/// scraper that must not be able to terminate guests. Each is read from its file at start and
/// again on ``reload()`` (SIGHUP), so that rotating a token needs no restart.
public final class HTTPTokens: Sendable {
    /// What a request's `Authorization` header lets it do.
    public enum Access: Int, Sendable, Comparable {
        case none, read, control
        public static func < (a: Access, b: Access) -> Bool { a.rawValue < b.rawValue }
    }

    private let control: TokenFile?
    private let read: TokenFile?

    /// No token: every request is let through (loopback only, ``HTTPBinding/checkAccess(tokens:)``).
    public init() {
        control = nil
        read = nil
    }

    /// Reads both files; a read-only token needs a control token beside it, or nothing could
    /// drive the host over HTTP.
    public init(controlFile: String?, readFile: String? = nil) throws(HTTPSetupError) {
        if readFile != nil, controlFile == nil {
            throw HTTPSetupError("--http-read-token-file needs --http-token-file")
        }
        control = try controlFile.map { path throws(HTTPSetupError) in try TokenFile(path: path, role: "control") }
        read = try readFile.map { path throws(HTTPSetupError) in try TokenFile(path: path, role: "read-only") }
    }

    /// Whether any token is asked for.
    public var isEmpty: Bool { control == nil }

    /// What `authorization` (the header's value) may do: everything without tokens.
    func access(authorization: String?) -> Access {
        guard let control else { return .control }
        if control.token.accepts(authorization: authorization) { return .control }
        if let read, read.token.accepts(authorization: authorization) { return .read }
        return .none
    }

    /// Reads each token file again. A file that can no longer be read, or has become readable by
    /// others, keeps the token it held and fails with why; the other file is still read.
    public func reload() -> [Result<String, HTTPSetupError>] {
        [control, read].compactMap { $0?.reload() }
    }
}

/// One token file and the token last read from it.
private final class TokenFile: Sendable {
    let path: String
    let role: String
    private let current: Mutex<BearerToken>

    init(path: String, role: String) throws(HTTPSetupError) {
        self.path = path
        self.role = role
        current = Mutex(try BearerToken(file: path))
    }

    var token: BearerToken { current.withLock { $0 } }

    func reload() -> Result<String, HTTPSetupError> {
        do throws(HTTPSetupError) {
            let token = try BearerToken(file: path)
            let changed = current.withLock { old in
                defer { old = token }
                return old.bytes != token.bytes
            }
            return .success("read the \(role) token again from \(path)\(changed ? ": a new token" : ": unchanged")")
        } catch {
            return .failure(HTTPSetupError("kept the \(role) token: \(error.message)"))
        }
    }
}
