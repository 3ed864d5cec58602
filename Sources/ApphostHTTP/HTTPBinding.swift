/// Where the HTTP API listens: `--http [ADDR:]PORT`. A port alone means loopback; an address may
/// be an IPv4 or a bracketed IPv6 literal, or `localhost` (CONTRACT O1: loopback unless told).
public struct HTTPBinding: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: Int

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Parses `PORT`, `ADDR:PORT` or `[IPV6]:PORT`; the error is one line for the CLI.
    public init(parsing text: String) throws(HTTPSetupError) {
        let bad = HTTPSetupError(
            "--http \(text): expected PORT, ADDRESS:PORT or [IPV6]:PORT, such as 8080 or 127.0.0.1:8080")
        var host = "127.0.0.1"
        var portText = Substring(text)
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else {
                throw bad
            }
            host = String(text[text.index(after: text.startIndex)..<close])
            portText = text[text.index(close, offsetBy: 2)...]
        } else if let colon = text.lastIndex(of: ":") {
            host = String(text[..<colon])
            portText = text[text.index(after: colon)...]
        }
        guard !host.isEmpty, let port = Int(portText), (0...65535).contains(port) else { throw bad }
        self.init(host: host, port: port)
    }

    /// 127.0.0.0/8, ::1 and localhost: only this machine can connect.
    public var isLoopback: Bool {
        if host == "localhost" || host == "::1" { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
    }

    /// 0.0.0.0 or ::: every address of the machine.
    public var isWildcard: Bool { host == "0.0.0.0" || host == "::" }

    /// Refuses an address others can reach without a token to ask for (CONTRACT O1).
    public func checkAccess(tokens: HTTPTokens) throws(HTTPSetupError) {
        guard isLoopback || !tokens.isEmpty else {
            throw HTTPSetupError(
                "--http \(self) is not a loopback address: anyone who reaches it could drive the host; give --http-token-file"
            )
        }
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

/// Why the HTTP API could not start; `description` is one line for the CLI.
public struct HTTPSetupError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
