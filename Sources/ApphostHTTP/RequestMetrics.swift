import Hummingbird

/// What the HTTP server tells the host's metrics (CONTRACT O2): each request by route and status,
/// how many follow the event stream, and followers dropped for falling behind. Closures, so that
/// the server knows nothing of the metrics' registry; by default they do nothing.
public struct HTTPMetricsSink: Sendable {
    public var request: @Sendable (_ route: String, _ status: Int) -> Void
    public var followers: @Sendable (_ count: Int) -> Void
    public var followerDropped: @Sendable () -> Void

    public init(
        request: @escaping @Sendable (_ route: String, _ status: Int) -> Void = { _, _ in },
        followers: @escaping @Sendable (_ count: Int) -> Void = { _ in },
        followerDropped: @escaping @Sendable () -> Void = {}
    ) {
        self.request = request
        self.followers = followers
        self.followerDropped = followerDropped
    }
}

/// Counts every request once its response begins (an event stream's at its start, not when it
/// ends), by the route it matched and its status. The route is the router's pattern
/// (`/v1/{verb}`), never the path asked for, and `unmatched` where no route matched (refused
/// before routing, or not found): a client cannot make a series per path it invents. Statuses
/// are the server's few. First of the middlewares, so that what the others refuse is counted.
struct RequestMetrics<Context: RequestContext>: RouterMiddleware {
    let sink: HTTPMetricsSink

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        do {
            let response = try await next(request, context)
            sink.request(Self.route(context), Int(response.status.code))
            return response
        } catch {
            let status = (error as? any HTTPResponseError)?.status ?? .internalServerError
            sink.request(Self.route(context), Int(status.code))
            throw error
        }
    }

    /// The route's pattern as Hummingbird writes it (`/v1/{verb}`); "unmatched" for none
    /// (Hummingbird's "NotFound").
    static func route(_ context: Context) -> String {
        guard let path = context.endpointPath, !path.isEmpty, path != "NotFound" else { return "unmatched" }
        return path
    }
}
