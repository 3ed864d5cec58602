import ApphostControl
import ApphostServiceTesting
import ApphostVocabulary
import XCTest

/// `apphost launch` under a service manager (CONTRACT O3), against sockets and pipes the test
/// makes in systemd's place: READY=1 once the guests launched, WATCHDOG=1 while the host runs,
/// STOPPING=1 on SIGTERM, and lines with syslog priorities for the journal where journald's native
/// socket does not listen (`HostProcess` names one that does not exist; JournalSocketTests and
/// JournaldTests have the entries sent there).
final class ServiceManagerTests: HostTestCase {
    private var missingGuest: String { scratch.path + "/libMissing.so" }

    // CONTRACT O3: READY=1 (with the host's pid and a status) comes once the guests given to
    // launch have launched; one that failed does not keep a host that runs from being ready.
    // SIGTERM says STOPPING=1 before the guests are terminated.
    func testO3ReadyOnceTheGuestsLaunchedAndStoppingOnSIGTERM() throws {
        let socket = try NotifySocket(path: scratch.path + "/notify")
        let host = try startHost([BuildProducts.cSample, missingGuest], environment: ["NOTIFY_SOCKET": socket.address])
        let messages = try XCTUnwrap(socket.wait(timeout: 20) { $0.hasPrefix("READY=1") }, "no READY=1")
        let readyAt = Date()
        XCTAssertEqual(messages, ["READY=1\nMAINPID=\(host.pid)\nSTATUS=1 of 2 guests launched"])

        // Event times are rounded to the millisecond.
        let launched = try host.waitForEvent("the C sample's launch") {
            $0.kind == .appState && $0.guest == Self.cID && $0.from == "notRunning"
        }
        XCTAssertLessThanOrEqual(launched.time, readyAt + 0.001)
        let failed = try host.waitForEvent("the missing guest's failure") { $0.kind == .launchFailed }
        XCTAssertLessThanOrEqual(failed.time, readyAt + 0.001)
        try host.waitForLog(Self.cID, "callback did_finish_launching")

        host.signal(SIGTERM)
        XCTAssertEqual(socket.receive(timeout: 10), "STOPPING=1\nSTATUS=terminating guests")
        XCTAssertEqual(try host.waitForExit(), 0)
        XCTAssertEqual(socket.messages(during: 0.1), [], "nothing after STOPPING=1 without a watchdog")
    }

    // CONTRACT O3: after READY=1, STATUS= follows the guests as they come and go, as
    // `systemctl status` shows it: said when the line changes, not at every transition (the C
    // sample, terminated in the foreground, resigns active before it goes).
    func testO3StatusFollowsTheGuests() throws {
        let socket = try NotifySocket(path: scratch.path + "/notify")
        _ = try startHost(
            [BuildProducts.cSample, BuildProducts.swiftSample], environment: ["NOTIFY_SOCKET": socket.address])
        XCTAssertNotNil(socket.wait(timeout: 20) { $0.hasPrefix("READY=1") }, "no READY=1")
        try ctlSucceeds("terminate", Self.swiftID)
        XCTAssertEqual(socket.receive(timeout: 10), "STATUS=1 guest, 1 active")
        try ctlSucceeds("terminate", Self.cID)
        XCTAssertEqual(socket.receive(timeout: 10), "STATUS=1 guest, 0 active")
        XCTAssertEqual(socket.receive(timeout: 10), "STATUS=no guests")
        XCTAssertEqual(socket.messages(during: 0.2), [], "each line once")
    }

    // CONTRACT O3: a host none of whose guests launched stops, and never says it is ready.
    func testO3NoGuestLaunchedNeverReady() throws {
        let socket = try NotifySocket(path: scratch.path + "/notify")
        let host = try startHost([missingGuest], environment: ["NOTIFY_SOCKET": socket.address])
        XCTAssertEqual(try host.waitForExit(), 1)
        XCTAssertEqual(socket.messages(during: 0.1), ["STOPPING=1\nSTATUS=terminating guests"])
    }

    // CONTRACT O3: with WATCHDOG_USEC the host says WATCHDOG=1 at half the period while it runs,
    // and not while it is stopped (SIGSTOP): systemd would restart it.
    func testO3WatchdogPingsWhileTheHostRuns() throws {
        let socket = try NotifySocket(path: scratch.path + "/notify")
        let host = try startHost(
            [BuildProducts.cSample], environment: ["NOTIFY_SOCKET": socket.address, "WATCHDOG_USEC": "200000"])
        XCTAssertNotNil(socket.wait(timeout: 20) { $0.hasPrefix("READY=1") }, "no READY=1")
        let running = socket.messages(during: 1)
        XCTAssertGreaterThanOrEqual(running.count, 5, "about 10 pings in 1 s at 100 ms: \(running)")
        XCTAssertEqual(Set(running), ["WATCHDOG=1"])

        host.signal(SIGSTOP)
        _ = socket.messages(during: 0.1)
        XCTAssertEqual(socket.messages(during: 0.5), [], "no ping from a stopped host")
        host.signal(SIGCONT)
        XCTAssertEqual(socket.receive(timeout: 5), "WATCHDOG=1", "pings again once it runs")
    }

    // CONTRACT O3: a watchdog meant for another process (WATCHDOG_PID) is not fed.
    func testO3WatchdogOfAnotherProcessIsNotFed() throws {
        let socket = try NotifySocket(path: scratch.path + "/notify")
        _ = try startHost(
            [BuildProducts.cSample],
            environment: ["NOTIFY_SOCKET": socket.address, "WATCHDOG_USEC": "200000", "WATCHDOG_PID": "1"])
        XCTAssertNotNil(socket.wait(timeout: 20) { $0.hasPrefix("READY=1") }, "no READY=1")
        XCTAssertEqual(socket.messages(during: 0.5), [])
    }

    // CONTRACT O3: a notify socket nobody listens on changes nothing: the host runs, answers and
    // stops as without one.
    func testO3ANotifySocketWithNobodyBehindItBreaksNothing() throws {
        let host = try startHost(
            [BuildProducts.cSample],
            environment: ["NOTIFY_SOCKET": scratch.path + "/nobody", "WATCHDOG_USEC": "200000"])
        try host.waitForLog(Self.cID, "callback did_become_active", prefix: true)
        XCTAssertEqual(try status().guest(Self.cID)?.appState, .active)
        host.signal(SIGTERM)
        XCTAssertEqual(try host.waitForExit(), 0)
    }

    // CONTRACT O3: standard error going to the journal ($JOURNAL_STREAM names it) gives every log
    // and error line its syslog priority; the events, on a standard output that does not go
    // there, stay as they are.
    func testO3JournalStreamPrefixesLogLinesWithTheirPriority() throws {
        let host = try startHost(
            [BuildProducts.cSample, missingGuest], options: ["--log-level", "info"], journalStream: .standardError)
        try host.waitForEvent("the missing guest's failure") { $0.kind == .launchFailed }
        let (lines, found) = host.stderr.wait(until: Date() + 10) { lines in
            lines.contains { $0.hasPrefix("<3>apphost: ") } && lines.contains { $0.contains("listening") }
        }
        XCTAssertTrue(found, "\(lines)")
        for line in lines {
            XCTAssertNotNil(line.range(of: #"^<[3-7]>"#, options: .regularExpression), "no priority: \(line)")
        }
        let listening = try XCTUnwrap(lines.first { $0.contains("listening") })
        XCTAssertTrue(listening.hasPrefix("<6>"), listening)
        // The events are still JSON lines (`events` fails the test on any other).
        XCTAssertFalse(host.events.isEmpty)
    }

    // CONTRACT O3: `--log-format journal` prefixes the events too, each with its kind's priority
    // (a failure <3>, a transition <6>), one line per event; `plain` turns the prefixes off even
    // on the journal's stream.
    func testO3LogFormatJournalPrefixesEventsByKind() throws {
        let host = try startHost(
            [BuildProducts.cSample, missingGuest], options: ["--log-format", "journal"], readsStandardError: false)
        let (lines, found) = host.stdout.wait(until: Date() + 20) { lines in
            lines.contains { $0.contains(#""event":"launch-failed""#) }
                && lines.contains { $0.contains(#""to":"active""#) }
        }
        XCTAssertTrue(found, "\(lines)")
        var priorities: [HostEvent.Kind: Set<String>] = [:]
        for line in lines {
            guard let match = line.range(of: #"^<[0-7]>"#, options: .regularExpression) else {
                XCTFail("no priority: \(line)")
                continue
            }
            let event = try ControlCoding.decode(HostEvent.self, from: String(line[match.upperBound...]))
            priorities[event.kind, default: []].insert(String(line[match]))
        }
        XCTAssertEqual(priorities[.launchFailed], ["<3>"])
        XCTAssertEqual(priorities[.appState], ["<6>"])
        XCTAssertEqual(priorities[.guestLoaded], ["<6>"])
        host.kill()

        let plain = try startHost(
            [BuildProducts.cSample], options: ["--log-format", "plain"], journalStream: .standardOutput)
        // `events` fails the test on a line that is not a JSON event.
        try plain.waitForLog(Self.cID, "callback did_become_active", prefix: true)
    }

    // CONTRACT O3: with $JOURNAL_STREAM naming standard output, the events carry priorities by
    // default (`--log-format auto`).
    func testO3JournalStreamOnStandardOutputPrefixesEvents() throws {
        let host = try startHost([BuildProducts.cSample], journalStream: .standardOutput)
        let (lines, found) = host.stdout.wait(until: Date() + 20) { lines in
            lines.contains { $0.hasPrefix("<6>") && $0.contains(#""to":"active""#) }
        }
        XCTAssertTrue(found, "\(lines)")
    }
}
