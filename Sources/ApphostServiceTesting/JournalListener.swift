import Foundation

/// A socket that plays journald's native socket (https://systemd.io/JOURNAL_NATIVE_PROTOCOL/): an
/// AF_UNIX datagram socket bound to a path, whose entries a test reads back as journald would,
/// from a datagram's fields (`NAME=value` or the binary-safe form) or from the sealed memfd an
/// entry too large for a datagram comes in.
public final class JournalListener: DatagramReceiving {
    /// One entry's fields, in the order they came.
    public struct Entry: CustomStringConvertible, Sendable {
        public var fields: [(name: String, value: String)]

        /// The first value of the field `name`.
        public subscript(name: String) -> String? { fields.first { $0.name == name }?.value }

        public var description: String { fields.map { "\($0.name)=\($0.value)" }.joined(separator: " ") }
    }

    public let descriptor: Int32
    public let path: String

    public init(path: String) throws {
        self.path = path
        // Room for what a host sends in a burst before the test reads (journald asks for 8 MiB).
        descriptor = try DatagramSocket.bound(path: Array(path.utf8), abstract: false, receiveBuffer: 8 << 20)
    }

    deinit {
        close(descriptor)
        unlink(path)
    }

    /// The next entry, or nil when none comes within `timeout` (or one cannot be read).
    public func receive(timeout: TimeInterval) -> Entry? {
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, Int32(max(0, timeout) * 1000)) == 1 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        // Room for one descriptor: a cmsghdr (16 bytes) and an int, aligned.
        var control = [UInt8](repeating: 0, count: 32)
        let count = buffer.withUnsafeMutableBytes { data in
            control.withUnsafeMutableBytes { control in
                var vector = iovec(iov_base: data.baseAddress, iov_len: data.count)
                return withUnsafeMutablePointer(to: &vector) { vector in
                    var message = msghdr()
                    message.msg_iov = vector
                    message.msg_iovlen = 1
                    message.msg_control = control.baseAddress
                    message.msg_controllen = control.count
                    let count = recvmsg(descriptor, &message, Int32(MSG_CMSG_CLOEXEC))
                    return count
                }
            }
        }
        guard count >= 0 else { return nil }
        if count == 0, let memfd = Self.passedDescriptor(control) {
            defer { close(memfd) }
            return Self.parse(Self.contents(of: memfd))
        }
        return Self.parse(buffer[..<count])
    }

    /// Every entry that comes within `duration`.
    public func entries(during duration: TimeInterval) -> [Entry] { received(during: duration) }

    /// The fields of a datagram in the native format; nil when it is not one.
    public static func parse(_ bytes: some Collection<UInt8>) -> Entry? {
        let bytes = Array(bytes)
        var fields: [(name: String, value: String)] = []
        var index = 0
        while index < bytes.count {
            guard let end = bytes[index...].firstIndex(where: { $0 == UInt8(ascii: "=") || $0 == UInt8(ascii: "\n") })
            else { return nil }
            let name = String(decoding: bytes[index..<end], as: UTF8.self)
            if bytes[end] == UInt8(ascii: "=") {
                let lineEnd = bytes[(end + 1)...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
                fields.append((name, String(decoding: bytes[(end + 1)..<lineEnd], as: UTF8.self)))
                index = lineEnd + 1
            } else {
                // NAME\n, a little-endian 64-bit length, the value, \n.
                guard end + 9 <= bytes.count else { return nil }
                let length = bytes[(end + 1)..<(end + 9)].reversed().reduce(0) { $0 << 8 | Int($1) }
                let start = end + 9
                guard length >= 0, start + length < bytes.count, bytes[start + length] == UInt8(ascii: "\n") else {
                    return nil
                }
                fields.append((name, String(decoding: bytes[start..<(start + length)], as: UTF8.self)))
                index = start + length + 1
            }
        }
        return Entry(fields: fields)
    }

    /// The descriptor an SCM_RIGHTS message carried, if any.
    private static func passedDescriptor(_ control: [UInt8]) -> Int32? {
        let headerSize = MemoryLayout<cmsghdr>.size
        guard control.count >= headerSize + 4 else { return nil }
        let header = control.withUnsafeBytes { $0.loadUnaligned(as: cmsghdr.self) }
        guard header.cmsg_level == SOL_SOCKET, header.cmsg_type == Int32(SCM_RIGHTS),
            header.cmsg_len >= headerSize + 4
        else { return nil }
        return control.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: headerSize, as: Int32.self) }
    }

    private static func contents(of descriptor: Int32) -> [UInt8] {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return [] }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        let count = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        return count == bytes.count ? bytes : []
    }
}
