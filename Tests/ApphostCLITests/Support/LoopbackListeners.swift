import Foundation
import Glibc

/// A TCP listener and a UDP socket of the test's on 127.0.0.1, each on a port the kernel chose,
/// opened when first asked for; `received` says what reached each, so that a guest's network
/// attempt that got through is seen from the far side, not only from the guest's word.
final class LoopbackListeners {
    private var tcp: Int32 = -1
    private var udp: Int32 = -1

    deinit {
        if tcp >= 0 { close(tcp) }
        if udp >= 0 { close(udp) }
    }

    func tcpPort() throws -> Int {
        if tcp < 0 { tcp = try Self.bound(SOCK_STREAM) }
        return try Self.port(of: tcp)
    }

    func udpPort() throws -> Int {
        if udp < 0 { udp = try Self.bound(SOCK_DGRAM) }
        return try Self.port(of: udp)
    }

    /// What one connection to the TCP listener sent, then one datagram, waiting up to 5 s for each.
    func received() throws -> [String] {
        var texts: [String] = []
        var ready = pollfd(fd: tcp, events: Int16(POLLIN), revents: 0)
        guard poll(&ready, 1, 5000) == 1 else { return texts }
        let connection = accept(tcp, nil, nil)
        guard connection >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { close(connection) }
        texts.append(Self.read(connection))
        ready = pollfd(fd: udp, events: Int16(POLLIN), revents: 0)
        if poll(&ready, 1, 5000) == 1 { texts.append(Self.read(udp)) }
        return texts
    }

    private static func read(_ descriptor: Int32) -> String {
        var bytes = [UInt8](repeating: 0, count: 64)
        let count = recv(descriptor, &bytes, bytes.count, 0)
        return String(decoding: bytes.prefix(max(count, 0)), as: UTF8.self)
    }

    private static func bound(_ type: __socket_type) throws -> Int32 {
        let descriptor = socket(AF_INET, Int32(type.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard descriptor >= 0, bound == 0, type != SOCK_STREAM || listen(descriptor, 4) == 0 else {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
        return descriptor
    }

    private static func port(of descriptor: Int32) throws -> Int {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard named == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
