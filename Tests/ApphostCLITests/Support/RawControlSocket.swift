import Foundation

/// Talks to the control socket without the project's client, as `socat` or `nc` would: writes
/// `text`, closes its sending side, and reads until the host closes the connection.
func exchangeRaw(_ text: String, socketPath: String) throws -> [String] {
    let descriptor = try connectRaw(socketPath: socketPath)
    defer { close(descriptor) }
    try sendRaw(text, on: descriptor)
    shutdown(descriptor, Int32(SHUT_WR))
    return readRawUntilClosed(descriptor)
}

/// A connected control socket; `receiveBuffer` shrinks the kernel's buffer so that a peer that
/// does not read backs up quickly.
func connectRaw(socketPath: String, receiveBuffer: Int32? = nil) throws -> Int32 {
    let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    if var size = receiveBuffer {
        setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
    }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { path in
        path.copyBytes(from: socketPath.utf8.prefix(path.count - 1))
    }
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
        }
    }
    guard connected == 0 else {
        let error = POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        close(descriptor)
        throw error
    }
    return descriptor
}

func sendRaw(_ text: String, on descriptor: Int32) throws {
    let bytes = Array(text.utf8)
    guard bytes.withUnsafeBytes({ send(descriptor, $0.baseAddress, $0.count, 0) }) == bytes.count else {
        throw POSIXError(.EIO)
    }
}

/// Reads until the peer closes, or nothing arrives for 10 s, and splits the text into lines.
func readRawUntilClosed(_ descriptor: Int32) -> [String] {
    var timeout = timeval(tv_sec: 10, tv_usec: 0)
    setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    var received = Data()
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
        let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { break }
        received.append(contentsOf: buffer[..<count])
    }
    return String(decoding: received, as: UTF8.self).split(separator: "\n").map(String.init)
}
