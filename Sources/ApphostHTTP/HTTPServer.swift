import ApphostControl
import Dispatch
import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization

/// The HTTP API of a host (CONTRACT O1), on Hummingbird: the control verbs as JSON endpoints, the
/// event stream as Server-Sent Events, `/metrics` for Prometheus, and the web app switcher. It
/// asks the host only through its ``ControlResponder``, as the control socket does, so that both
/// transports share the verbs and their replies.
///
/// Safe by default: it binds what the operator names, and refuses an address other than loopback
/// without a bearer token; it refuses what a web page could make a browser send
/// (``CrossSitePolicy``); connections, request bodies and event followers are bounded; and it
/// never makes the host queue wait (replies and events reach it through continuations and
/// streams).
public final class HTTPServer: Sendable {
    /// Where it listens, with the port the kernel chose for port 0.
    public let address: HTTPBinding
    private let group: ServiceGroup
    private let running: Task<Void, Never>
    private let events: EventStream

    private init(address: HTTPBinding, group: ServiceGroup, running: Task<Void, Never>, events: EventStream) {
        self.address = address
        self.group = group
        self.running = running
        self.events = events
    }

    /// Binds `binding` and serves until ``stop()``. Throws one line when the address needs a token
    /// and has none, or cannot be bound. Blocks until it listens; call it outside Swift
    /// concurrency's threads (the CLI's main thread).
    ///
    /// `allowedHosts` are the names besides this host's address and `localhost` that requests may
    /// name in `Host` (a reverse proxy's); `readiness` is what `/readyz` reports.
    public static func start(
        binding: HTTPBinding, tokens: HTTPTokens = HTTPTokens(), allowedHosts: [String] = [],
        version: HostVersion, readiness: HostReadiness = HostReadiness(.ready), responder: any ControlResponder,
        limits: HTTPLimits = HTTPLimits(), metrics: HTTPMetricsSink = HTTPMetricsSink(), logger: Logger
    ) throws(HTTPSetupError) -> HTTPServer {
        try binding.checkAccess(tokens: tokens)
        let web = WebFiles.load()
        // Loudly: a host without its page still serves its API, but the operator should know.
        if let missing = web.missingMessage { logger.warning("\(missing)") }
        let router = Router(context: HostRequestContext.self)
        router.add(middleware: RequestMetrics(sink: metrics))
        let crossSite = CrossSitePolicy(binding: binding, extraHosts: allowedHosts)
        router.add(middleware: Checked(check: CrossSiteGuard(policy: crossSite, checksContent: false)))
        router.add(middleware: Checked(check: TokenCheck(tokens: tokens, routes: RouteAccess(webPaths: web.paths))))
        router.add(middleware: Checked(check: AllowedMethods(webPaths: web.paths)))
        router.add(middleware: Checked(check: CrossSiteGuard(policy: crossSite, checksContent: true)))
        let events = EventStream(responder: responder, limits: limits, metrics: metrics)
        CommandRoutes(responder: responder).add(to: router)
        events.add(to: router)
        MetricsRoute(responder: responder).add(to: router)
        HealthRoutes(readiness: readiness).add(to: router)
        VersionRoute(version: version).add(to: router)
        web.add(to: router)

        let bound = Mutex<Result<Int, any Error>?>(nil)
        let started = DispatchSemaphore(value: 0)
        // Hummingbird's own lines (a request that failed to parse, say) only when they matter.
        var quiet = logger
        quiet.logLevel = max(logger.logLevel, .warning)
        let connections = ConnectionRegistry(evictAbove: limits.maximumConnections - limits.reservedConnections)
        let application = Application(
            router: router,
            server: .http1(
                configuration: .init(
                    additionalChannelHandlers: [
                        ConnectionGuard(registry: connections, tokens: tokens, limits: limits)
                    ], idleTimeout: .seconds(limits.idleSeconds))),
            configuration: ApplicationConfiguration(
                address: .hostname(binding.host, port: binding.port),
                availableConnectionsDelegate: MaximumAvailableConnections(limits.maximumConnections)),
            onServerRunning: { channel in
                bound.withLock { $0 = .success(channel.localAddress?.port ?? binding.port) }
                started.signal()
            },
            logger: quiet)
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [application], gracefulShutdownSignals: [], logger: quiet))
        let running = Task {
            do {
                try await group.run()
            } catch {
                bound.withLock { if $0 == nil { $0 = .failure(error) } }
                started.signal()
            }
        }
        started.wait()
        switch bound.withLock({ $0 }) {
        case .success(let port):
            return HTTPServer(
                address: HTTPBinding(host: binding.host, port: port), group: group, running: running, events: events)
        case .failure(let error):
            throw HTTPSetupError("cannot listen on \(binding) for HTTP: \(error)")
        case nil:
            throw HTTPSetupError("cannot listen on \(binding) for HTTP")
        }
    }

    /// Ends the event streams, lets requests under way finish, and closes the listener. Blocks
    /// until done, for at most `timeout`.
    public func stop(timeout: Duration = .seconds(2)) {
        events.close()
        let done = DispatchSemaphore(value: 0)
        Task { [group, running] in
            await group.triggerGracefulShutdown()
            await running.value
            done.signal()
        }
        _ = done.wait(timeout: .now() + timeout.timeIntervalValue)
    }
}

/// What one client may cost the host (CONTRACT O1); the defaults suit an operator's tools and a
/// few browsers.
public struct HTTPLimits: Sendable {
    /// Connections at once; past it the listener stops accepting until one closes.
    public var maximumConnections = 256
    /// Of those, how many are kept for clients that present a token: past the others, a new
    /// connection closes the oldest one waiting for a request without having shown one
    /// (``ConnectionGuard``).
    public var reservedConnections = 32
    /// A connection that sends nothing between requests for this long is closed.
    public var idleSeconds: Int64 = 30
    /// A request's head must arrive within this of the connection's start (or of the previous
    /// response, for a client that has not shown a token): a client that sends a byte at a time
    /// holds a slot no longer.
    public var requestHeadTimeout = Duration.seconds(10)
    /// A request's body must arrive within this of its head (512 KiB at most: 52 KB/s).
    public var requestBodyTimeout = Duration.seconds(10)
    /// Event streams at once; one more is 503.
    public var maximumFollowers = 64
    /// Events handed to a follower and not yet written to it, past which it is dropped: more than
    /// the host's journal holds (EventFanOut), so that a whole replay fits.
    public var followerBacklog = 8192
    /// Between two comments on an event stream with no events, so that proxies keep it open and a
    /// client that went away is noticed.
    public var keepAliveInterval = Duration.seconds(15)

    public init() {}
}

extension Duration {
    fileprivate var timeIntervalValue: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
