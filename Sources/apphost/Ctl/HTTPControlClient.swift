import ApphostControl
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `apphost ctl --url`: a host's HTTP API as the CLI's way to it, for a host on another machine
/// (CONTRACT O4). A request is the control line the socket would get, posted to `/v1/<verb>`
/// (the API takes a body that names its verb), and the answer is the same reply line; events
/// come from `GET /v1/events` and are printed as the socket's stream prints them, so that the
/// output and the exit status are the same whichever way the host was reached. Foundation's
/// URLSession (libcurl's, on Linux) speaks HTTPS as well as HTTP, and needs no package more.
struct HTTPControlClient {
    let base: URL
    let token: String?
    /// How long to wait for a reply; a relaunch runs the guest's launch callbacks first.
    var timeout: TimeInterval = 30

    /// `url` must be http:// or https://, with a host.
    init(url text: String, token: String?) throws(CLIFailure) {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            url.host != nil
        else {
            throw CLIFailure(
                "--url must be an http:// or https:// address of a host's API, such as http://127.0.0.1:8080, "
                    + "not \"\(text)\"", exitCode: CLIFailure.invalidExitCode)
        }
        // appendingPathComponent takes a trailing slash as it is: "https://proxy/apphost/" keeps its prefix.
        base = url
        self.token = token
    }

    /// Posts one control line to its verb's endpoint; answers the reply line.
    func send(verb: String, line: String) throws(CLIFailure) -> String {
        var request = makeRequest(path: "v1/\(verb)")
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(line.utf8)
        let (status, body) = try perform(request)
        let text = String(decoding: body, as: UTF8.self)
        let reply = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init)
        guard let reply, reply.hasPrefix("{") else { throw answered(status, text) }
        return reply
    }

    /// Follows `GET /v1/events` for `request`, calling `onLine` with each event as the control
    /// socket's stream has it (its position first) and each notice of missed events as the
    /// socket's `events-dropped` line, until the host ends the stream.
    func follow(_ request: EventsCommand, onLine: @escaping @Sendable (String) -> Void) throws(CLIFailure) {
        var components = URLComponents(url: base.appendingPathComponent("v1/events"), resolvingAgainstBaseURL: false)
        var items: [URLQueryItem] = []
        if let after = request.after { items.append(URLQueryItem(name: "after", value: after)) }
        for guest in request.guests ?? [] { items.append(URLQueryItem(name: "guest", value: guest)) }
        for kind in request.kinds ?? [] { items.append(URLQueryItem(name: "kind", value: kind)) }
        if request.follow == false { items.append(URLQueryItem(name: "follow", value: "false")) }
        components?.queryItems = items.isEmpty ? nil : items
        guard let url = components?.url else { throw CLIFailure("cannot make the events address from \(base)") }
        var urlRequest = makeRequest(url: url)
        urlRequest.setValue("text/event-stream", forHTTPHeaderField: "Accept")
        // Not infinity, which URLSession cannot take; the host comments every 15 s on a quiet stream.
        urlRequest.timeoutInterval = 24 * 3600
        let stream = EventStreamReader(onLine: onLine)
        let session = URLSession(configuration: .ephemeral, delegate: stream, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        session.dataTask(with: urlRequest).resume()
        stream.finished.wait()
        if let error = stream.error { throw unreachable(error) }
        if stream.status != 200 {
            let text = String(decoding: stream.body, as: UTF8.self)
            if let line = text.split(separator: "\n").first.map(String.init),
                let refusal = try? ControlCoding.decode(ControlReply<ControlMessage>.self, from: line), !refusal.ok
            {
                throw CLIFailure(refusal: refusal.error ?? "the host refused to stream events", code: refusal.code)
            }
            throw answered(stream.status, text)
        }
        if let ended = stream.endedWith { throw CLIFailure(ended) }
    }

    private func makeRequest(path: String) -> URLRequest { makeRequest(url: base.appendingPathComponent(path)) }

    private func makeRequest(url: URL) -> URLRequest {
        var request = URLRequest(url: url, timeoutInterval: timeout)
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        return request
    }

    /// One request and its whole answer.
    private func perform(_ request: URLRequest) throws(CLIFailure) -> (Int, Data) {
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var outcome: (Int, Data, (any Error)?) = (0, Data(), nil)
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        session.dataTask(with: request) { data, response, error in
            outcome = ((response as? HTTPURLResponse)?.statusCode ?? 0, data ?? Data(), error)
            done.signal()
        }.resume()
        done.wait()
        if let error = outcome.2 { throw unreachable(error) }
        return (outcome.0, outcome.1)
    }

    /// No answer from the API: nothing listens there, or it could not be reached.
    private func unreachable(_ error: any Error) -> CLIFailure {
        CLIFailure(
            "no host answers at \(base.absoluteString): \((error as NSError).localizedDescription)",
            exitCode: CLIFailure.notRunningExitCode)
    }

    /// An answer that is no reply of the host's: a proxy's error page, another server.
    private func answered(_ status: Int, _ body: String) -> CLIFailure {
        let first = body.split(separator: "\n").first.map { String($0.prefix(200)) } ?? ""
        return CLIFailure("\(base.absoluteString) answered HTTP \(status), not a reply of a host: \(first)")
    }
}

/// Reads a Server-Sent Events response as it comes, turning each message into the line the
/// control socket's stream would carry for it.
private final class EventStreamReader: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    let onLine: @Sendable (String) -> Void
    let finished = DispatchSemaphore(value: 0)
    private(set) var status = 0
    private(set) var body = Data()
    private(set) var error: (any Error)?
    /// The error of an `event: dropped` that ended the stream.
    private(set) var endedWith: String?
    private var pending = Data()
    private var message: (event: String?, id: String?, data: [String]) = (nil, nil, [])

    init(onLine: @escaping @Sendable (String) -> Void) { self.onLine = onLine }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        status = (response as? HTTPURLResponse)?.statusCode ?? 0
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        guard status == 200 else { return body.append(data) }
        pending.append(data)
        while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
            let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
            pending.removeSubrange(pending.startIndex...newline)
            take(line.hasSuffix("\r") ? String(line.dropLast()) : line)
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        self.error = error
        finished.signal()
    }

    /// One line of the stream: a field, or the blank line that ends a message.
    private func take(_ line: String) {
        guard !line.isEmpty else { return dispatch() }
        if line.hasPrefix(":") { return }
        let (field, value) =
            line.firstIndex(of: ":").map { colon in
                (String(line[..<colon]), String(line[line.index(after: colon)...].drop { $0 == " " }))
            } ?? (line, "")
        switch field {
        case "event": message.event = value
        case "id": message.id = value
        case "data": message.data.append(value)
        default: break
        }
    }

    private func dispatch() {
        defer { message = (nil, nil, []) }
        let data = message.data.joined(separator: "\n")
        switch message.event {
        case nil:
            guard let id = message.id, data.hasPrefix("{") else { return }
            // The socket's line: the event's object with its position in front of its members.
            onLine(#"{"position":"\#(id)","# + data.dropFirst())
        case "gap":
            guard let gap = try? JSONDecoder().decode(Gap.self, from: Data(data.utf8)) else { return }
            onLine(EventsCommand.notice(count: gap.missed, restarted: gap.restarted ?? false).jsonLine())
        case "dropped":
            let reply = try? ControlCoding.decode(ControlReply<ControlMessage>.self, from: data)
            endedWith = reply?.error ?? "the host ended the event stream"
        default:
            break
        }
    }

    private struct Gap: Decodable {
        var missed: UInt64?
        var restarted: Bool?
    }
}
