import Foundation

/// A socket a test binds in a service manager's place (systemd's notify socket, journald's):
/// what it receives one datagram at a time, and the waits every such test needs on top of that.
public protocol DatagramReceiving {
    associatedtype Datagram
    /// The next datagram, or nil after `timeout`.
    func receive(timeout: TimeInterval) -> Datagram?
}

extension DatagramReceiving {
    /// Datagrams until one satisfies `predicate` (returned last), or nil after `timeout`.
    public func wait(timeout: TimeInterval, for predicate: (Datagram) -> Bool) -> [Datagram]? {
        let deadline = Date() + timeout
        var received: [Datagram] = []
        while case let left = deadline.timeIntervalSinceNow, left > 0 {
            guard let datagram = receive(timeout: left) else { return nil }
            received.append(datagram)
            if predicate(datagram) { return received }
        }
        return nil
    }

    /// Every datagram that comes within `duration`.
    public func received(during duration: TimeInterval) -> [Datagram] {
        let deadline = Date() + duration
        var received: [Datagram] = []
        while case let left = deadline.timeIntervalSinceNow, left > 0 {
            if let datagram = receive(timeout: left) { received.append(datagram) }
        }
        return received
    }
}

/// The AF_UNIX datagram socket every ``DatagramReceiving`` binds.
enum DatagramSocket {
    /// A socket bound to `path` (with `abstract`, a name that begins with a NUL byte, which has
    /// no file), its receive buffer `receiveBuffer` bytes when given; its descriptor.
    static func bound(path: [UInt8], abstract: Bool, receiveBuffer: Int32? = nil) throws -> Int32 {
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        if var size = receiveBuffer {
            _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: path) }
        let length = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + path.count + (abstract ? 0 : 1))
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
        }
        guard status == 0 else {
            let error = errno
            close(descriptor)
            throw POSIXError(.init(rawValue: error) ?? .EIO)
        }
        return descriptor
    }
}
