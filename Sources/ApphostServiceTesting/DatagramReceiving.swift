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
