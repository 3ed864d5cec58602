import Hummingbird

/// What a request needs of ``HTTPTokens``, by its method and path: nothing for the health probes
/// and the page's own files, which tell nothing; the read-only token for what only reads; the
/// control token for everything else, unknown paths included.
struct RouteAccess: Sendable {
    /// Served without a token.
    let openPaths: Set<String>
    static let healthPaths: Set<String> = ["/healthz", "/readyz"]
    static let readPaths: Set<String> = ["/v1/guests", "/v1/host", "/v1/events", "/v1/version", "/metrics"]

    init(webPaths: Set<String>) { openPaths = webPaths.union(Self.healthPaths) }

    func required(method: HTTPRequest.Method, path: String) -> HTTPTokens.Access {
        if openPaths.contains(path) { return .none }
        if method == .get || method == .head, Self.readPaths.contains(path) { return .read }
        return .control
    }
}

/// Asks for a bearer token where ``RouteAccess`` says (CONTRACT O1): a missing or wrong one is 401,
/// a read-only one where control is needed 403, and the request goes no further.
struct TokenCheck: RequestCheck {
    let tokens: HTTPTokens
    let routes: RouteAccess

    func refusal(of request: Request) -> Response? {
        let required = routes.required(method: request.method, path: request.uri.path)
        let authorization = request.headers[.authorization]
        let granted = tokens.access(authorization: authorization)
        if granted >= required { return nil }
        if granted == .read {
            return JSONReply.failure(
                "the read-only token cannot \(request.method.rawValue) \(request.uri.path): it needs the control token",
                status: .forbidden)
        }
        return JSONReply.failure(
            authorization != nil ? "wrong bearer token" : "this host needs a bearer token (Authorization: Bearer ...)",
            status: .unauthorized, headers: [.wwwAuthenticate: "Bearer realm=\"apphost\""])
    }
}
