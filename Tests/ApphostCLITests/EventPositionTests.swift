import ApphostControl
import ApphostServiceTesting
import ApphostVocabulary
import Foundation
import XCTest

/// Positions in the event stream, the same over the control socket and HTTP (CONTRACT O1): each
/// names the run of the host it belongs to, so that a follower that comes back after the host
/// restarted hears so instead of silently missing the new run's first events; filters by guest
/// and kind over both transports; `ctl logs`; `ctl ps --state`.
class EventPositionCases: HostTestCase {
    override class var stopsHostsGracefully: Bool { true }

    /// Starts the two samples with the API on a port the kernel picks; answers that port.
    private func startServing() throws -> (HostProcess, Int) {
        let host = try startHost(
            [BuildProducts.cSample, BuildProducts.swiftSample], options: ["--http", "0", "--log-level", "info"])
        try host.waitForLog(Self.cID, "callback did_become_active", prefix: true)
        try host.waitForLog(Self.swiftID, "callback will_connect", prefix: true)
        return (host, try host.httpAddress().port)
    }

    /// `apphost ctl <arguments>` left running, its standard output collected.
    private func startCtl(_ arguments: [String]) throws -> (Process, OutputCollector) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try BuildProducts.apphost())
        process.arguments = ["ctl"] + arguments + ["--data-dir", dataDirectory]
        let output = OutputCollector()
        process.standardOutput = output.pipe
        output.start()
        try process.run()
        addTeardownBlock { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        return (process, output)
    }

    /// What a `--json` line of `ctl events` holds beside the event: its position, or none for a
    /// notice.
    private struct Positioned: Decodable {
        var position: String?
    }

    /// The lines `ctl events --json <arguments>` prints until `done` holds for them (10 s at most).
    private func followed(_ arguments: [String], until done: @escaping ([String]) -> Bool) throws -> [String] {
        let (process, output) = try startCtl(["events", "--json"] + arguments)
        let (lines, ready) = output.wait(until: Date() + 10, for: done)
        kill(process.processIdentifier, SIGTERM)
        XCTAssertTrue(ready, "ctl events \(arguments) printed:\n\(lines.joined(separator: "\n"))")
        return lines
    }

    /// `items[index]`, or a failure when there are too few.
    private func item<Item>(_ items: [Item], _ index: Int, file: StaticString = #filePath, line: UInt = #line) throws
        -> Item
    {
        try XCTUnwrap(items.indices.contains(index) ? items[index] : nil, "only \(items.count)", file: file, line: line)
    }

    private func decode(_ line: String) throws -> (position: String?, event: HostEvent) {
        (
            try ControlCoding.decode(Positioned.self, from: line).position,
            try ControlCoding.decode(HostEvent.self, from: line)
        )
    }

    /// The HTTP stream's text from `path` until `done` holds for its events (10 s at most).
    private func streamed(
        _ path: String, port: Int, headers: [String: String] = [:],
        until done: @escaping ([(id: String?, event: String?, data: String)]) -> Bool
    ) throws -> [(id: String?, event: String?, data: String)] {
        let stream = try HTTPTestClient.openStream(path, port: port, headers: headers)
        defer { close(stream) }
        let text = HTTPTestClient.read(stream, until: Date() + 10) { done(HTTPTestClient.events(in: $0)) }
        return HTTPTestClient.events(in: text)
    }

    // CONTRACT O1: a position from the host's previous run, over either transport, resumes with a
    // notice that the host restarted, then everything the new run holds from its first event
    // (host-started); never a silent skip of the new run's first events. A bare number, which
    // cannot tell the runs apart, is refused.
    func aResumeAcrossARestartIsReportedOverBothTransports() throws {
        let (first, firstPort) = try startServing()
        let before = try streamed("/v1/events?after=0", port: firstPort) { events in
            events.contains { $0.data.contains(#""event":"guest-loaded""#) }
        }
        let httpID = try XCTUnwrap(before.last?.id)
        let socketLines = try followed(["--after", "0"]) { $0.count >= 3 }
        let socketPosition = try XCTUnwrap(try decode(try item(socketLines, 2)).position)
        XCTAssertEqual(socketPosition.split(separator: ".").first, httpID.split(separator: ".").first, "one run")
        first.signal(SIGTERM)
        XCTAssertEqual(try first.waitForExit(), 0)

        let (_, port) = try startServing()
        // Over the socket, with the id the HTTP stream handed out in the first run.
        let lines = try followed(["--after", httpID]) { lines in
            lines.contains { $0.contains(#""event":"host-started""#) }
        }
        let notice = try decode(try XCTUnwrap(lines.first)).event
        XCTAssertEqual(notice.kind, .eventsDropped, lines.first ?? "")
        XCTAssertEqual(notice.name, "restarted", lines.first ?? "")
        let started = try decode(try item(lines, 1))
        XCTAssertEqual(started.event.kind, .hostStarted, "the new run's first event follows: \(lines)")
        XCTAssertEqual(started.position?.split(separator: ".").last, "1")
        XCTAssertNotEqual(started.position?.split(separator: ".").first, httpID.split(separator: ".").first)

        // Over HTTP, with a position the socket handed out in the first run.
        let events = try streamed("/v1/events", port: port, headers: ["Last-Event-ID": socketPosition]) { events in
            events.contains { $0.data.contains(#""event":"host-started""#) }
        }
        XCTAssertEqual(events.first?.event, "gap")
        XCTAssertEqual(events.first?.data, #"{"missed":null,"restarted":true}"#)
        XCTAssertTrue(events.dropFirst().first?.data.contains(#""event":"host-started""#) == true, "\(events)")
        XCTAssertEqual(events.dropFirst().first?.id, started.position)

        // A bare number could be a position of either run.
        let bare = try ctl("events", "--after", "5")
        XCTAssertEqual(bare.status, 64)
        XCTAssertEqual(bare.stderr.count, 1, "\(bare.stderr)")
        XCTAssertTrue(
            bare.stderr.first?.hasPrefix(
                "apphost: a bare position (5) cannot tell this run of the host from another: give RUN.POSITION")
                == true,
            "\(bare.stderr)")
        XCTAssertEqual(try HTTPTestClient.request("GET", "/v1/events?after=5", port: port).status, 400)
    }

    // CONTRACT O1: within one run, an id the HTTP stream handed out resumes `ctl events` just after
    // it, and text-mode lines show the position to resume from.
    func anIDFromTheHTTPStreamResumesCtlEvents() throws {
        let (_, port) = try startServing()
        let http = try streamed("/v1/events?after=0", port: port) { $0.count >= 4 }
        let id = try XCTUnwrap(try item(http, 1).id)
        let lines = try followed(["--after", id]) { $0.count >= 2 }
        let next = try decode(try item(lines, 0))
        XCTAssertEqual(next.position, try item(http, 2).id)
        XCTAssertEqual(next.event, try ControlCoding.decode(HostEvent.self, from: try item(http, 2).data))

        let (process, output) = try startCtl(["events", "--after", "0"])
        let text = output.wait(until: Date() + 10) { $0.count >= 2 }.lines
        kill(process.processIdentifier, SIGTERM)
        let run = try XCTUnwrap(id.split(separator: ".").first)
        XCTAssertTrue(text.first?.hasPrefix("\(run).1 ") == true, "\(text)")
        XCTAssertTrue(text.first?.contains(" host-started host ") == true, "\(text)")
        XCTAssertTrue(text.dropFirst().first?.hasPrefix("\(run).2 ") == true, "\(text)")
    }

    // CONTRACT O1: `ctl events` and /v1/events filter by guest and kind (repeated or as a comma
    // list), the same events over both; an unknown kind is one line, exit 64 or 400.
    func eventsFilterByGuestAndKindOverBothTransports() throws {
        let (_, port) = try startServing()
        try ctlSucceeds("switch", Self.swiftID)
        let done = { (kinds: [String]) in kinds.filter { $0 == "app-state" }.count >= 2 }
        let lines = try followed([
            "--after", "0", "--guest", Self.swiftID, "--kind", "app-state,log", "--kind", "terminated",
        ]) {
            lines in done(lines.compactMap { try? ControlCoding.decode(HostEvent.self, from: $0).kind.rawValue })
        }
        let viaSocket = try lines.map { try decode($0).event }
        XCTAssertFalse(viaSocket.isEmpty)
        XCTAssertTrue(
            viaSocket.allSatisfy { $0.guest == Self.swiftID && [.appState, .log, .terminated].contains($0.kind) },
            "\(lines)")
        XCTAssertTrue(viaSocket.contains { $0.kind == .log })

        let events = try streamed(
            "/v1/events?after=0&guest=\(Self.swiftID)&kind=app-state,log&kind=terminated", port: port
        ) { events in done(events.compactMap { try? ControlCoding.decode(HostEvent.self, from: $0.data).kind.rawValue })
        }
        let viaHTTP = try events.map { try ControlCoding.decode(HostEvent.self, from: $0.data) }
        let common = min(viaHTTP.count, viaSocket.count)
        XCTAssertEqual(Array(viaHTTP.prefix(common)), Array(viaSocket.prefix(common)), "the same events")

        let unknown = try ctl("events", "--kind", "app-state,nonsense")
        XCTAssertEqual(unknown.status, 64)
        XCTAssertEqual(unknown.stderr.count, 1, "\(unknown.stderr)")
        XCTAssertTrue(
            unknown.stderr.first?.hasPrefix(#"apphost: unknown event kind "nonsense" (known: host-started, "#) == true,
            "\(unknown.stderr)")
        let refused = try HTTPTestClient.request("GET", "/v1/events?kind=nonsense", port: port)
        XCTAssertEqual(refused.status, 400)
        XCTAssertTrue(refused.body.contains(#"unknown event kind \"nonsense\""#), refused.body)
    }

    // CONTRACT O1: `ctl logs <guest>` prints what the host holds of one guest's log and ends;
    // with -f it goes on with what the guest logs next; --json prints the events.
    func ctlLogsPrintsOneGuestsLog() throws {
        let host = try startBothSamples()
        let logs = try ctlSucceeds("logs", Self.swiftID)
        let json = try ctlSucceeds("logs", Self.swiftID, "--json")
        // The guest may log more meanwhile: what ctl printed is a prefix of what the host printed,
        // once the host's own writer has caught up with the socket.
        let isLog = { (event: HostEvent) in event.kind == .log && event.guest == Self.swiftID }
        _ = host.stdout.wait(until: Date() + 10) { lines in
            lines.compactMap { try? ControlCoding.decode(HostEvent.self, from: $0) }.filter(isLog).count
                >= json.stdout.count
        }
        let held = host.events.filter(isLog)
        XCTAssertFalse(logs.stdout.isEmpty)
        XCTAssertEqual(try json.stdout.map { try decode($0).event }, Array(held.prefix(json.stdout.count)))
        XCTAssertTrue(try json.stdout.allSatisfy { try decode($0).position != nil })
        XCTAssertEqual(logs.stdout.count, json.stdout.count)
        for (line, event) in zip(logs.stdout, held) {
            XCTAssertTrue(line.hasSuffix(" [\(event.level.map { "\($0)" } ?? "?")] \(event.message ?? "")"), line)
            XCTAssertFalse(line.contains(Self.cID), line)
        }

        let (process, output) = try startCtl(["logs", Self.swiftID, "-f"])
        _ = output.wait(until: Date() + 10) { $0.count >= logs.stdout.count }
        try ctlSucceeds("switch", Self.swiftID)
        let more = output.wait(until: Date() + 10) { $0.contains { $0.contains("callback did_become_active") } }
        kill(process.processIdentifier, SIGTERM)
        XCTAssertTrue(more.ready, "\(more.lines)")
        XCTAssertEqual(Array(more.lines.prefix(logs.stdout.count)), logs.stdout)
    }

    // CONTRACT O1: `ctl ps --state` lists the guests in those app states only; an unknown state is
    // a usage error.
    func psFiltersByState() throws {
        _ = try startBothSamples()
        let active = try ctlSucceeds("ps", "--state", "active", "--json")
        let status = try ControlCoding.decode(HostStatus.self, from: active.stdout.joined())
        XCTAssertEqual(status.guests.map(\.id), [Self.cID])
        let both = try ctlSucceeds("ps", "--state", "active,background", "--json")
        XCTAssertEqual(
            Set(try ControlCoding.decode(HostStatus.self, from: both.stdout.joined()).guests.map(\.id)),
            [Self.cID, Self.swiftID])
        let table = try ctlSucceeds("ps", "--state", "background")
        XCTAssertTrue(table.stdout.contains { $0.hasPrefix(Self.swiftID) }, "\(table.stdout)")
        XCTAssertFalse(table.stdout.contains { $0.hasPrefix(Self.cID) }, "\(table.stdout)")
        let unknown = try ctl("ps", "--state", "sleeping")
        XCTAssertEqual(unknown.status, 64)
        XCTAssertEqual(unknown.stderr.count, 1, "\(unknown.stderr)")
    }
}

// CONTRACT O1: the same cases with each isolation. (Linux's XCTest runs only the tests a class
// declares, hence one line for each.)
final class EventPositionTests: EventPositionCases {
    func testO1AResumeAcrossARestartIsReportedOverBothTransports() throws {
        try aResumeAcrossARestartIsReportedOverBothTransports()
    }
    func testO1AnIDFromTheHTTPStreamResumesCtlEvents() throws { try anIDFromTheHTTPStreamResumesCtlEvents() }
    func testO1EventsFilterByGuestAndKindOverBothTransports() throws {
        try eventsFilterByGuestAndKindOverBothTransports()
    }
    func testO1CtlLogsPrintsOneGuestsLog() throws { try ctlLogsPrintsOneGuestsLog() }
    func testO1PsFiltersByState() throws { try psFiltersByState() }
}

/// The same with guests in the host's process.
final class EventPositionInProcessTests: EventPositionCases {
    override class var isolation: String? { "none" }

    func testO1AResumeAcrossARestartIsReportedOverBothTransports() throws {
        try aResumeAcrossARestartIsReportedOverBothTransports()
    }
    func testO1AnIDFromTheHTTPStreamResumesCtlEvents() throws { try anIDFromTheHTTPStreamResumesCtlEvents() }
    func testO1EventsFilterByGuestAndKindOverBothTransports() throws {
        try eventsFilterByGuestAndKindOverBothTransports()
    }
    func testO1CtlLogsPrintsOneGuestsLog() throws { try ctlLogsPrintsOneGuestsLog() }
    func testO1PsFiltersByState() throws { try psFiltersByState() }
}
