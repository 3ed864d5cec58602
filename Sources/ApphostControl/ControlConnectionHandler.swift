import ApphostVocabulary
import NIOCore

/// How far, in bytes of event lines, a follower may fall behind before it is dropped.
let followerBacklogLimit = 1 << 20

/// Serves one control connection: answers its requests one at a time, in the order they came,
/// and turns it into an event stream after an `events` request.
final class ControlConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let responder: any ControlResponder
    /// Lines read while an earlier request is still being answered.
    private var queued: [ByteBuffer] = []
    private var answering = false
    private var subscription: EventSubscription?
    /// The peer will send nothing more: close once every request it sent has been answered.
    private var inputClosed = false
    /// Closing waits for it, so that the last reply is not cut off.
    private var lastWrite: EventLoopFuture<Void>?

    init(responder: any ControlResponder) { self.responder = responder }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // Once the connection streams events, what the peer sends is ignored.
        guard subscription == nil else { return }
        queued.append(unwrapInboundIn(data))
        answerNext(context: context)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, event == .inputClosed {
            inputClosed = true
            closeIfDone(context: context)
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        subscription?.cancel()
        subscription = nil
        context.fireChannelInactive()
    }

    /// A follower that reads slower than the host emits would make the host buffer events without
    /// bound: once it falls `followerBacklogLimit` bytes behind, it is told so and dropped.
    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if subscription != nil, !context.channel.isWritable {
            subscription?.cancel()
            subscription = nil
            write(
                ControlReply.failure(
                    "events dropped: this follower fell \(followerBacklogLimit) bytes behind", code: .unavailable
                ).line,
                context: context)
            closeAfterWrites(context: context)
        }
        context.fireChannelWritabilityChanged()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        let message = error is LineTooLongError ? "malformed request: \(error)" : "connection error: \(error)"
        write(ControlReply.failure(message, code: .invalid).line, context: context)
        closeAfterWrites(context: context)
    }

    private func answerNext(context: ChannelHandlerContext) {
        guard !answering, subscription == nil, !queued.isEmpty else { return closeIfDone(context: context) }
        let line = queued.removeFirst()
        let command: any ControlCommand
        do {
            command = try ControlCommands.decode(line: line.readableBytesView)
        } catch {
            write(ControlReply.failure(error).line, context: context)
            return answerNext(context: context)
        }
        if let events = command as? EventsCommand { return startStreaming(events, context: context) }

        answering = true
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        let boundContext = NIOLoopBound(context, eventLoop: context.eventLoop)
        let eventLoop = context.eventLoop
        responder.respond(to: command) { reply in
            eventLoop.execute {
                handler.value.answered(reply, context: boundContext.value)
            }
        }
    }

    private func answered(_ reply: String, context: ChannelHandlerContext) {
        answering = false
        guard context.channel.isActive else { return }
        write(reply, context: context)
        answerNext(context: context)
    }

    /// An event stream goes on after the peer stops sending; anything else is over.
    private func closeIfDone(context: ChannelHandlerContext) {
        guard inputClosed, !answering, queued.isEmpty, subscription == nil else { return }
        closeAfterWrites(context: context)
    }

    private func closeAfterWrites(context: ChannelHandlerContext) {
        let channel = context.channel
        guard let lastWrite else { return channel.close(promise: nil) }
        lastWrite.whenComplete { _ in channel.close(promise: nil) }
    }

    private func startStreaming(_ request: EventsCommand, context: ChannelHandlerContext) {
        queued.removeAll()
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        let boundContext = NIOLoopBound(context, eventLoop: context.eventLoop)
        let eventLoop = context.eventLoop
        let start: EventStart
        let filter: EventFilter
        do throws(ControlProtocolError) {
            // Validated when decoded: this does not fail.
            start = try request.start
            filter = try request.filter
        } catch {
            write(ControlReply.failure(error).line, context: context)
            return answerNext(context: context)
        }
        // The acknowledgement goes out before any event: events reach the channel through its
        // event loop, which is running this code.
        write(ControlReply.message("following events").line, context: context)
        subscription = responder.follow(from: start, filter: filter, live: request.isLive) { followed in
            // The host emits on one queue and the loop runs tasks in order, so events keep theirs;
            // the check on the loop stops events already in flight once the follower is dropped.
            let line = EventsCommand.streamLine(followed)
            eventLoop.execute {
                guard handler.value.subscription != nil else { return }
                handler.value.write(line, context: boundContext.value)
            }
        }
        guard request.isLive else {
            // What the host holds was handed over before `follow` returned, each event as a task on
            // this loop: this one runs after them, and ends the stream once they are written.
            eventLoop.execute {
                let handler = handler.value
                guard handler.subscription != nil else { return }
                handler.subscription = nil
                handler.closeAfterWrites(context: boundContext.value)
            }
            return
        }
    }

    private func write(_ line: String, context: ChannelHandlerContext) {
        lastWrite = context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(string: line + "\n")))
    }
}
