import HTTPTypes
import HummingbirdCore
import NIOCore
import NIOHTTPTypes
import Synchronization

/// What a connection may hold before it shows a token (CONTRACT X4): idle and slow clients cannot
/// lock the operator out of the API.
///
/// - A request's head must arrive within ``HTTPLimits/requestHeadTimeout`` of the connection's
///   start, or of the end of its last response unless it presented a token (then the keep-alive
///   idle timeout applies); its body within ``HTTPLimits/requestBodyTimeout`` of its head. A
///   client that sends a header a byte at a time, or opens and waits, is closed.
/// - Past ``HTTPLimits/maximumConnections`` less ``HTTPLimits/reservedConnections``, each new
///   connection closes the oldest one that waits for a request and never presented a valid token,
///   so that the reserved slots stay free for clients that authenticate and a new connection
///   always gets in while others only wait.
///
/// On a host without tokens no client can prove it is the operator: the deadlines and the
/// eviction of the oldest waiting connection still keep the API answering.
final class ConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let registry: ConnectionRegistry
    private let tokens: HTTPTokens
    private let limits: HTTPLimits
    private var deadline: Scheduled<Void>?
    private var trusted = false

    init(registry: ConnectionRegistry, tokens: HTTPTokens, limits: HTTPLimits) {
        self.registry = registry
        self.tokens = tokens
        self.limits = limits
    }

    func handlerAdded(context: ChannelHandlerContext) {
        registry.opened(context.channel)
        arm(context, limits.requestHeadTimeout)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
        registry.closed(context.channel)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            if !trusted, !tokens.isEmpty, tokens.access(authorization: head.headerFields[.authorization]) > .none {
                trusted = true
                registry.trust(context.channel)
            }
            registry.busy(context.channel, true)
            arm(context, limits.requestBodyTimeout)
        case .body:
            break
        case .end:
            deadline?.cancel()
            deadline = nil
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) {
            registry.busy(context.channel, false)
            // The next request's head: a trusted client waits as long as the idle timeout allows.
            if !trusted { arm(context, limits.requestHeadTimeout) }
        }
        context.write(data, promise: promise)
    }

    private func arm(_ context: ChannelHandlerContext, _ timeout: Duration) {
        deadline?.cancel()
        let channel = context.channel
        deadline = context.eventLoop.scheduleTask(in: TimeAmount(timeout)) {
            channel.close(promise: nil)
        }
    }
}

/// The server's open connections, for ``ConnectionGuard``: which presented a token, which wait
/// for a request, and in what order they came. Bounded by the listener's limit, so that finding
/// the oldest takes at most that many steps.
final class ConnectionRegistry: Sendable {
    private struct Entry {
        let channel: any Channel
        let order: UInt64
        var trusted = false
        var busy = false
    }

    private struct State: ~Copyable {
        var entries: [ObjectIdentifier: Entry] = [:]
        var next: UInt64 = 0
    }

    private let state = Mutex(State())
    /// Past this many, a new connection evicts the oldest waiting untrusted one.
    let evictAbove: Int

    init(evictAbove: Int) { self.evictAbove = evictAbove }

    func opened(_ channel: any Channel) {
        let evicted: (any Channel)? = state.withLock { state in
            state.entries[ObjectIdentifier(channel)] = Entry(channel: channel, order: state.next)
            state.next += 1
            guard state.entries.count > evictAbove else { return nil }
            let oldest = state.entries.values.filter { !$0.trusted && !$0.busy && $0.channel !== channel }
                .min { $0.order < $1.order }
            guard let oldest else { return nil }
            state.entries[ObjectIdentifier(oldest.channel)] = nil
            return oldest.channel
        }
        evicted?.close(promise: nil)
    }

    func closed(_ channel: any Channel) {
        _ = state.withLock { $0.entries.removeValue(forKey: ObjectIdentifier(channel)) }
    }

    func trust(_ channel: any Channel) {
        state.withLock { $0.entries[ObjectIdentifier(channel)]?.trusted = true }
    }

    /// Whether a request is under way on `channel`: such a connection is never evicted.
    func busy(_ channel: any Channel, _ busy: Bool) {
        state.withLock { $0.entries[ObjectIdentifier(channel)]?.busy = busy }
    }
}
