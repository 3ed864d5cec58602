import ApphostControl
import ApphostVocabulary
import XCTest

/// The control socket: no host, permissions, one host per data directory, bad requests, events.
final class ControlSocketTests: HostTestCase {
    func testCtlWithoutAHostIsOneLineError() throws {
        let result = try ctl("ps")
        XCTAssertEqual(result.status, 3, "no host running: systemctl's \"not running\"")
        assertOneLineError(result, containing: "no host is running with data dir \(dataDirectory)")
        XCTAssertTrue(result.stderr.first?.contains(dataDirectory + "/control.sock") == true, "\(result.stderr)")
    }

    func testCtlWithAStaleSocketIsTheSameOneLineError() throws {
        let killed = try startBothSamples()
        killed.kill()
        assertOneLineError(try ctl("ps"), containing: "no host is running with data dir \(dataDirectory)")
    }

    func testDataDirectoryTooLongForASocketIsOneLineError() throws {
        let long = scratch.path + "/" + String(repeating: "d", count: 100)
        let guest = try BuildProducts.path(BuildProducts.cSample)
        for arguments in [["ctl", "ps", "--data-dir", long], ["launch", "--data-dir", long, guest]] {
            let result = try runApphost(arguments)
            assertOneLineError(result, containing: "Unix sockets allow at most 107")
        }
    }

    // CONTRACT X2, X4: the control socket and the sessions database (its log and shared memory
    // too, which hold saved state as well) are the owner's alone; the data directory is private
    // to the host's user, and a root host, whose workers run under users of their own, lets only
    // its workers' group search it (0710), so that each reaches its own directory below it and
    // lists nothing.
    func testControlSocketAndDataDirectoryArePrivate() throws {
        _ = try startBothSamples()
        XCTAssertEqual(try mode(of: dataDirectory + "/control.sock"), 0o600)
        let expected = geteuid() == 0 ? 0o710 : 0o700
        XCTAssertEqual(try mode(of: dataDirectory), expected)
        XCTAssertEqual(try mode(of: dataDirectory + "/guests"), expected)
        for file in ["host.lock", "sessions.sqlite", "sessions.sqlite-wal", "sessions.sqlite-shm"] {
            XCTAssertEqual(try mode(of: "\(dataDirectory)/\(file)"), 0o600, file)
        }
    }

    func testSecondHostOnTheSameDataDirectoryFails() throws {
        let first = try startBothSamples()
        let second = try runApphost(
            ["launch", "--data-dir", dataDirectory, try BuildProducts.path(BuildProducts.swiftSample)])
        assertOneLineError(second, containing: "another host (pid \(first.pid)) is already running")
        XCTAssertEqual(try status().guests.count, 2, "the first host is untouched")
    }

    func testHostRestartsOnADataDirectoryLeftByAKilledHost() throws {
        let killed = try startBothSamples()
        killed.kill()
        XCTAssertTrue(FileManager.default.fileExists(atPath: dataDirectory + "/control.sock"), "a stale socket")
        _ = try startBothSamples()
        XCTAssertEqual(try status().foreground, Self.cID)
    }

    func testMalformedRequestsGetErrorRepliesAndTheHostGoesOn() throws {
        _ = try startBothSamples()
        let client = ControlClient(socketPath: dataDirectory + "/control.sock")
        let cases = [
            ("this is not json", "malformed request"),
            (#"{"command":"fly"}"#, "unknown command \"fly\""),
            (#"{"command":"switch"}"#, "switch needs a \"guest\""),
            (#"{"guest":"org.x"}"#, "malformed request"),
            (#"["ps"]"#, "malformed request"),
            (#"{"command":"memory-warning","level":"dire"}"#, "level\" is warning or critical, not \"dire\""),
            (#"{"command":"action","name":"go"}"#, "action needs a \"scene\""),
            (#"{"command":"action","scene":"1"}"#, "action needs a \"name\""),
            (#"{"command":"close"}"#, "close needs a \"scene\""),
            (#"{"command":"layout","layout":"tile"}"#, "layout\" is one of full, split"),
            (#"{"command":"layout","layout":"split","scene":"1"}"#, "layout split needs a \"scene2\""),
            (#"{"command":"layout","layout":"ratio"}"#, "layout ratio needs a \"ratio\""),
            (#"{"command":"layout","layout":"ratio","ratio":2}"#, "ratio 2.0 is out of range"),
            (#"{"command":"action","scene":"nope","name":"go"}"#, "no scene nope"),
        ]
        for (request, expected) in cases {
            let line = try client.send(line: request)
            let reply = try ControlCoding.decode(ControlReply<ControlMessage>.self, from: line)
            XCTAssertFalse(reply.ok, request)
            XCTAssertTrue(reply.error?.contains(expected) == true, "\(request) -> \(line)")
            XCTAssertFalse(reply.error?.contains("\n") ?? true)
        }
        let overlong = try client.send(line: String(repeating: "x", count: 100_000))
        XCTAssertTrue(overlong.contains(#""ok":false"#), overlong)
        XCTAssertEqual(try status().guests.count, 2, "the host still answers")
    }

    func testPipelinedRequestsAreAnsweredInOrderAfterTheClientStopsSending() throws {
        _ = try startBothSamples()
        let requests = [
            #"{"command":"switch","guest":"org.apphost.samples.swift"}"#, #"{"command":"ps"}"#, "bogus",
            #"{"command":"home"}"#,
        ]
        let replies = try exchangeRaw(
            requests.joined(separator: "\n") + "\n", socketPath: dataDirectory + "/control.sock")
        XCTAssertEqual(replies.count, 4, "\(replies)")
        guard replies.count == 4 else { return }
        let switched = try ControlCoding.decode(ControlReply<ControlMessage>.self, from: replies[0])
        XCTAssertEqual(switched.result?.message, "\(Self.swiftID) is in the foreground")
        let status = try ControlCoding.decode(ControlReply<HostStatus>.self, from: replies[1])
        XCTAssertEqual(status.result?.foreground, Self.swiftID, "ps ran after the switch")
        XCTAssertEqual(try ControlCoding.decode(ControlReply<ControlMessage>.self, from: replies[2]).ok, false)
        XCTAssertEqual(try ControlCoding.decode(ControlReply<ControlMessage>.self, from: replies[3]).ok, true)
    }

    /// A follower that stops reading is dropped with a one-line reason once it falls behind,
    /// instead of making the host buffer events without bound; the host goes on.
    func testFollowerThatStopsReadingIsDropped() throws {
        _ = try startBothSamples()
        let socketPath = dataDirectory + "/control.sock"
        let follower = try connectRaw(socketPath: socketPath, receiveBuffer: 4096)
        defer { close(follower) }
        try sendRaw(#"{"command":"events"}"# + "\n", on: follower)

        // Each show and dismiss makes about 1 KB of events; 3000 of them overrun the 1 MiB limit
        // plus what the kernel buffers.
        let cycle = #"{"command":"alert"}"# + "\n" + #"{"command":"alert","dismiss":true}"# + "\n"
        let replies = try exchangeRaw(String(repeating: cycle, count: 1500), socketPath: socketPath)
        XCTAssertEqual(replies.count, 3000)
        XCTAssertTrue(replies.allSatisfy { $0.contains(#""ok":true"#) })

        let received = readRawUntilClosed(follower)
        XCTAssertGreaterThan(received.count, 100, "the follower got events before it was dropped")
        let last = try XCTUnwrap(received.last)
        XCTAssertTrue(last.contains(#""ok":false"#) && last.contains("fell 1048576 bytes behind"), last)
        XCTAssertEqual(try status().guests.count, 2, "the host still answers")
    }

    // CONTRACT A5: a follower sees the same events, with their reasons, as the launch output.
    func testEventsFollowerSeesWhatTheHostPrints() throws {
        let host = try startBothSamples()
        let follower = Process()
        follower.executableURL = URL(fileURLWithPath: try BuildProducts.apphost())
        follower.arguments = ["ctl", "events", "--json", "--data-dir", dataDirectory]
        let output = OutputCollector()
        follower.standardOutput = output.pipe
        output.start()
        try follower.run()
        defer { if follower.isRunning { kill(follower.processIdentifier, SIGKILL) } }

        // The follower prints nothing until something happens: show and dismiss an alert until it does.
        let deadline = Date() + 10
        while output.snapshot.isEmpty && Date() < deadline {
            try ctlSucceeds("alert")
            try ctlSucceeds("alert", "--dismiss")
            _ = output.wait(until: Date() + 0.5) { !$0.isEmpty }
        }
        XCTAssertFalse(output.snapshot.isEmpty, "the follower printed no event within 10 s")

        let mark = host.events.count
        try ctlSucceeds("switch", Self.swiftID)
        try host.waitForLog(Self.swiftID, "callback did_become_active", prefix: true, after: mark)
        host.signal(SIGTERM)
        XCTAssertEqual(try host.waitForExit(), 0)

        // The host closes the stream when it stops; the follower ends too.
        let followed = output.waitForEnd(until: Date() + 10).map { line in
            (try? ControlCoding.decode(HostEvent.self, from: line))
                ?? HostEvent(time: Date(), kind: .error, message: line)
        }
        let printed = host.events
        XCTAssertGreaterThan(followed.count, 10)
        XCTAssertEqual(followed, Array(printed.suffix(followed.count)), "the follower saw a tail of the host's events")
        XCTAssertTrue(followed.contains { $0.kind == .terminated && $0.reason == .shutdown })
        follower.waitUntilExit()
        XCTAssertEqual(follower.terminationStatus, 0)
    }

    private func mode(of path: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return try XCTUnwrap(attributes[.posixPermissions] as? Int)
    }
}
