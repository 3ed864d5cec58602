import Foundation

/// An HTTP/1.1 client over a plain TCP socket, as a script with curl would be: one request per
/// connection, and event streams read as they come. Enough for the tests of the HTTP API, with
/// no client library between the test and the bytes the host sends.
public struct HTTPTestResponse: Sendable {
    public var status: Int
    /// Names in lower case.
    public var headers: [String: String]
    public var body: String
}

public enum HTTPTestClient {
    /// Sends one request with `Connection: close` and reads the whole response.
    public static func request(
        _ method: String, _ path: String, port: Int, headers: [String: String] = [:], body: String? = nil,
        timeout: TimeInterval = 10
    ) throws -> HTTPTestResponse {
        let descriptor = try connect(port: port)
        defer { close(descriptor) }
        try send(head(method, path, headers: headers, body: body) + (body ?? ""), on: descriptor)
        let text = read(descriptor, until: Date() + timeout) { _ in false }
        return try parse(text)
    }

    /// Sends `text` as it is, a whole request with its head, and reads the whole response: for
    /// requests the other helpers would not write (a broken chunk, say).
    public static func raw(_ text: String, port: Int, timeout: TimeInterval = 10) throws -> HTTPTestResponse {
        let descriptor = try connect(port: port)
        defer { close(descriptor) }
        try send(text, on: descriptor)
        return try parse(read(descriptor, until: Date() + timeout) { _ in false })
    }

    /// Opens `GET path` as an event stream: the connection, for ``read(_:until:stopWhen:)``.
    public static func openStream(_ path: String, port: Int, headers: [String: String] = [:]) throws -> Int32 {
        let descriptor = try connect(port: port)
        do {
            try send(head("GET", path, headers: headers, body: nil), on: descriptor)
        } catch {
            close(descriptor)
            throw error
        }
        return descriptor
    }

    /// Reads what arrives until `stopWhen` holds of it all, the peer closes, or `deadline`.
    public static func read(_ descriptor: Int32, until deadline: Date, stopWhen: (String) -> Bool) -> String {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while Date() < deadline {
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let wait = Int32(max(1, min(100, deadline.timeIntervalSinceNow * 1000)))
            guard poll(&poller, 1, wait) >= 0 else { break }
            guard poller.revents != 0 else { continue }
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count <= 0 { break }
            bytes += buffer[..<count]
            if stopWhen(String(decoding: bytes, as: UTF8.self)) { break }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The `id:` and `data:` of each event of an event stream's text, and the names of any other
    /// `event:` types, in order.
    public static func events(in text: String) -> [(id: String?, event: String?, data: String)] {
        guard let body = try? parse(text).body else { return [] }
        return body.components(separatedBy: "\n\n").compactMap { block in
            var id: String?
            var event: String?
            var data: [String] = []
            // Not split(separator:), for which "\r\n" is one Character.
            for line in block.components(separatedBy: "\n") {
                if line.hasPrefix("id: ") { id = String(line.dropFirst(4)) }
                if line.hasPrefix("event: ") { event = String(line.dropFirst(7)) }
                if line.hasPrefix("data: ") { data.append(String(line.dropFirst(6))) }
            }
            return data.isEmpty ? nil : (id, event, data.joined(separator: "\n"))
        }
    }

    /// A POST is JSON unless `headers` say otherwise (`Content-Type: none` sends none), as the
    /// host asks of every POST; `Host: none` sends no Host header.
    private static func head(_ method: String, _ path: String, headers: [String: String], body: String?) -> String {
        var fields = headers
        if fields["Host"] == nil { fields["Host"] = "127.0.0.1" }
        if method == "POST", fields["Content-Type"] == nil { fields["Content-Type"] = "application/json" }
        var lines = ["\(method) \(path) HTTP/1.1", "Connection: close"]
        for (name, value) in fields.sorted(by: { $0.key < $1.key }) where value != "none" {
            lines.append("\(name): \(value)")
        }
        if let body { lines.append("Content-Length: \(body.utf8.count)") }
        return lines.joined(separator: "\r\n") + "\r\n\r\n"
    }

    /// A connection to the server on loopback, for a test that writes what it wants when it wants.
    public static func connect(port: Int) throws -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            let error = POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            close(descriptor)
            throw error
        }
        return descriptor
    }

    /// Writes `text` on a connection `connect` opened.
    public static func send(_ text: String, on descriptor: Int32) throws {
        let bytes = Array(text.utf8)
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes {
                Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            // The server may answer (413) and close before it has read all of a large body.
            guard count > 0 else { return }
            sent += count
        }
    }

    private static func parse(_ text: String) throws -> HTTPTestResponse {
        guard let split = text.range(of: "\r\n\r\n") else {
            throw POSIXError(.EBADMSG)
        }
        let head = text[..<split.lowerBound].components(separatedBy: "\r\n")
        let statusWords = head.first?.split(separator: " ") ?? []
        guard statusWords.count >= 2, let status = Int(statusWords[1]) else { throw POSIXError(.EBADMSG) }
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        var body = String(text[split.upperBound...])
        if headers["transfer-encoding"] == "chunked" { body = dechunk(body) }
        return HTTPTestResponse(status: status, headers: headers, body: body)
    }

    /// The body of a chunked response, as much of it as arrived; bytes, since for String "\r\n" is
    /// one Character.
    private static func dechunk(_ text: String) -> String {
        let bytes = Array(text.utf8)
        var body: [UInt8] = []
        var index = 0
        while let lineEnd = bytes[index...].firstIndex(of: UInt8(ascii: "\r")),
            let size = Int(String(decoding: bytes[index..<lineEnd], as: UTF8.self), radix: 16), size > 0
        {
            let start = lineEnd + 2
            let end = min(start + size, bytes.count)
            guard start <= end else { break }
            body += bytes[start..<end]
            index = min(end + 2, bytes.count)
        }
        return String(decoding: body, as: UTF8.self)
    }
}
