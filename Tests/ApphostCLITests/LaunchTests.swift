import XCTest

/// `apphost launch` on the two samples: launch order, background connection, states, reasons.
/// Run by LaunchTests (process isolation) and LaunchInProcessTests (none).
class LaunchCases: HostTestCase {
    // CONTRACT A2, S2: the launch callback first, then will-connect, will-enter-foreground, did-become-active.
    func foregroundGuestLaunchesThenConnectsInContractOrder() throws {
        let host = try startBothSamples()
        XCTAssertEqual(
            host.events.loggedCallbacks(of: Self.cID),
            ["did_finish_launching", "will_connect", "will_enter_foreground", "did_become_active"])
    }

    // CONTRACT S2: the second guest's scene connects straight into background.
    func secondGuestConnectsIntoBackground() throws {
        let host = try startBothSamples()
        // ps answers after every callback of the launch has been delivered.
        let status = try status()
        XCTAssertEqual(host.events.loggedCallbacks(of: Self.swiftID), ["did_finish_launching", "will_connect"])
        let sceneStates = host.events.filter { $0.kind == .sceneState && $0.guest == Self.swiftID }
        XCTAssertEqual(sceneStates.map { "\($0.from ?? "?") -> \($0.to ?? "?")" }, ["unattached -> background"])
        XCTAssertEqual(status.guest(Self.swiftID)?.scenes.map(\.state), [.background])
    }

    // CONTRACT A1: ps reports each guest's app state and each scene's state.
    func psShowsAppAndSceneStates() throws {
        _ = try startBothSamples()
        let status = try status()
        XCTAssertEqual(status.foreground, Self.cID)
        XCTAssertFalse(status.alert)
        let c = try XCTUnwrap(status.guest(Self.cID))
        XCTAssertEqual(c.appState, .active)
        XCTAssertEqual(c.phase, .running)
        XCTAssertEqual(c.name, "C Sample")
        XCTAssertEqual(c.scenes.map(\.state), [.foregroundActive])
        XCTAssertEqual(c.scenes.map(\.role), [.primary])
        XCTAssertNotNil(c.scenes.first?.handle)
        let swift = try XCTUnwrap(status.guest(Self.swiftID))
        XCTAssertEqual(swift.appState, .background)
        XCTAssertEqual(swift.scenes.map(\.state), [.background])

        let table = try ctlSucceeds("ps").stdout
        XCTAssertTrue(
            table.contains { $0.hasPrefix(Self.cID) && $0.contains("active") && $0.contains("running") }, "\(table)")
        XCTAssertTrue(table.contains { $0.contains("scene") && $0.contains("foregroundActive") }, "\(table)")
        XCTAssertTrue(table.contains { $0.hasPrefix(Self.swiftID) && $0.contains("background") }, "\(table)")
    }

    // ps shows each guest's worker process: the child of the host that runs its library; none in
    // the host's process (--isolation none), where the JSON has no pid.
    func psShowsEachGuestsWorkerPid() throws {
        let host = try startBothSamples()
        let status = try status()
        let raw = try ctlSucceeds("ps", "--json").stdout.joined()
        let table = try ctlSucceeds("ps").stdout
        XCTAssertEqual(table.first { $0.hasPrefix("GUEST") }?.contains(" PID "), true, "\(table)")
        for (id, library) in [(Self.cID, BuildProducts.cSample), (Self.swiftID, BuildProducts.swiftSample)] {
            let guest = try XCTUnwrap(status.guest(id))
            let row = try XCTUnwrap(table.first { $0.hasPrefix(id + " ") }, "\(table)")
            if Self.isolation == "none" {
                XCTAssertNil(guest.pid)
                XCTAssertFalse(raw.contains(#""pid""#), raw)
                XCTAssertTrue(row.split(separator: " ").contains("-"), row)
            } else {
                let worker = try XCTUnwrap(
                    WorkerProcesses.pid(ofHost: host.pid, mapping: library), "no worker maps \(library)")
                XCTAssertEqual(guest.pid, worker, "the worker that runs \(library), a child of the host")
                XCTAssertTrue(row.split(separator: " ").contains("\(worker)"), row)
            }
        }
    }

    // CONTRACT A5: every transition in the stream carries a reason; launch transitions are
    // requested, the background connection automatic, the final terminations shutdown.
    func everyTransitionCarriesAReason() throws {
        let host = try startBothSamples()
        _ = try status()
        host.signal(SIGTERM)
        XCTAssertEqual(try host.waitForExit(), 0)

        let transitions = host.events.filter { [.appState, .sceneState, .terminated].contains($0.kind) }
        XCTAssertFalse(transitions.isEmpty)
        for event in transitions {
            XCTAssertNotNil(event.reason, "a transition without a reason: \(event.humanLine)")
        }
        let cLaunch = transitions.filter { $0.guest == Self.cID && $0.kind == .sceneState && $0.from == "unattached" }
        XCTAssertEqual(cLaunch.map(\.reason), [.requested])
        let swiftConnect = transitions.first { $0.guest == Self.swiftID && $0.kind == .sceneState }
        XCTAssertEqual(swiftConnect?.reason, .automatic)
        let terminations = transitions.filter { $0.kind == .terminated }
        XCTAssertEqual(Set(terminations.compactMap(\.guest)), [Self.cID, Self.swiftID])
        XCTAssertTrue(terminations.allSatisfy { $0.reason == .shutdown }, "\(terminations.map(\.humanLine))")
    }

    // CONTRACT A5: a line a guest logs from init, before the host has its record, is tagged with
    // the guest's id, as every later line is, not with the library's path.
    func logFromInitNamesTheGuest() throws {
        let library = try TestGuests.minimal(into: scratch.path, flags: [#"-DFIXTURE_INIT_LOG="hello from init""#])
        let host = try startHost([library])
        let log = try host.waitForEvent("the log line from init") { $0.kind == .log && $0.message == "hello from init" }
        XCTAssertEqual(log.guest, TestGuests.minimalID, log.humanLine)
        XCTAssertFalse(log.humanLine.contains(library), log.humanLine)
    }

    // CONTRACT X2 X7: a guest's log line holding a CR, an ESC ] 0 ; title BEL (xterm's "set the
    // window title") and a newline reaches the operator's plain output (`ctl events`) escaped, as
    // one line with no control character in it, so it can neither pass for an event nor act on the
    // terminal; the --json line carries the exact text.
    func aGuestsLogCannotWriteToTheOperatorsTerminal() throws {
        let library = try TestGuests.minimal(
            into: scratch.path, flags: [#"-DFIXTURE_INIT_LOG="before\r\033]0;pwned\007forged\nafter""#])
        let text = "before\r\u{1B}]0;pwned\u{07}forged\nafter"
        let host = try startHost([library])
        let log = try host.waitForEvent("the log line from init") { $0.kind == .log && $0.message == text }
        XCTAssertEqual(log.guest, TestGuests.minimalID)

        let follower = Process()
        follower.executableURL = URL(fileURLWithPath: try BuildProducts.apphost())
        follower.arguments = ["ctl", "events", "--after", "0", "--data-dir", dataDirectory]
        let output = OutputCollector()
        follower.standardOutput = output.pipe
        output.start()
        try follower.run()
        defer { if follower.isRunning { kill(follower.processIdentifier, SIGKILL) } }
        let escaped = #"before\r\e]0;pwned\x07forged\nafter"#
        let lines = output.wait(until: Date() + 10) { $0.contains { $0.contains(escaped) } }.lines
        let line = try XCTUnwrap(lines.first { $0.contains(escaped) }, "\(lines)")
        XCTAssertTrue(line.hasSuffix(" log \(TestGuests.minimalID) [info] " + escaped), line)
        for printed in lines {
            XCTAssertFalse(
                printed.unicodeScalars.contains { $0.properties.generalCategory == .control && $0 != "\t" },
                "a control character in plain output: \(Array(printed.utf8))")
            XCTAssertFalse(printed.hasPrefix("after"), "the guest's newline broke the line: \(lines)")
        }
    }

    // A log event's level is a field of its own, "level"; "name" keeps its meaning in other events
    // (a callback's name, a modal's style, a notification's title).
    func logEventsCarryTheirLevelInAFieldOfTheirOwn() throws {
        let library = try TestGuests.minimal(into: scratch.path, flags: [#"-DFIXTURE_INIT_LOG="hello from init""#])
        let host = try startHost([library])
        try host.waitForEvent("the log line from init") { $0.kind == .log && $0.message == "hello from init" }
        let line = try XCTUnwrap(host.stdout.snapshot.first { $0.contains("hello from init") })
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], line)
        XCTAssertEqual(object["event"] as? String, "log", line)
        XCTAssertEqual(object["level"] as? String, "info", line)
        XCTAssertNil(object["name"], line)
    }
}

// CONTRACT A1, A2, A5, S2: the same cases with each isolation. (Linux's XCTest runs only the tests a
// class declares, hence one line for each.)
final class LaunchTests: LaunchCases {
    func testForegroundGuestLaunchesThenConnectsInContractOrder() throws {
        try foregroundGuestLaunchesThenConnectsInContractOrder()
    }
    func testSecondGuestConnectsIntoBackground() throws { try secondGuestConnectsIntoBackground() }
    func testPsShowsAppAndSceneStates() throws { try psShowsAppAndSceneStates() }
    func testPsShowsEachGuestsWorkerPid() throws { try psShowsEachGuestsWorkerPid() }
    func testEveryTransitionCarriesAReason() throws { try everyTransitionCarriesAReason() }
    func testLogFromInitNamesTheGuest() throws { try logFromInitNamesTheGuest() }
    func testLogEventsCarryTheirLevelInAFieldOfTheirOwn() throws { try logEventsCarryTheirLevelInAFieldOfTheirOwn() }
    func testX2X7AGuestsLogCannotWriteToTheOperatorsTerminal() throws {
        try aGuestsLogCannotWriteToTheOperatorsTerminal()
    }
}

final class LaunchInProcessTests: LaunchCases {
    override class var isolation: String? { "none" }

    func testForegroundGuestLaunchesThenConnectsInContractOrder() throws {
        try foregroundGuestLaunchesThenConnectsInContractOrder()
    }
    func testSecondGuestConnectsIntoBackground() throws { try secondGuestConnectsIntoBackground() }
    func testPsShowsAppAndSceneStates() throws { try psShowsAppAndSceneStates() }
    func testPsShowsEachGuestsWorkerPid() throws { try psShowsEachGuestsWorkerPid() }
    func testEveryTransitionCarriesAReason() throws { try everyTransitionCarriesAReason() }
    func testLogFromInitNamesTheGuest() throws { try logFromInitNamesTheGuest() }
    func testLogEventsCarryTheirLevelInAFieldOfTheirOwn() throws { try logEventsCarryTheirLevelInAFieldOfTheirOwn() }
    func testX2X7AGuestsLogCannotWriteToTheOperatorsTerminal() throws {
        try aGuestsLogCannotWriteToTheOperatorsTerminal()
    }
}
