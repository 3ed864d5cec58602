import Foundation
import NIOCore
import NIOPosix
import Synchronization

/// The control socket: a Unix-domain stream socket, mode 0600, speaking line-delimited JSON
/// (a `ControlCommand`, a `ControlReply`, then event lines for `events`).
public final class ControlServer: Sendable {
    /// Requests are short but for `call`'s arguments: a string of APPHOST_ACTION_VALUE_MAX_BYTES
    /// (64 KiB) that JSON escapes as \u0000 takes six times that. This bounds what a peer can make
    /// the host buffer.
    static let maximumRequestLength = 512 * 1024

    public let socketPath: String
    private let group: MultiThreadedEventLoopGroup
    private let listener: any Channel
    private let connections: ConnectionRegistry

    private init(
        socketPath: String, group: MultiThreadedEventLoopGroup, listener: any Channel, connections: ConnectionRegistry
    ) {
        self.socketPath = socketPath
        self.group = group
        self.listener = listener
        self.connections = connections
    }

    /// Binds `socketPath`, which must not exist, and starts accepting connections. The socket
    /// is created with mode 0600 so that only this user can drive the host.
    public static func start(socketPath: String, responder: any ControlResponder) throws(ControlServerError)
        -> ControlServer
    {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let connections = ConnectionRegistry()
        let bootstrap = ServerBootstrap(group: group)
            // Connections the kernel queues before the host accepts them: a burst of `ctl` from a
            // script or a monitor. Linux caps it at net.core.somaxconn (4096 since 5.4); a client
            // refused beyond it tries again (ControlClient).
            .serverChannelOption(.backlog, value: 4096)
            // A client may send its request and close its side (`socat`, `nc -N`); it still gets the reply.
            .childChannelOption(.allowRemoteHalfClosure, value: true)
            // Past the high mark an events follower is too slow and is dropped (ControlConnectionHandler).
            .childChannelOption(
                .writeBufferWaterMark, value: .init(low: followerBacklogLimit / 4, high: followerBacklogLimit)
            )
            .childChannelInitializer { channel in
                connections.add(channel)
                channel.closeFuture.whenComplete { _ in connections.remove(channel) }
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandlers(
                        ByteToMessageHandler(LineFrameDecoder(maximumLength: maximumRequestLength)),
                        ControlConnectionHandler(responder: responder))
                }
            }

        // The umask makes bind create the socket file as 0600, so it is never reachable by
        // others, not even for a moment. Nothing else creates files while the host starts.
        let listener: any Channel
        let previousMask = umask(0o177)
        do {
            listener = try bootstrap.bind(unixDomainSocketPath: socketPath).wait()
            umask(previousMask)
        } catch {
            umask(previousMask)
            try? group.syncShutdownGracefully()
            throw ControlServerError("cannot listen on \(socketPath): \(error)")
        }
        let server = ControlServer(socketPath: socketPath, group: group, listener: listener, connections: connections)
        do throws(ControlServerError) {
            try verifyMode(of: socketPath)
        } catch {
            server.stop(removingSocket: true)
            throw error
        }
        return server
    }

    /// Refuses to serve a socket that others could connect to.
    private static func verifyMode(of path: String) throws(ControlServerError) {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw ControlServerError("cannot check \(path): \(String(cString: strerror(errno)))")
        }
        let mode = info.st_mode & 0o777
        guard mode == 0o600 else {
            throw ControlServerError("\(path) has mode \(String(mode, radix: 8)), expected 600")
        }
    }

    /// Stops accepting, closes every connection (ending `events` streams) and, when asked,
    /// removes the socket file. Blocks until done; call it outside the server's event loop.
    public func stop(removingSocket: Bool) {
        try? listener.close().wait()
        for channel in connections.all() {
            // Closing through the channel's event loop runs after the event writes queued before it.
            try? channel.close().wait()
        }
        if removingSocket { unlink(socketPath) }
        try? group.syncShutdownGracefully()
    }
}

/// The open connections, so that stopping the server can end them.
private final class ConnectionRegistry: Sendable {
    private let channels = Mutex<[ObjectIdentifier: any Channel]>([:])

    func add(_ channel: any Channel) { channels.withLock { $0[ObjectIdentifier(channel)] = channel } }
    func remove(_ channel: any Channel) { channels.withLock { $0[ObjectIdentifier(channel)] = nil } }
    func all() -> [any Channel] { channels.withLock { Array($0.values) } }
}

/// Why the control server could not start; `description` is one line for the CLI.
public struct ControlServerError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
