import Foundation

/// A socket that plays systemd's notify socket: an AF_UNIX datagram socket bound to a path (or an
/// abstract name), whose messages a test reads.
public final class NotifySocket: DatagramReceiving {
    public let descriptor: Int32
    /// What `NOTIFY_SOCKET` says: the path, or `@name` for an abstract one.
    public let address: String
    private let path: String?

    public init(path: String) throws {
        descriptor = try DatagramSocket.bound(path: Array(path.utf8), abstract: false)
        address = path
        self.path = path
    }

    public init(abstractName name: String) throws {
        descriptor = try DatagramSocket.bound(path: [0] + Array(name.utf8), abstract: true)
        address = "@" + name
        path = nil
    }

    deinit {
        close(descriptor)
        if let path { unlink(path) }
    }

    /// The next message, or nil when none comes within `timeout`.
    public func receive(timeout: TimeInterval) -> String? {
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, Int32(timeout * 1000)) == 1 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = recv(descriptor, &buffer, buffer.count, 0)
        guard count >= 0 else { return nil }
        return String(decoding: buffer[..<count], as: UTF8.self)
    }

    /// Every message that comes within `duration`.
    public func messages(during duration: TimeInterval) -> [String] { received(during: duration) }
}
