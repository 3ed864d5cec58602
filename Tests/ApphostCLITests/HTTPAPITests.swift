import ApphostControl
import ApphostModel
import ApphostServiceTesting
import ApphostVocabulary
import Foundation
import XCTest

/// The HTTP API end to end (CONTRACT O1): `apphost launch --http` on the samples, driven with
/// plain HTTP requests beside `apphost ctl`, as an operator's script would; and the event stream
/// resumed over both transports.
final class HTTPAPITests: HostTestCase {
    override class var stopsHostsGracefully: Bool { true }

    /// Starts the two samples with the API on a port the kernel picks; answers that port.
    private func startServingSamples(options: [String] = ["--http", "0"]) throws -> (HostProcess, Int) {
        // info: the line that says where it serves.
        let host = try startHost(
            [BuildProducts.cSample, BuildProducts.swiftSample], options: options + ["--log-level", "info"])
        try host.waitForLog(Self.cID, "callback did_become_active", prefix: true)
        try host.waitForLog(Self.swiftID, "callback will_connect", prefix: true)
        return (host, try host.httpAddress().port)
    }

    private func post(_ verb: String, _ body: String? = nil, port: Int, headers: [String: String] = [:]) throws
        -> HTTPTestResponse
    {
        try HTTPTestClient.request("POST", "/v1/\(verb)", port: port, headers: headers, body: body)
    }

    // CONTRACT O1: the API answers what ctl answers: ps as the same status, a verb with the same
    // effect, a refusal with the same line; and /metrics counts its requests.
    func testO1TheAPIDrivesTheHostAsCtlDoes() throws {
        let (host, port) = try startServingSamples()
        let guests = try HTTPTestClient.request("GET", "/v1/guests", port: port)
        XCTAssertEqual(guests.status, 200)
        let viaHTTP = try XCTUnwrap(try ControlCoding.decode(ControlReply<HostStatus>.self, from: guests.body).result)
        let viaSocket = try status()
        XCTAssertEqual(viaHTTP.guests.map(\.id), viaSocket.guests.map(\.id))
        XCTAssertEqual(viaHTTP.guests.map(\.appState), viaSocket.guests.map(\.appState))
        XCTAssertEqual(viaHTTP.foreground, Self.cID)

        let mark = host.events.count
        let switched = try post("switch", #"{"guest":"\#(Self.swiftID)"}"#, port: port)
        XCTAssertEqual(switched.status, 200, switched.body)
        XCTAssertEqual(
            switched.body, #"{"ok":true,"result":{"message":"\#(Self.swiftID) is in the foreground"}}"# + "\n")
        try host.waitForEvent("the Swift sample active", after: mark) {
            $0.kind == .appState && $0.guest == Self.swiftID && $0.to == "active"
        }
        XCTAssertEqual(try status().foreground, Self.swiftID)

        let refused = try post("suspend", #"{"guest":"org.example.nobody"}"#, port: port)
        XCTAssertEqual(refused.status, 404)
        let ctlRefusal = try ctl("suspend", "org.example.nobody")
        XCTAssertEqual(ctlRefusal.status, 4)
        let error = try XCTUnwrap(try ControlCoding.decode(ControlReply<ControlMessage>.self, from: refused.body).error)
        XCTAssertEqual(ctlRefusal.stderr, ["apphost: \(error)"])

        let metrics = try HTTPTestClient.request("GET", "/metrics", port: port)
        XCTAssertEqual(metrics.status, 200)
        XCTAssertTrue(metrics.headers["content-type"]?.hasPrefix("text/plain; version=0.0.4") == true)
        let text = try PrometheusText(lines: metrics.body.split(separator: "\n").map(String.init))
        XCTAssertEqual(text[#"apphost_control_requests_total{verb="switch",outcome="ok"}"#], 1)
        XCTAssertEqual(text[#"apphost_control_requests_total{verb="suspend",outcome="error"}"#], 2)
        XCTAssertEqual(text["apphost_guest_launches_total"], 2)
    }

    // CONTRACT O1: a status a client can rely on, and the same reply line over the socket, whose
    // code says which: 400 (invalid) for a request wrong whatever the host's state (a ratio out
    // of range, an action's argument out of its type's range, a member the verb does not have, a
    // member of the wrong type, each named), 404 (not-found) for no such guest, scene or action,
    // 409 (conflict) only for a state that forbids the command. ctl prints the same line, and
    // exits 64, 4 or 1.
    func testO1StatusesTellABadRequestFromAnUnknownNameFromARefusal() throws {
        let actions = try TestGuests.actions(into: scratch.path)
        let host = try startHost([BuildProducts.cSample, actions], options: ["--http", "0", "--log-level", "info"])
        try host.waitForLog(Self.cID, "callback did_become_active", prefix: true)
        try host.waitForEvent("the actions guest's launch") {
            $0.kind == .appState && $0.guest == TestGuests.actionsID
        }
        let port = try host.httpAddress().port
        let socket = ControlClient(socketPath: dataDirectory + "/control.sock")
        let actionsID = TestGuests.actionsID
        let cases: [(verb: String, body: String, status: Int, code: ControlErrorCode, error: String)] = [
            ("layout", #"{"layout":"ratio","ratio":0.95}"#, 400, .invalid, "ratio 0.95 is out of range (0.1 to 0.9)"),
            (
                "call", #"{"guest":"\#(actionsID)","action":"echo-y","arguments":[300]}"#, 400, .invalid,
                "echo-y(y)y: argument 1 (y): 300 is out of range for y"
            ),
            ("call", #"{"guest":"\#(actionsID)","action":"touch","arguments":[1]}"#, 400, .invalid, "touch() takes 0"),
            ("switch", #"{"guest":"\#(Self.cID)","gest":"x"}"#, 400, .invalid, #"switch has no member "gest""#),
            ("audio-volume", #"{"volume":"loud"}"#, 400, .invalid, #""volume" must be a number, not a string"#),
            ("suspend", #"{"guest":"org.example.nobody"}"#, 404, .notFound, "no guest org.example.nobody"),
            ("close", #"{"scene":"nope"}"#, 404, .notFound, "no scene nope"),
            ("layout", #"{"layout":"full","scene":"nope"}"#, 404, .notFound, "no scene nope"),
            ("call", #"{"guest":"\#(actionsID)","action":"nope"}"#, 404, .notFound, "\(actionsID) has no action nope"),
            ("resume", #"{"guest":"\#(Self.cID)"}"#, 409, .conflict, "\(Self.cID) is not suspended"),
            ("alert", #"{"dismiss":true}"#, 409, .conflict, "no alert is shown"),
        ]
        for (verb, body, status, code, error) in cases {
            let response = try post(verb, body, port: port)
            XCTAssertEqual(response.status, status, "\(verb) \(body): \(response.body)")
            let reply = try ControlCoding.decode(ControlReply<ControlMessage>.self, from: response.body)
            XCTAssertEqual(reply.code, code, "\(verb) \(body): \(response.body)")
            XCTAssertTrue(reply.error?.hasPrefix(error) == true, "\(verb) \(body): \(response.body)")
            let line = #"{"command":"\#(verb)","# + body.dropFirst()
            XCTAssertEqual(try socket.send(line: line) + "\n", response.body, line)
        }

        // ctl reaches the verb's own check with a negative number, and says what HTTP says.
        let ctlCases: [(arguments: [String], verb: String, body: String, status: Int32)] = [
            (["audio", "volume", "-0.5"], "audio-volume", #"{"volume":-0.5}"#, 64),
            (["layout", "ratio", "-0.5"], "layout", #"{"layout":"ratio","ratio":-0.5}"#, 64),
            (
                ["layout", "split", "a", "b", "--ratio", "2"], "layout",
                #"{"layout":"split","scene":"a","scene2":"b","ratio":2}"#, 64
            ),
            (
                ["call", actionsID, "echo-y", "-1"], "call",
                #"{"guest":"\#(actionsID)","action":"echo-y","words":["-1"]}"#, 64
            ),
            (["suspend", "org.example.nobody"], "suspend", #"{"guest":"org.example.nobody"}"#, 4),
            (["resume", Self.cID], "resume", #"{"guest":"\#(Self.cID)"}"#, 1),
        ]
        for (arguments, verb, body, status) in ctlCases {
            let response = try post(verb, body, port: port)
            let error = try XCTUnwrap(
                try ControlCoding.decode(ControlReply<ControlMessage>.self, from: response.body).error, response.body)
            let result = try runApphost(["ctl"] + arguments + ["--data-dir", dataDirectory])
            XCTAssertEqual(result.status, status, "ctl \(arguments): \(result.stderr)")
            XCTAssertEqual(result.stderr, ["apphost: \(error)"], "ctl \(arguments)")
            XCTAssertEqual(result.stdout, [])
        }
    }

    // CONTRACT O1: a follower that loses its connection and comes back with the last id it saw
    // gets every event it missed, in order, as the host printed them.
    func testO1AFollowerThatReconnectsLosesNothing() throws {
        let (host, port) = try startServingSamples()
        let stream = try HTTPTestClient.openStream("/v1/events", port: port)
        let opened = HTTPTestClient.read(stream, until: Date() + 5) { $0.contains(": following events") }
        XCTAssertEqual(try post("home", port: port).status, 200)
        let seen =
            opened
            + HTTPTestClient.read(stream, until: Date() + 10) { text in
                HTTPTestClient.events(in: opened + text).contains { $0.data.contains(#""event":"layout""#) }
            }
        close(stream)
        let lastSeen = try XCTUnwrap(
            HTTPTestClient.events(in: seen).last { $0.data.contains(#""event":"layout""#) })
        let lastID = try XCTUnwrap(lastSeen.id)

        // While nobody follows: the Swift sample comes forward.
        let mark = host.events.count
        XCTAssertEqual(try post("switch", #"{"guest":"\#(Self.swiftID)"}"#, port: port).status, 200)
        try host.waitForEvent("the Swift sample active", after: mark) {
            $0.kind == .appState && $0.guest == Self.swiftID && $0.to == "active"
        }

        let resumed = try HTTPTestClient.openStream("/v1/events", port: port, headers: ["Last-Event-ID": lastID])
        defer { close(resumed) }
        let replay = HTTPTestClient.read(resumed, until: Date() + 10) { text in
            HTTPTestClient.events(in: text).contains { $0.data.contains(#""to":"active""#) }
        }
        let replayed = try HTTPTestClient.events(in: replay).map {
            try ControlCoding.decode(HostEvent.self, from: $0.data)
        }
        let printed = host.events
        let seenEvent = try ControlCoding.decode(HostEvent.self, from: lastSeen.data)
        let after = try XCTUnwrap(printed.lastIndex(of: seenEvent), "the last event seen was printed")
        XCTAssertFalse(replayed.isEmpty)
        XCTAssertEqual(replayed, Array(printed[(after + 1)...].prefix(replayed.count)), "nothing missed, nothing twice")
        XCTAssertTrue(replayed.contains { $0.kind == .appState && $0.guest == Self.swiftID && $0.to == "active" })
        // Ids go on from the last seen, one by one.
        let ids = HTTPTestClient.events(in: replay).compactMap {
            $0.id?.split(separator: ".").last.flatMap { UInt64($0) }
        }
        let first = try XCTUnwrap(UInt64(lastID.split(separator: ".").last ?? "")) + 1
        XCTAssertEqual(ids, Array(first..<(first + UInt64(ids.count))))
    }

    // CONTRACT O1, X4: with the default loopback setup and no token, a page the operator visits
    // cannot drive the host: a cross-site text/plain form post, a foreign Origin and a rebound Host
    // are refused and the guest goes on; the same request as curl sends it, JSON, still works.
    func testO1CrossSiteRequestsCannotDriveTheHost() throws {
        let (host, port) = try startServingSamples()
        let terminate = #"{"guest":"\#(Self.swiftID)"}"#
        let attempts: [([String: String], Int)] = [
            (["Content-Type": "text/plain", "Origin": "http://evil.example"], 403),
            (["Content-Type": "text/plain"], 415),
            (["Content-Type": "application/x-www-form-urlencoded"], 415),
            (["Host": "evil.example:\(port)"], 403),
        ]
        for (headers, status) in attempts {
            XCTAssertEqual(try post("terminate", terminate, port: port, headers: headers).status, status, "\(headers)")
        }
        XCTAssertEqual(
            try HTTPTestClient.request("GET", "/v1/events", port: port, headers: ["Host": "evil.example"]).status, 403)
        XCTAssertEqual(try status().guests.count { $0.appState != .notRunning }, 2, "both guests still run")

        let mark = host.events.count
        let viaCurl = try post("terminate", terminate, port: port, headers: ["Content-Type": "application/json"])
        XCTAssertEqual(viaCurl.status, 200, viaCurl.body)
        try host.waitForEvent("the Swift sample terminated", after: mark) {
            $0.kind == .terminated && $0.guest == Self.swiftID
        }
    }

    // CONTRACT O1, O3, O4: the probes answer without the token, /readyz once the guests have
    // launched; /v1/version names this build and its ABI, for the read-only token too.
    func testO1ProbesAndVersionOfARunningHost() throws {
        let control = try scratch.file("control-token", contents: "c0ntrol-c0ntrol-c0ntrol\n")
        let reader = try scratch.file("read-token", contents: "r3ader-r3ader-r3ader\n")
        chmod(control, 0o600)
        chmod(reader, 0o600)
        let (_, port) = try startServingSamples(options: [
            "--http", "0", "--http-token-file", control, "--http-read-token-file", reader,
        ])
        XCTAssertEqual(try HTTPTestClient.request("GET", "/healthz", port: port).body, #"{"status":"alive"}"# + "\n")
        // READY comes with the launch's completion, just after the guests' first callbacks.
        var ready = try HTTPTestClient.request("GET", "/readyz", port: port)
        let deadline = Date() + 10
        while ready.status != 200, Date() < deadline {
            usleep(20_000)
            ready = try HTTPTestClient.request("GET", "/readyz", port: port)
        }
        XCTAssertEqual(ready.body, #"{"status":"ready"}"# + "\n")
        let version = try HTTPTestClient.request(
            "GET", "/v1/version", port: port, headers: ["Authorization": "Bearer r3ader-r3ader-r3ader"])
        XCTAssertEqual(version.status, 200, version.body)
        let reply = try ControlCoding.decode(ControlReply<[String: String]>.self, from: version.body)
        XCTAssertEqual(reply.result?["abi"], ABIVersion.current.description)
        XCTAssertEqual(reply.result?["version"]?.isEmpty, false)
        XCTAssertEqual(
            try post("home", port: port, headers: ["Authorization": "Bearer r3ader-r3ader-r3ader"]).status, 403,
            "the read-only token drives nothing")
        XCTAssertEqual(
            try post("home", port: port, headers: ["Authorization": "Bearer c0ntrol-c0ntrol-c0ntrol"]).status, 200)
    }

    // CONTRACT O1: a host whose switcher files are in neither place it looks (beside the binary in a
    // build tree, ../share/apphost/web once installed) says so, naming both, and still serves.
    func testO1AHostWithoutItsPageSaysWhereItLooked() throws {
        let bin = scratch.path + "/bin"
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: try BuildProducts.apphost(), toPath: bin + "/apphost")
        // No guest launches: the host has served HTTP by then, and stops.
        let run = try runCommand(
            bin + "/apphost",
            ["launch", "--data-dir", dataDirectory, "--isolation", "none", "--http", "0", scratch.path + "/none.so"])
        XCTAssertEqual(run.status, 1)
        XCTAssertTrue(
            run.stderr.contains {
                $0.contains(
                    "the web switcher's files are not installed: no index.html in \(bin)/apphost_ApphostHTTP.resources/Web nor in \(scratch.path)/share/apphost/web"
                )
            }, run.stderr.joined(separator: "\n"))
    }

    // CONTRACT O1, X4: an address others can reach is refused without a token, or with a token file
    // others may read, in one line before anything starts; with one, a request without the token
    // is 401 and changes nothing.
    func testO1OnlyLoopbackGoesWithoutAToken() throws {
        let guest = try BuildProducts.path(BuildProducts.cSample)
        let open = try runApphost(["launch", "--data-dir", dataDirectory, "--http", "0.0.0.0:0", guest])
        XCTAssertEqual(open.status, 1)
        XCTAssertEqual(
            open.stderr,
            [
                "apphost: --http 0.0.0.0:0 is not a loopback address: anyone who reaches it could drive the host; give --http-token-file"
            ])
        let tokenFile = scratch.path + "/token"
        try "s3cret-s3cret-s3cret\n".write(toFile: tokenFile, atomically: false, encoding: .utf8)
        chmod(tokenFile, 0o644)
        let readable = try runApphost([
            "launch", "--data-dir", dataDirectory, "--http", "0.0.0.0:0", "--http-token-file", tokenFile, guest,
        ])
        XCTAssertEqual(readable.status, 1)
        XCTAssertEqual(
            readable.stderr,
            [
                "apphost: the token file \(tokenFile) has mode 644: others may read it; make it 600 (chmod 600 \(tokenFile))"
            ])
        // A malformed address is a usage error (issue 34).
        let malformed = try runApphost(["launch", "--data-dir", dataDirectory, "--http", "localhost:http", guest])
        XCTAssertEqual(malformed.status, 64)
        XCTAssertEqual(malformed.stderr.count, 1)

        chmod(tokenFile, 0o600)
        let (_, port) = try startServingSamples(options: ["--http", "0.0.0.0:0", "--http-token-file", tokenFile])
        let refused = try post("home", port: port)
        XCTAssertEqual(refused.status, 401)
        XCTAssertEqual(try post("home", port: port, headers: ["Authorization": "Bearer nope"]).status, 401)
        XCTAssertEqual(try status().foreground, Self.cID, "nothing was done")
        XCTAssertEqual(
            try post("home", port: port, headers: ["Authorization": "Bearer s3cret-s3cret-s3cret"]).status, 200)
        XCTAssertNil(try status().foreground)
    }

    // CONTRACT O1: the control socket's followers resume too: each line has its position, and
    // `"after"` begins with what the host holds after one, as `ctl events --after` asks.
    func testO1ControlSocketFollowersResumeAfterAPosition() throws {
        let host = try startBothSamples()
        try ctlSucceeds("home")
        try host.waitForEvent("home's layout") { $0.kind == .layout }

        func follow(after position: String) throws -> [(position: EventPosition, event: HostEvent)] {
            let socket = try connectRaw(socketPath: dataDirectory + "/control.sock")
            defer { close(socket) }
            try sendRaw(EventsCommand(after: position).line + "\n", on: socket)
            // Up to home's layout at least; a read may bring more.
            let text = HTTPTestClient.read(socket, until: Date() + 10) { $0.contains(#""message":"home""#) }
            let lines = text.split(separator: "\n").map(String.init)
            XCTAssertEqual(lines.first, ControlReply.message("following events").line)
            return try lines.dropFirst().map { line in
                struct Position: Decodable { var position: String }
                return (
                    try XCTUnwrap(EventPosition(try ControlCoding.decode(Position.self, from: line).position), line),
                    try ControlCoding.decode(HostEvent.self, from: line)
                )
            }
        }
        let everything = try follow(after: "0")
        // The host prints its events through a writer of its own, which may lag the socket.
        _ = host.stdout.wait(until: Date() + 10) { $0.count >= everything.count }
        let printed = host.events
        XCTAssertEqual(everything.map(\.position.number), Array(1...UInt64(everything.count)))
        XCTAssertEqual(Set(everything.map(\.position.run)).count, 1, "one run")
        XCTAssertEqual(everything.map(\.event), Array(printed.prefix(everything.count)), "as the host printed them")
        let rest = try follow(after: everything[4].position.description)
        XCTAssertEqual(rest.first?.position.number, 6)
        let common = min(rest.count, everything.count - 5)
        XCTAssertEqual(
            Array(rest.map(\.event).prefix(common)), Array(everything.dropFirst(5).map(\.event).prefix(common)))
    }
}
