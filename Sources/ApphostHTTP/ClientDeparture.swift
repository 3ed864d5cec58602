import NIOCore

/// Tells a streaming route that its client went: it closed its end of the connection (the server
/// allows half-closed connections, so that is an event, not a close) or the connection closed. An
/// event stream's client sends nothing after its request, so either means it is gone, and its slot
/// is freed then, not when the next write fails, up to a keep-alive interval later.
final class ClientDeparture: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer

    private var gone: (@Sendable () -> Void)?

    init(_ gone: @escaping @Sendable () -> Void) { self.gone = gone }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .some(.inputClosed) = event as? ChannelEvent { went() }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        went()
        context.fireChannelInactive()
    }

    private func went() {
        gone?()
        gone = nil
    }
}
