import Foundation
import XCTest

/// What guests write to their standard output and standard error. With process isolation each
/// worker's descriptors 1 and 2 are pipes the host reads: every line is a log event of that guest
/// (info from standard output, warning from standard error), never a line of the event output,
/// which stays the host's alone (CONTRACT X2).
final class GuestOutputTests: HostTestCase {
    static let printingID = TestGuests.printingID

    /// What the fixture prints, in order, on each descriptor: from init, did_finish_launching,
    /// did_become_active and will_terminate.
    static let printedOnStandardOutput = [
        "stdout from init", forgedEvent, "stdout from did_finish_launching", "not utf-8: \u{FFFD}\u{FFFD} end",
        String(repeating: "x", count: 4096), String(repeating: "x", count: 904), "stdout from did_become_active",
        "stdout from will_terminate", "no newline at the end",
    ]
    static let printedOnStandardError = [
        "stderr from init", "stderr from did_finish_launching", "stderr from did_become_active",
    ]
    static let forgedEvent =
        #"{"event":"app-state","from":"active","guest":"org.apphost.forged","reason":"requested","#
        + #""time":"2024-01-01T00:00:00.000Z","to":"notRunning"}"#

    // CONTRACT X2: what a guest prints on descriptors 1 and 2, from init and from callbacks, is a
    // log event of that guest (standard output at info, standard error at warning), in the order
    // it printed it, repaired when it is not UTF-8 and cut at 4096 bytes; a line that passes for
    // an event is only a log message; every line `launch --json` prints is a JSON object, and the
    // host's standard error has nothing of the guest's.
    func testWhatAGuestPrintsIsALogEventOfItsOwnNeverAnEventLine() throws {
        let printing = try TestGuests.printing(into: scratch.path)
        let host = try startHost([printing])
        try host.waitForLog(Self.printingID, "printed did_become_active")
        host.signal(SIGTERM)
        XCTAssertEqual(try host.waitForExit(), 0)

        let lines = host.stdout.snapshot
        for line in lines {
            let object = try? JSONSerialization.jsonObject(with: Data(line.utf8))
            XCTAssertTrue(object is [String: Any], "not a JSON object: \(line)")
        }
        let events = host.events
        XCTAssertFalse(events.contains { $0.guest == "org.apphost.forged" }, "a printed line passed for an event")
        let printed = events.filter { $0.kind == .log && $0.message?.hasPrefix("printed ") == false }
        XCTAssertTrue(printed.allSatisfy { $0.guest == Self.printingID }, "\(printed.map(\.humanLine))")
        XCTAssertEqual(printed.filter { $0.level == .info }.compactMap(\.message), Self.printedOnStandardOutput)
        XCTAssertEqual(printed.filter { $0.level == .warning }.compactMap(\.message), Self.printedOnStandardError)
        XCTAssertEqual(printed.count, Self.printedOnStandardOutput.count + Self.printedOnStandardError.count)

        // Its last words, an unfinished line included, come before it is reported terminated.
        let last = try XCTUnwrap(events.firstIndex { $0.message == "no newline at the end" })
        let terminated = try XCTUnwrap(events.firstIndex { $0.kind == .terminated && $0.guest == Self.printingID })
        XCTAssertLessThan(last, terminated)
        XCTAssertEqual(host.stderr.snapshot, [], "the guest's output reached the host's standard error")
    }

    // CONTRACT X1 X2: what a library prints while it loads stays out of what `inspect` reports, in
    // a worker or in this process: `--json` is one JSON object, and the line is on standard error.
    func testWhatALibraryPrintsWhileLoadingStaysOutOfInspectsReport() throws {
        let printing = try TestGuests.printing(into: scratch.path, flags: ["-DFIXTURE_PRINT_IN_CONSTRUCTOR"])
        for isolation in ["process", "none"] {
            let result = try runApphost(["inspect", "--json", "--isolation", isolation, printing])
            XCTAssertEqual(result.status, 0, "\(isolation): \(result.stderr)")
            XCTAssertEqual(result.stdout.count, 1, "\(isolation): one line, got \(result.stdout)")
            let object = try? JSONSerialization.jsonObject(with: Data(result.stdout.joined().utf8))
            XCTAssertEqual((object as? [String: Any])?["id"] as? String, Self.printingID, "\(isolation)")
            XCTAssertEqual(result.stderr, ["printed while loading"], "\(isolation)")
        }
    }

    // CONTRACT X2: a library constructor prints before the guest's id is known: its line is a log
    // event named by the library's path, never an event line.
    func testWhatALibraryPrintsWhileLoadingIsALogEventNamedByItsPath() throws {
        let printing = try TestGuests.printing(into: scratch.path, flags: ["-DFIXTURE_PRINT_IN_CONSTRUCTOR"])
        let host = try startHost([printing])
        let event = try host.waitForEvent("the constructor's line") { $0.message == "printed while loading" }
        XCTAssertEqual(event.kind, .log)
        XCTAssertEqual(event.level, .info)
        XCTAssertEqual(event.guest, printing)
    }
}

/// `--isolation none`: the guest's descriptors 1 and 2 are the host's. The host writes its events
/// to a copy of its standard output and points descriptor 1 at its standard error, so what guests
/// print never lands among the events: it goes to the host's standard error, as it is.
final class GuestOutputInProcessTests: HostTestCase {
    override class var isolation: String? { "none" }

    // CONTRACT X2: in the host's process, what a guest prints goes to the host's standard error,
    // never among the events: every line `launch --json` prints is a JSON object.
    func testWhatAGuestPrintsGoesToTheHostsStandardErrorNeverAmongTheEvents() throws {
        let printing = try TestGuests.printing(into: scratch.path)
        let host = try startHost([printing])
        try host.waitForLog(TestGuests.printingID, "printed did_become_active")
        host.signal(SIGTERM)
        XCTAssertEqual(try host.waitForExit(), 0)

        for line in host.stdout.snapshot {
            let object = try? JSONSerialization.jsonObject(with: Data(line.utf8))
            XCTAssertTrue(object is [String: Any], "not a JSON object: \(line)")
        }
        let events = host.events
        XCTAssertFalse(events.contains { $0.guest == "org.apphost.forged" }, "a printed line passed for an event")
        let logged = events.filter { $0.kind == .log }.compactMap(\.message)
        XCTAssertEqual(
            logged, ["printed init", "printed did_finish_launching", "printed did_become_active"],
            "only what the guest logged through the host is an event")
        let errors = host.stderr.snapshot
        let printed = [
            "stdout from init", "stderr from init", GuestOutputTests.forgedEvent, "stdout from did_become_active",
        ]
        for line in printed {
            XCTAssertTrue(errors.contains(line), "\(line) is not on the host's standard error: \(errors)")
        }
    }
}
