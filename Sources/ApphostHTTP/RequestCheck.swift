import Hummingbird

/// A check of each request before it is routed: it lets the request through (nil) or answers it
/// with a refusal. ``Checked`` runs one as the router's middleware, so that each check says only
/// what it refuses.
protocol RequestCheck: Sendable {
    func refusal(of request: Request) -> Response?
}

/// Runs a ``RequestCheck``: a refused request goes no further.
struct Checked<Check: RequestCheck>: RouterMiddleware {
    typealias Context = HostRequestContext
    let check: Check

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        if let refusal = check.refusal(of: request) { return refusal }
        return try await next(request, context)
    }
}
