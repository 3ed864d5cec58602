import ApphostVocabulary
import Foundation
import NIOCore
import NIOPosix

/// The client side of the control socket, for `apphost ctl`: blocking calls, one connection each.
public struct ControlClient: Sendable {
    /// Bounds what the host can make a client buffer: far above any event line, and above the
    /// status of a host of 10,000 guests, some 7 MB of JSON (`ps`), which 1 MiB refused at 1,500.
    static let maximumLineLength = 64 * 1024 * 1024

    public let socketPath: String
    /// How long to wait for a reply; a relaunch runs the guest's launch callbacks first.
    public var timeout: TimeAmount = .seconds(30)
    /// How long a connect refused for a full listen backlog is tried again, in all.
    public var connectRetryBudget: Duration = .seconds(2)

    public init(socketPath: String) { self.socketPath = socketPath }

    /// Sends `command` and returns the reply line.
    public func send(_ command: some ControlCommand) throws(ControlClientError) -> String {
        try send(line: command.line)
    }

    /// Sends one raw line (a request, or anything else) and returns the reply line.
    public func send(line: String) throws(ControlClientError) -> String {
        try withConnection { channel, firstLine throws(ControlClientError) in
            write(line, to: channel)
            return try waitForReply(firstLine, on: channel)
        }
    }

    /// Sends an `events` request and calls `onEvent` with every event line, in order, until the
    /// host closes the connection (for a request that does not follow, once it sent what it
    /// holds). Throws if the host refuses, or ends the stream with an error (a follower that fell
    /// too far behind is dropped).
    public func follow(_ request: EventsCommand = EventsCommand(), onEvent: @escaping @Sendable (String) -> Void)
        throws(ControlClientError)
    {
        let streamError = StreamError()
        let onLine: @Sendable (String) -> Void = { line in
            // Event lines never carry "ok"; a reply line in the stream is the host's last word.
            if line.contains(#""ok":false"#),
                let reply = try? ControlCoding.decode(ControlReply<ControlMessage>.self, from: line), !reply.ok
            {
                streamError.set(reply.error ?? "the host ended the event stream")
            } else {
                onEvent(line)
            }
        }
        try withConnection(onLaterLine: onLine) { channel, firstLine throws(ControlClientError) in
            write(request.line, to: channel)
            let reply = try waitForReply(firstLine, on: channel)
            if let refusal = try? ControlCoding.decode(ControlReply<ControlMessage>.self, from: reply), !refusal.ok {
                throw ControlClientError.refused(refusal.error ?? "the host refused to stream events")
            }
            try? channel.closeFuture.wait()
        }
        if let message = streamError.message { throw .refused(message) }
    }

    private func withConnection<Value>(
        onLaterLine: @escaping @Sendable (String) -> Void = { _ in },
        _ body: (any Channel, EventLoopPromise<String>) throws(ControlClientError) -> Value
    ) throws(ControlClientError) -> Value {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        defer { try? group.syncShutdownGracefully() }
        let (channel, firstLine) = try connect(group: group, onLaterLine: onLaterLine)
        defer { try? channel.close().wait() }
        return try body(channel, firstLine)
    }

    /// Connects, and tries again while the host's listen backlog is full. Linux refuses a
    /// non-blocking connect to a Unix socket whose backlog is full with EAGAIN at once, where a
    /// blocking one would wait: when many clients start together, the host accepts them all
    /// within milliseconds, so the retries (backoff from 1 ms, doubling to 100 ms, with jitter,
    /// for `connectRetryBudget` in all) let every one through. Nothing else is retried: ENOENT
    /// or ECONNREFUSED means that no host listens.
    private func connect(
        group: MultiThreadedEventLoopGroup, onLaterLine: @escaping @Sendable (String) -> Void
    ) throws(ControlClientError) -> (any Channel, EventLoopPromise<String>) {
        let deadline = ContinuousClock.now + connectRetryBudget
        var pause = Duration.milliseconds(1)
        while true {
            let firstLine = group.next().makePromise(of: String.self)
            do {
                let channel = try ClientBootstrap(group: group)
                    .channelInitializer { channel in
                        channel.eventLoop.makeCompletedFuture {
                            try channel.pipeline.syncOperations.addHandlers(
                                ByteToMessageHandler(LineFrameDecoder(maximumLength: Self.maximumLineLength)),
                                ControlLineReader(firstLine: firstLine, onLaterLine: onLaterLine))
                        }
                    }
                    .connect(unixDomainSocketPath: socketPath).wait()
                return (channel, firstLine)
            } catch let error as IOError where [ENOENT, ECONNREFUSED, ENOTDIR].contains(error.errnoCode) {
                firstLine.fail(error)
                throw .notListening(socketPath: socketPath)
            } catch let error as IOError where error.errnoCode == EAGAIN {
                firstLine.fail(error)
                let wait = pause * Double.random(in: 0.5...1.5)
                guard ContinuousClock.now + wait < deadline else {
                    throw .failed(
                        "cannot connect to \(socketPath): the host's listen backlog stayed full for "
                            + "\(connectRetryBudget.secondsText) (connect: \(String(cString: strerror(EAGAIN))))")
                }
                Thread.sleep(forTimeInterval: wait.timeInterval)
                pause = min(pause * 2, .milliseconds(100))
            } catch {
                firstLine.fail(error)
                throw .failed("cannot connect to \(socketPath): \(error)")
            }
        }
    }

    private func write(_ line: String, to channel: any Channel) {
        channel.writeAndFlush(channel.allocator.buffer(string: line + "\n"), promise: nil)
    }

    private func waitForReply(_ reply: EventLoopPromise<String>, on channel: any Channel) throws(ControlClientError)
        -> String
    {
        // A promise completes once; when the reply came first, this failure is ignored.
        channel.eventLoop.scheduleTask(in: timeout) { reply.fail(ReplyTimedOut()) }
        do {
            return try reply.futureResult.wait()
        } catch is ControlConnectionClosed {
            throw .failed("the host closed the connection without answering")
        } catch is ReplyTimedOut {
            throw .failed("the host did not answer within \(timeout.nanoseconds / 1_000_000_000) s")
        } catch {
            throw .failed("control connection failed: \(error)")
        }
    }
}

/// Hands the first line to a promise (the reply) and later lines (events) to a closure.
private final class ControlLineReader: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private var firstLine: EventLoopPromise<String>?
    private let onLaterLine: @Sendable (String) -> Void

    init(firstLine: EventLoopPromise<String>, onLaterLine: @escaping @Sendable (String) -> Void) {
        self.firstLine = firstLine
        self.onLaterLine = onLaterLine
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let line = String(buffer: unwrapInboundIn(data))
        if let promise = firstLine {
            firstLine = nil
            promise.succeed(line)
        } else {
            onLaterLine(line)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        firstLine?.fail(ControlConnectionClosed())
        firstLine = nil
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        firstLine?.fail(error)
        firstLine = nil
        context.close(promise: nil)
    }
}

/// The error a host ended an event stream with; set on the event loop, read after it closed.
private final class StreamError: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: String?
    func set(_ message: String) { lock.withLock { stored = message } }
    var message: String? { lock.withLock { stored } }
}

private struct ControlConnectionClosed: Error {}
private struct ReplyTimedOut: Error {}

/// Why a control request failed on the client's side; `description` is one line.
public enum ControlClientError: Error, Sendable, CustomStringConvertible {
    /// No host listens on the socket.
    case notListening(socketPath: String)
    /// The host answered with an error.
    case refused(String)
    case failed(String)

    public var description: String {
        switch self {
        case .notListening(let path): "nothing listens on \(path)"
        case .refused(let message), .failed(let message): message
        }
    }
}
