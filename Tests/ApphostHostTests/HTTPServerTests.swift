import ApphostControl
import ApphostHTTP
import ApphostServiceTesting
import ApphostVocabulary
import Foundation
import Logging
import Synchronization
import XCTest

/// The HTTP API's transport (CONTRACT O1) against a host that records what it is asked: requests
/// become the control socket's commands, tokens are checked before anything is asked, and what a
/// client may cost is bounded. End to end with real guests: Tests/ApphostCLITests/HTTPAPITests.
final class HTTPServerTests: XCTestCase {
    /// Answers every command with a success naming it, and replays `replay` events to a follower
    /// that asks for a position.
    private final class RecordingHost: ControlResponder {
        let commands = Mutex<[String]>([])
        /// What each follower asked for.
        let follows = Mutex<[(start: EventStart, filter: EventFilter, live: Bool)]>([])
        let replay: Int

        init(replay: Int = 0) { self.replay = replay }

        func respond(to command: any ControlCommand, reply: @escaping @Sendable (String) -> Void) {
            commands.withLock { $0.append(command.line) }
            reply(ControlReply.message("did \(type(of: command).name)").line)
        }

        func follow(
            from start: EventStart, filter: EventFilter, live: Bool,
            _ handler: @escaping @Sendable (FollowedEvent) -> Void
        ) -> EventSubscription {
            follows.withLock { $0.append((start, filter, live)) }
            if start != .live {
                for number in 0..<replay {
                    let event = HostEvent(time: Date(timeIntervalSince1970: 0), kind: .log, message: "\(number)")
                    handler(.event(position: EventPosition(run: 1, number: UInt64(number + 1)), event))
                }
            }
            return EventSubscription {}
        }
    }

    private var servers: [HTTPServer] = []
    private var scratch: ScratchFiles!

    override func setUpWithError() throws { scratch = try ScratchFiles() }

    override func tearDown() {
        for server in servers { server.stop() }
        servers = []
        scratch = nil
    }

    private func start(
        _ host: RecordingHost, binding: String = "127.0.0.1:0", tokens: HTTPTokens = HTTPTokens(),
        allowedHosts: [String] = [], readiness: HostReadiness = HostReadiness(.ready),
        limits: HTTPLimits = HTTPLimits(), metrics: HTTPMetricsSink = HTTPMetricsSink()
    ) throws -> Int {
        let server = try HTTPServer.start(
            binding: try HTTPBinding(parsing: binding), tokens: tokens, allowedHosts: allowedHosts,
            version: HostVersion(version: "9.8.7", abi: "1.6"), readiness: readiness, responder: host,
            limits: limits, metrics: metrics, logger: Logger(label: "test"))
        servers.append(server)
        return server.address.port
    }

    // CONTRACT O1: a verb's endpoint decodes into the command the control socket would: the same
    // line, from the path's verb and the body's members.
    func testO1RequestsBecomeTheControlSocketsCommands() throws {
        let host = RecordingHost()
        let port = try start(host)
        let switched = try HTTPTestClient.request("POST", "/v1/switch", port: port, body: #"{"guest":"notes"}"#)
        XCTAssertEqual(switched.status, 200)
        XCTAssertEqual(switched.headers["content-type"], "application/json")
        XCTAssertEqual(switched.body, ControlReply.message("did switch").line + "\n")
        XCTAssertEqual(try HTTPTestClient.request("POST", "/v1/home", port: port).status, 200)
        XCTAssertEqual(try HTTPTestClient.request("GET", "/v1/guests", port: port).status, 200)
        XCTAssertEqual(
            try HTTPTestClient.request("POST", "/v1/home", port: port, body: #"{"command":"home"}"#).status, 200)
        XCTAssertEqual(
            host.commands.withLock { $0 },
            [SwitchCommand(guest: "notes").line, HomeCommand().line, StatusCommand().line, HomeCommand().line])

        // What the socket refuses, refused the same, before the host hears of it.
        let refusals: [(String, String?, Int, String)] = [
            ("/v1/switch", "{}", 400, #"switch needs a \"guest\""#),
            ("/v1/switch", #"{"guest":7}"#, 400, #"\"guest\" must be a string, not a number"#),
            ("/v1/switch", #"{"guest":"a","gest":"b"}"#, 400, #"switch has no member \"gest\""#),
            ("/v1/switch", "[1]", 400, "the body must be one JSON object"),
            ("/v1/switch", #"{"command":"home"}"#, 400, #"names the command \"home\" but the path \"switch\""#),
            ("/v1/reboot", nil, 404, #"unknown command \"reboot\""#),
            ("/v1/events", nil, 400, "GET /v1/events"),
        ]
        for (path, body, status, message) in refusals {
            let response = try HTTPTestClient.request("POST", path, port: port, body: body)
            XCTAssertEqual(response.status, status, "\(path) \(body ?? "")")
            XCTAssertTrue(response.body.contains(message), response.body)
            XCTAssertTrue(response.body.hasPrefix(#"{"code":""#), response.body)
        }
        XCTAssertEqual(host.commands.withLock { $0.count }, 4)

        // A chunk whose size is not a number is a broken request (400), not a large one.
        let brokenChunk = try HTTPTestClient.raw(
            "POST /v1/switch HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                + "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\nzz\r\n{}\r\n0\r\n\r\n", port: port)
        XCTAssertEqual(brokenChunk.status, 400, brokenChunk.body)
        XCTAssertEqual(host.commands.withLock { $0.count }, 4)

        // A body over the socket's longest line is refused whole.
        let huge = #"{"guest":""# + String(repeating: "x", count: 600 * 1024) + #""}"#
        XCTAssertEqual(try HTTPTestClient.request("POST", "/v1/switch", port: port, body: huge).status, 413)
        XCTAssertEqual(host.commands.withLock { $0.count }, 4)
    }

    // CONTRACT O1, X4: with a token, a request without it or with another is 401 and the host is
    // asked nothing; the page's own files, which hold no data, need none.
    func testO1ATokenIsCheckedBeforeTheHostIsAsked() throws {
        let host = RecordingHost()
        let port = try start(host, tokens: try HTTPTokens(controlFile: scratch.token("s3cret-s3cret-s3cret")))
        for headers in [[:], ["Authorization": "Bearer wrong"], ["Authorization": "Basic s3cret-s3cret-s3cret"]] {
            let response = try HTTPTestClient.request(
                "POST", "/v1/home", port: port, headers: headers, body: "{}")
            XCTAssertEqual(response.status, 401, "\(headers)")
            XCTAssertEqual(response.headers["www-authenticate"], #"Bearer realm="apphost""#)
            XCTAssertEqual(try HTTPTestClient.request("GET", "/metrics", port: port, headers: headers).status, 401)
            XCTAssertEqual(try HTTPTestClient.request("GET", "/v1/events", port: port, headers: headers).status, 401)
        }
        XCTAssertEqual(host.commands.withLock { $0 }, [])
        let allowed = try HTTPTestClient.request(
            "POST", "/v1/home", port: port, headers: ["Authorization": "Bearer s3cret-s3cret-s3cret"])
        XCTAssertEqual(allowed.status, 200)
        // The scheme is case-insensitive (RFC 9110, 11.1); the token is not.
        let lowercase = try HTTPTestClient.request(
            "POST", "/v1/home", port: port, headers: ["Authorization": "bearer s3cret-s3cret-s3cret"])
        XCTAssertEqual(lowercase.status, 200)
        XCTAssertEqual(
            try HTTPTestClient.request(
                "POST", "/v1/home", port: port, headers: ["Authorization": "Bearer S3CRET-S3CRET-S3CRET"]
            ).status, 401)
        XCTAssertEqual(host.commands.withLock { $0 }, [HomeCommand().line, HomeCommand().line])
        XCTAssertNotEqual(try HTTPTestClient.request("GET", "/", port: port).status, 401)
    }

    // CONTRACT O1, X4: only loopback without a token; the token's file must be its owner's alone.
    func testO1AnAddressOthersReachNeedsATokenFromAPrivateFile() throws {
        XCTAssertThrowsError(try start(RecordingHost(), binding: "0.0.0.0:0")) { error in
            XCTAssertTrue("\(error)".contains("is not a loopback address"), "\(error)")
        }
        let open = scratch.path + "/open-token"
        try "s3cret-s3cret-s3cret\n".write(toFile: open, atomically: false, encoding: .utf8)
        chmod(open, 0o644)
        XCTAssertThrowsError(try BearerToken(file: open)) { error in
            XCTAssertEqual(
                "\(error)", "the token file \(open) has mode 644: others may read it; make it 600 (chmod 600 \(open))")
        }
        XCTAssertThrowsError(try BearerToken(file: scratch.path + "/none"))
        XCTAssertThrowsError(try scratch.token("")) { error in
            XCTAssertTrue("\(error)".hasSuffix("has no token on its first line"), "\(error)")
        }
        // A blank first line is a mistake, not a separator: the second line is not taken.
        XCTAssertThrowsError(try scratch.token("\nsecond-line-token-0123456789")) { error in
            XCTAssertTrue("\(error)".hasSuffix("has no token on its first line"), "\(error)")
        }
        XCTAssertThrowsError(try scratch.token("12345")) { error in
            XCTAssertTrue("\(error)".hasSuffix("has 5 characters; use 16 at least (openssl rand -hex 16)"), "\(error)")
        }
        XCTAssertNoThrow(
            try start(
                RecordingHost(), binding: "0.0.0.0:0",
                tokens: HTTPTokens(controlFile: scratch.token("s3cret-s3cret-s3cret"))))
        XCTAssertTrue(try HTTPBinding(parsing: "8080").isLoopback)
        XCTAssertEqual(try HTTPBinding(parsing: "8080"), HTTPBinding(host: "127.0.0.1", port: 8080))
        XCTAssertEqual(try HTTPBinding(parsing: "[::1]:9"), HTTPBinding(host: "::1", port: 9))
        XCTAssertTrue(try HTTPBinding(parsing: "[::1]:9").isLoopback)
        XCTAssertFalse(try HTTPBinding(parsing: "10.0.0.1:80").isLoopback)
        for bad in ["", "host:", ":80", "1.2.3.4:70000", "[::1]80", "x"] {
            XCTAssertThrowsError(try HTTPBinding(parsing: bad), bad)
        }
    }

    // CONTRACT O1, X4: what a page the operator visits could make a browser send is refused before
    // the host is asked: a POST that is not JSON (a form post, text/plain), a foreign Origin, and a
    // Host naming another site (DNS rebinding). A client such as curl, with JSON, still gets in.
    func testO1CrossSiteRequestsAreRefused() throws {
        let host = RecordingHost()
        let port = try start(host, allowedHosts: ["apphost.example.com"])
        let ownOrigin = "http://127.0.0.1:\(port)"
        let refused: [(String, String, [String: String], Int, String)] = [
            ("POST", "/v1/home", ["Content-Type": "text/plain"], 415, "Content-Type: application/json"),
            ("POST", "/v1/home", ["Content-Type": "application/x-www-form-urlencoded"], 415, "application/json"),
            ("POST", "/v1/home", ["Content-Type": "none"], 415, "got none"),
            ("POST", "/v1/home", ["Origin": "http://evil.example"], 403, "Origin http://evil.example"),
            ("POST", "/v1/home", ["Origin": "null"], 403, "cross-site"),
            // Another port of this machine is another origin.
            ("POST", "/v1/home", ["Origin": "http://127.0.0.1:1"], 403, "cross-site"),
            ("GET", "/v1/guests", ["Origin": "http://evil.example"], 403, "cross-site"),
            ("GET", "/v1/guests", ["Host": "evil.example:\(port)"], 403, "--http-allowed-host evil.example"),
            ("GET", "/v1/events", ["Host": "rebound.example"], 403, "not this host"),
            ("GET", "/v1/guests", ["Host": "10.1.2.3"], 403, "not this host"),
            // HTTP/1.1 without Host (RFC 9112, 3.2).
            ("GET", "/v1/guests", ["Host": "none"], 400, "no Host header"),
        ]
        for (method, path, headers, status, message) in refused {
            let response = try HTTPTestClient.request(method, path, port: port, headers: headers, body: "{}")
            XCTAssertEqual(response.status, status, "\(method) \(path) \(headers)")
            XCTAssertTrue(response.body.contains(message), response.body)
        }
        XCTAssertEqual(host.commands.withLock { $0 }, [], "the host was asked nothing")

        let accepted: [[String: String]] = [
            [:], ["Content-Type": "application/json; charset=utf-8"], ["Content-Type": "Application/JSON"],
            ["Host": "localhost:\(port)"], ["Host": "[::1]:\(port)"],
            ["Host": "127.0.0.1:\(port)", "Origin": ownOrigin],
            ["Host": "apphost.example.com", "Origin": "https://apphost.example.com"],
            ["Host": "APPHOST.example.com:443", "Origin": "https://apphost.example.com"],
        ]
        for headers in accepted {
            let response = try HTTPTestClient.request("POST", "/v1/home", port: port, headers: headers)
            XCTAssertEqual(response.status, 200, "\(headers): \(response.body)")
        }
        XCTAssertEqual(host.commands.withLock { $0.count }, accepted.count)
    }

    // CONTRACT O1: the policy alone, for what a server test cannot send: a host bound to every
    // address takes any IP literal (which cannot be rebound) and still no other name.
    func testO1CrossSitePolicyOnEveryAddress() {
        let policy = CrossSitePolicy(binding: HTTPBinding(host: "0.0.0.0", port: 80))
        XCTAssertTrue(policy.accepts(hostHeader: "192.0.2.7:80"))
        XCTAssertTrue(policy.accepts(hostHeader: "[2001:db8::1]:80"))
        XCTAssertTrue(policy.accepts(hostHeader: "localhost"))
        XCTAssertFalse(policy.accepts(hostHeader: "evil.example"))
        let loopback = CrossSitePolicy(binding: HTTPBinding(host: "127.0.0.1", port: 80))
        XCTAssertFalse(loopback.accepts(hostHeader: "192.0.2.7"))
        XCTAssertTrue(CrossSitePolicy.isSameOrigin("http://a.example", host: "a.example:80"))
        XCTAssertFalse(CrossSitePolicy.isSameOrigin("https://a.example", host: "a.example:80"))
        XCTAssertFalse(CrossSitePolicy.isSameOrigin("http://a.example", host: nil))
        XCTAssertFalse(CrossSitePolicy.isSameOrigin("file://", host: "a.example"))
        XCTAssertEqual(policy.refusal(method: .get, contentType: nil), nil, "a GET needs no type")
        XCTAssertEqual(policy.refusal(method: .post, contentType: "text/plain")?.status, .unsupportedMediaType)
    }

    // CONTRACT O1, O3: the probes answer without a token and tell nothing but alive and ready;
    // /readyz is 503 until the host is ready and once it stops.
    func testO1ProbesNeedNoTokenAndTellNothingElse() throws {
        let readiness = HostReadiness()
        let port = try start(
            RecordingHost(), tokens: try HTTPTokens(controlFile: scratch.token("s3cret-s3cret-s3cret")),
            readiness: readiness)
        let alive = try HTTPTestClient.request("GET", "/healthz", port: port)
        XCTAssertEqual(alive.status, 200)
        XCTAssertEqual(alive.body, #"{"status":"alive"}"# + "\n")
        XCTAssertEqual(try HTTPTestClient.request("GET", "/readyz", port: port).status, 503)
        readiness.markReady()
        let ready = try HTTPTestClient.request("GET", "/readyz", port: port)
        XCTAssertEqual(ready.status, 200)
        XCTAssertEqual(ready.body, #"{"status":"ready"}"# + "\n")
        readiness.markStopping()
        readiness.markReady()
        XCTAssertEqual(try HTTPTestClient.request("GET", "/readyz", port: port).body, #"{"status":"stopping"}"# + "\n")
        XCTAssertEqual(try HTTPTestClient.request("POST", "/healthz", port: port).status, 405)
        // Everything else still needs the token.
        XCTAssertEqual(try HTTPTestClient.request("GET", "/v1/version", port: port).status, 401)
        XCTAssertEqual(try HTTPTestClient.request("GET", "/nothing", port: port).status, 401)
    }

    // CONTRACT O1, O4: a read-only token reads (guests, events, metrics, version) and drives
    // nothing; the control token does both.
    func testO1AReadOnlyTokenOnlyReads() throws {
        let host = RecordingHost()
        let port = try start(
            host,
            tokens: try HTTPTokens(
                controlFile: scratch.token("control-control-control"), readFile: scratch.token("reader-reader-reader")))
        let reader = ["Authorization": "Bearer reader-reader-reader"]
        let control = ["Authorization": "Bearer control-control-control"]
        for path in ["/v1/guests", "/metrics", "/v1/version"] {
            XCTAssertEqual(try HTTPTestClient.request("GET", path, port: port, headers: reader).status, 200, path)
            XCTAssertEqual(try HTTPTestClient.request("GET", path, port: port, headers: control).status, 200, path)
        }
        let stream = try HTTPTestClient.openStream("/v1/events", port: port, headers: reader)
        let opened = HTTPTestClient.read(stream, until: Date() + 5) { $0.contains(": following events") }
        close(stream)
        XCTAssertTrue(opened.hasPrefix("HTTP/1.1 200"), opened)
        let denied = try HTTPTestClient.request(
            "POST", "/v1/terminate", port: port, headers: reader, body: #"{"guest":"a"}"#)
        XCTAssertEqual(denied.status, 403)
        XCTAssertTrue(denied.body.contains("needs the control token"), denied.body)
        XCTAssertEqual(
            host.commands.withLock { $0 },
            [StatusCommand().line, StatusCommand().line, MetricsCommand().line, MetricsCommand().line])
        XCTAssertEqual(try HTTPTestClient.request("POST", "/v1/home", port: port, headers: control).status, 200)

        let version = try HTTPTestClient.request("GET", "/v1/version", port: port, headers: reader)
        XCTAssertEqual(version.body, #"{"ok":true,"result":{"abi":"1.6","version":"9.8.7"}}"# + "\n")
        XCTAssertThrowsError(try HTTPTokens(controlFile: nil, readFile: scratch.token("reader-reader-reader"))) {
            error in
            XCTAssertEqual("\(error)", "--http-read-token-file needs --http-token-file")
        }
    }

    // CONTRACT O1: a token file is read again on reload (SIGHUP), so a rotation needs no restart;
    // a file that went bad keeps the token it had.
    func testO1TokenFilesAreReadAgainOnReload() throws {
        let file = try scratch.token("old-token-0123456789")
        let tokens = try HTTPTokens(controlFile: file)
        let port = try start(RecordingHost(), tokens: tokens)
        func status(_ token: String) throws -> Int {
            try HTTPTestClient.request("POST", "/v1/home", port: port, headers: ["Authorization": "Bearer \(token)"])
                .status
        }
        XCTAssertEqual(try status("old-token-0123456789"), 200)
        try scratch.write("new-token-0123456789", to: file)
        XCTAssertEqual(try status("new-token-0123456789"), 401, "not before the reload")
        XCTAssertEqual(
            tokens.reload().map { try? $0.get() }, ["read the control token again from \(file): a new token"])
        XCTAssertEqual(try status("new-token-0123456789"), 200)
        XCTAssertEqual(try status("old-token-0123456789"), 401)

        chmod(file, 0o644)
        let failed = tokens.reload()
        guard case .failure(let error) = failed.first else { return XCTFail("\(failed)") }
        XCTAssertTrue(
            error.message.hasPrefix("kept the control token: the token file \(file) has mode 644"), error.message)
        XCTAssertEqual(try status("new-token-0123456789"), 200)
    }

    // CONTRACT X4: a client that sends its request's head or body a byte at a time, or opens a
    // connection and sends nothing, is closed when its deadline passes, not after the idle timeout.
    func testX4SlowRequestsAreClosedAtTheirDeadline() throws {
        var limits = HTTPLimits()
        limits.requestHeadTimeout = .milliseconds(300)
        limits.requestBodyTimeout = .milliseconds(300)
        let port = try start(RecordingHost(), limits: limits)
        let silent = try HTTPTestClient.connect(port: port)
        let slowHead = try HTTPTestClient.connect(port: port)
        try HTTPTestClient.send("GET /v1/guests HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ", on: slowHead)
        let slowBody = try HTTPTestClient.connect(port: port)
        try HTTPTestClient.send(
            "POST /v1/home HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                + "Content-Length: 100\r\n\r\n{", on: slowBody)
        defer { [silent, slowHead, slowBody].forEach { close($0) } }
        for (name, connection) in [("silent", silent), ("slow head", slowHead), ("slow body", slowBody)] {
            // The idle timeout is 30 s: closed within 5 s means the deadline did it.
            let started = Date()
            _ = HTTPTestClient.read(connection, until: Date() + 5) { _ in false }
            XCTAssertLessThan(Date().timeIntervalSince(started), 5, "\(name) connection still open")
        }
    }

    // CONTRACT X4: idle connections that never showed a token cannot hold every slot: the oldest
    // is closed for each new one past the reserve, so the operator's request is answered while
    // they wait, and a connection that showed the token is never closed for them.
    func testX4IdleClientsCannotLockTheOperatorOut() throws {
        var limits = HTTPLimits()
        limits.maximumConnections = 24
        limits.reservedConnections = 4
        let host = RecordingHost()
        let port = try start(
            host, tokens: try HTTPTokens(controlFile: scratch.token("s3cret-s3cret-s3cret")), limits: limits)
        let operatorHeaders = ["Authorization": "Bearer s3cret-s3cret-s3cret"]
        // An operator's keep-alive connection, which has shown the token.
        let kept = try HTTPTestClient.connect(port: port)
        defer { close(kept) }
        let request =
            "POST /v1/home HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            + "Authorization: Bearer s3cret-s3cret-s3cret\r\nContent-Length: 0\r\n\r\n"
        try HTTPTestClient.send(request, on: kept)
        XCTAssertTrue(
            HTTPTestClient.read(kept, until: Date() + 5) { $0.contains("did home") }.hasPrefix("HTTP/1.1 200"))

        var idle: [Int32] = []
        defer { idle.forEach { close($0) } }
        for _ in 0..<60 { idle.append(try HTTPTestClient.connect(port: port)) }
        let answered = try HTTPTestClient.request("GET", "/v1/guests", port: port, headers: operatorHeaders, timeout: 5)
        XCTAssertEqual(answered.status, 200, "the operator gets in while 60 idle connections wait")
        try HTTPTestClient.send(request, on: kept)
        XCTAssertTrue(
            HTTPTestClient.read(kept, until: Date() + 5) { $0.contains("did home") }.hasPrefix("HTTP/1.1 200"),
            "the operator's own connection was kept")
    }

    // CONTRACT O1, X4: a follower's place is free as soon as its client goes, not when a write to
    // it fails (up to a keep-alive interval later, an hour here); and a proxy is told not to
    // buffer the stream, which nginx does unless told.
    func testO1AFollowersPlaceIsFreedWhenItsClientGoes() throws {
        var limits = HTTPLimits()
        limits.maximumFollowers = 1
        limits.keepAliveInterval = .seconds(3600)
        let port = try start(RecordingHost(replay: 0), limits: limits)
        for round in 1...3 {
            var opened = ""
            let deadline = Date() + 5
            var stream: Int32 = -1
            while Date() < deadline, !opened.hasPrefix("HTTP/1.1 200") {
                if stream >= 0 { close(stream) }
                stream = try HTTPTestClient.openStream("/v1/events", port: port)
                opened = HTTPTestClient.read(stream, until: Date() + 1) { $0.contains("\r\n\r\n") }
                if !opened.hasPrefix("HTTP/1.1 200") { Thread.sleep(forTimeInterval: 0.05) }
            }
            XCTAssertTrue(opened.hasPrefix("HTTP/1.1 200"), "round \(round): \(opened)")
            XCTAssertTrue(opened.lowercased().contains("x-accel-buffering: no"), opened)
            close(stream)
        }
    }

    // CONTRACT O1: the stream's query is an events request, validated as the control socket's:
    // Last-Event-ID before ?after=, filters by guest and kind (repeated or comma lists), follow=false
    // ends after the replay; an unknown kind, a bare position or a bad follow is one line, 400.
    func testO1TheEventQueryIsValidatedAsTheSocketsRequest() throws {
        let host = RecordingHost(replay: 2)
        let port = try start(host)
        let replay = try HTTPTestClient.request(
            "GET", "/v1/events?after=0&guest=a.b,c.d&kind=log&kind=app-state,terminated&follow=false", port: port,
            headers: ["Last-Event-ID": "17.3"])
        XCTAssertEqual(replay.status, 200, replay.body)
        let events = HTTPTestClient.events(in: "HTTP/1.1 200 OK\r\n\r\n" + replay.body)
        XCTAssertEqual(events.map(\.id), ["1.1", "1.2"], replay.body)
        let asked = try XCTUnwrap(host.follows.withLock { $0.first })
        XCTAssertEqual(asked.start, .after(EventPosition(run: 17, number: 3)))
        XCTAssertEqual(asked.filter, EventFilter(guests: ["a.b", "c.d"], kinds: [.log, .appState, .terminated]))
        XCTAssertFalse(asked.live)

        for (query, error) in [
            ("kind=log,nonsense", #"unknown event kind \"nonsense\""#),
            ("after=42", "a bare position (42) cannot tell this run of the host from another"),
            ("after=1.x", #"malformed event position \"1.x\""#),
            ("follow=maybe", #"follow must be true or false, not \"maybe\""#),
        ] {
            let refused = try HTTPTestClient.request("GET", "/v1/events?\(query)", port: port)
            XCTAssertEqual(refused.status, 400, query)
            XCTAssertTrue(refused.body.contains(error), refused.body)
            XCTAssertEqual(refused.body.split(separator: "\n").count, 1)
        }
        XCTAssertEqual(host.follows.withLock { $0.count }, 1, "a refused request asks the host nothing")
    }

    // CONTRACT O1, X4: a follower that does not keep up is told so and dropped, and followers beyond
    // the limit are refused, so that no client makes the host buffer without end.
    func testO1FollowersAreBounded() throws {
        var limits = HTTPLimits()
        limits.maximumFollowers = 1
        limits.followerBacklog = 5
        // A client that went away is noticed when a write to it fails.
        limits.keepAliveInterval = .milliseconds(100)
        // CONTRACT O2: what the metrics are told, the followers after each change and each drop.
        let told = Mutex((followers: [Int](), dropped: 0))
        let metrics = HTTPMetricsSink(
            followers: { count in told.withLock { $0.followers.append(count) } },
            followerDropped: { told.withLock { $0.dropped += 1 } })
        let port = try start(RecordingHost(replay: 100), limits: limits, metrics: metrics)

        // Live only: it holds the one place.
        let first = try HTTPTestClient.openStream("/v1/events", port: port)
        let opened = HTTPTestClient.read(first, until: Date() + 5) { $0.contains(": following events") }
        XCTAssertTrue(opened.hasPrefix("HTTP/1.1 200"), opened)
        XCTAssertTrue(opened.lowercased().contains("content-type: text/event-stream"), opened)
        let second = try HTTPTestClient.request("GET", "/v1/events", port: port)
        XCTAssertEqual(second.status, 503)
        XCTAssertEqual(second.headers["retry-after"], "5")
        close(first)
        // Its place is free again once the server has noticed.

        // 100 events at once to a follower that may hold 5: five, then the notice, then the end.
        var text = ""
        let deadline = Date() + 5
        while Date() < deadline, !text.contains("event: dropped") {
            let stream = try HTTPTestClient.openStream("/v1/events?after=0", port: port)
            text = HTTPTestClient.read(stream, until: Date() + 2) { _ in false }
            close(stream)
        }
        let events = HTTPTestClient.events(in: text)
        XCTAssertEqual(events.filter { $0.event == nil }.count, 5, text)
        XCTAssertEqual(events.last?.event, "dropped", text)
        XCTAssertTrue(events.last?.data.contains("fell 5 events behind") == true, text)
        // Told once its stream has ended: the dropped one, and every follower gone.
        let ended = Date() + 5
        while Date() < ended, told.withLock({ $0.dropped == 0 || $0.followers.last != 0 }) { usleep(10_000) }
        let seen = told.withLock { $0 }
        XCTAssertEqual(seen.dropped, 1)
        XCTAssertEqual(seen.followers.first, 1, "the first follower")
        XCTAssertEqual(seen.followers.last, 0, "\(seen.followers)")
        XCTAssertEqual(seen.followers.max(), 1, "one at most")
    }
}

/// A directory of files for one test, removed after it.
private final class ScratchFiles {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "apphost-http-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// The path of a new token file of mode 600 holding `token`, checked as the host reads it.
    func token(_ token: String) throws -> String {
        let file = path + "/token-\(UUID().uuidString)"
        try write(token, to: file)
        _ = try BearerToken(file: file)
        return file
    }

    /// Replaces what the token file at `file` holds, keeping its mode 600.
    func write(_ token: String, to file: String) throws {
        try (token + "\n").write(toFile: file, atomically: false, encoding: .utf8)
        chmod(file, 0o600)
    }
}
