import ApphostControl
import ApphostModel
import Foundation
import XCTest

/// Typed actions end to end (CONTRACT F1 to F3, X1, X2, B5): Plugins/Fixtures/actions_guest.c,
/// called with `apphost ctl call` in a worker; ActionInProcessTests runs them all again with
/// `--isolation none`.
class ActionCases: HostTestCase {
    var isolated: Bool { Self.isolation != "none" }
    /// actions.h's APPHOST_ACTION_VALUE_MAX_BYTES.
    static let valueMaxBytes = 65536

    // MARK: - F1: declared, validated at load, listed

    func f1InspectAndPsListTheActions() throws {
        let guest = try TestGuests.actions(into: scratch.path)
        let inspect = try runApphost(["inspect", guest] + (isolated ? [] : ["--isolation", "none"]))
        XCTAssertEqual(inspect.status, 0, "\(inspect.stderr)")
        XCTAssertTrue(inspect.stdout.contains { $0.hasPrefix("actions       echo-b(b)b") }, "\(inspect.stdout)")
        XCTAssertTrue(inspect.stdout.contains { $0.contains("text(dsayi)s") })
        XCTAssertTrue(inspect.stdout.contains { $0.contains("shown()s") && $0.hasSuffix("(foreground only)") })

        _ = try startRunning(guest)
        let actions = try XCTUnwrap(try status().guest(TestGuests.actionsID)?.actions)
        XCTAssertEqual(actions.count, 23)
        XCTAssertEqual(
            actions.first { $0.name == "text" },
            GuestAction(
                name: "text", arguments: [.double, .string, .bytes, .int32], result: .string,
                summary: "A test action.", foreground: false))
        XCTAssertEqual(actions.first { $0.name == "touch" }?.result, nil)
        XCTAssertEqual(actions.first { $0.name == "shown" }?.foreground, true)
    }

    // X1: a table that is wrong in any way refuses the guest with one line, before init.
    func f1X1WrongTablesRefuseTheGuest() throws {
        let expected = [
            1: "action \"touch\" is declared twice",
            2: "action \"bad-signature\"'s arguments \"iz\" is no signature: 'z' at 2 is no type code",
            3: "action \"no-function\"'s function is NULL",
            4: "action 24's name \"9lives\" is not an action name",
            5: "action \"two-results\"'s result \"ii\" is no signature: more than 1 type",
            6: "action \"no-description\"'s description is empty",
            7: "the actions table's id is \"apphost.actions/9\", not \"apphost.actions/1\"",
            8: "action \"odd-flag\" has unknown flag bits 0x20",
            9: "the actions table declares 65 actions, more than 64",
        ]
        for (table, message) in expected.sorted(by: { $0.key < $1.key }) {
            let guest = try TestGuests.actions(table: table, into: scratch.path)
            let result = try runApphost(["inspect", guest] + (isolated ? [] : ["--isolation", "none"]))
            assertOneLineError(result, containing: message)
        }
        let launch = try runApphost(
            [
                "launch", "--data-dir", dataDirectory, "--isolation", isolated ? "process" : "none",
                try TestGuests.actions(table: 3, into: scratch.path),
            ])
        XCTAssertNotEqual(launch.status, 0)
        XCTAssertTrue(
            launch.stderr.contains { $0.hasPrefix("apphost: ") && $0.contains("function is NULL") }, "\(launch.stderr)")
    }

    // MARK: - F2: every type at its limits, and the host's own checks

    func f2EveryTypeCodeAtItsLimits() throws {
        _ = try startRunning(try TestGuests.actions(into: scratch.path))
        let cases: [(String, [String])] = [
            ("echo-b", ["true", "false"]),
            ("echo-y", ["0", "255"]),
            ("echo-n", ["-32768", "32767"]),
            ("echo-q", ["0", "65535"]),
            ("echo-i", ["-2147483648", "2147483647"]),
            ("echo-u", ["0", "4294967295"]),
            ("echo-x", ["-9223372036854775808", "9223372036854775807"]),
            ("echo-t", ["0", "18446744073709551615"]),
            ("echo-d", ["-1.7976931348623157e+308", "2.5", "4.9406564584124654e-324"]),
            ("echo-s", ["", "héllo wörld ✓", String(repeating: "z", count: Self.valueMaxBytes)]),
            ("echo-ay", ["", "AAEC/w==", Data(repeating: 7, count: Self.valueMaxBytes).base64EncodedString()]),
        ]
        for (action, values) in cases {
            for value in values {
                let result = try ctlSucceeds("call", TestGuests.actionsID, action, value)
                let expected = action == "echo-d" ? "\(Double(value)!)" : value
                XCTAssertEqual(result.stdout, [expected], "\(action) \(value.prefix(40))")
            }
        }
        // Eight arguments of eight types at once, in order; then one after a double, a string and bytes.
        XCTAssertEqual(
            try ctlSucceeds(
                "call", TestGuests.actionsID, "mix", "true", "255", "-32768", "65535", "-2147483648", "4294967295",
                "-9223372036854775808", "18446744073709551615"
            ).stdout,
            [
                "b=1 y=255 n=-32768 q=65535 i=-2147483648 u=4294967295 x=-9223372036854775808 "
                    + "t=18446744073709551615"
            ])
        XCTAssertEqual(
            try ctlSucceeds("call", TestGuests.actionsID, "text", "--arguments", #"[0.1, "a b", "AP8=", -7]"#).stdout,
            ["d=0.10000000000000001 s=a b ay=2:00ff i=-7"])
        // --json: exact integers past 2^53, bytes as base64, the type code.
        let json = try ctlSucceeds(
            "call", TestGuests.actionsID, "echo-t", "--arguments", "[18446744073709551615]", "--json")
        XCTAssertEqual(
            try ControlCoding.decode(ActionCallResult.self, from: json.stdout.joined()),
            ActionCallResult(guest: TestGuests.actionsID, action: "echo-t", result: .uint64(.max)))
        XCTAssertTrue(json.stdout.joined().contains("18446744073709551615"), json.stdout.joined())
        // Nothing returned prints nothing; the call ran all the same.
        XCTAssertEqual(try ctlSucceeds("call", TestGuests.actionsID, "touch").stdout, [])
        XCTAssertEqual(try ctlSucceeds("call", TestGuests.actionsID, "touch", "--arguments", "[]").stdout, [])
        XCTAssertEqual(try ctlSucceeds("call", TestGuests.actionsID, "touches").stdout, ["2"])
        // On the main queue: a [main-queue] host function answers there, with the app state ps shows.
        let state = try XCTUnwrap(try status().guest(TestGuests.actionsID)?.appState)
        XCTAssertEqual(try ctlSucceeds("call", TestGuests.actionsID, "state").stdout, ["\(state.rawValue)"])
        // By the guest's name too, in any case.
        XCTAssertEqual(try ctlSucceeds("call", "actions fixture", "echo-y", "7").stdout, ["7"])
    }

    func f2BadInputGetsOneLineAndNeverReachesTheGuest() throws {
        _ = try startRunning(try TestGuests.actions(into: scratch.path))
        let id = TestGuests.actionsID
        let tooLong = String(repeating: "z", count: Self.valueMaxBytes + 1)
        let tooManyBytes = Data(count: Self.valueMaxBytes + 1).base64EncodedString()
        let cases: [([String], String)] = [
            (["no.such.guest", "touch"], "no guest no.such.guest"),
            ([id, "nope"], "has no action nope (it has echo-b(b)b, "),
            ([id, "echo-y"], "echo-y(y)y takes 1 argument, not 0 (y)"),
            ([id, "touch", "1"], "touch() takes 0 arguments, not 1"),
            (
                [id, "echo-y", "300"],
                "echo-y(y)y: argument 1 (y): 300 is out of range for y (an integer from 0 to 255)"
            ),
            ([id, "echo-y", "-1"], "argument 1 (y): -1 is out of range"),
            ([id, "echo-i", "2147483648"], "argument 1 (i): 2147483648 is out of range for i"),
            ([id, "echo-n", "32768"], "argument 1 (n): 32768 is out of range"),
            ([id, "echo-t", "18446744073709551616"], "argument 1 (t): 18446744073709551616 is out of range"),
            ([id, "echo-x", "1.5"], "argument 1 (x): \"1.5\" is not an integer"),
            ([id, "echo-b", "yes"], "argument 1 (b): \"yes\" is not true or false"),
            ([id, "echo-d", "nan"], "argument 1 (d): \"nan\" is not a finite number"),
            ([id, "echo-d", "inf"], "\"inf\" is not a finite number"),
            ([id, "echo-ay", "not base64!"], "argument 1 (ay): \"not base64!\" is not base64"),
            ([id, "echo-s", tooLong], "argument 1 (s): the string is 65537 bytes, over 65536"),
            ([id, "echo-ay", tooManyBytes], "argument 1 (ay): the bytes are 65537, over 65536"),
            ([id, "echo-s", "--arguments", #"["a\u0000b"]"#], "argument 1 (s): the string holds a NUL"),
            ([id, "echo-s", "--arguments", "[3]"], "argument 1 (s): 3 is not a string"),
            ([id, "echo-y", "--arguments", "[\"3\"]"], "argument 1 (y): \"3\" is not an integer from 0 to 255"),
            ([id, "echo-i", "--arguments", "[2.5]"], "argument 1 (i): 2.5 is not an integer"),
            ([id, "echo-b", "--arguments", "[1]"], "argument 1 (b): 1 is not true or false"),
            ([id, "echo-u", "--arguments", "{}"], "--arguments takes one JSON array"),
            ([id, "echo-u", "1", "--arguments", "[1]"], "as words or as --arguments, not both"),
            ([id, "text", "1", "s", "AA==", "9", "extra"], "text(dsayi)s takes 4 arguments, not 5 (d s ay i)"),
        ]
        for (arguments, message) in cases {
            let result = try runApphost(["ctl", "call"] + arguments + ["--data-dir", dataDirectory])
            assertOneLineError(result, containing: message)
        }
        // A word that is not UTF-8 cannot be a request: the control socket refuses the line.
        var line = Array(#"{"command":"call","guest":"org.apphost.fixtures.actions","action":"echo-s","words":[""#.utf8)
        line += [0xFF, 0xFE] + Array(#""]}"#.utf8) + [0x0A]
        let socket = try connectRaw(socketPath: dataDirectory + "/control.sock")
        defer { close(socket) }
        XCTAssertEqual(line.withUnsafeBytes { send(socket, $0.baseAddress, $0.count, 0) }, line.count)
        shutdown(socket, Int32(SHUT_WR))
        let reply = readRawUntilClosed(socket)
        XCTAssertTrue(reply.first?.contains("\"ok\":false") == true, "\(reply)")
        XCTAssertEqual(try ctlSucceeds("call", id, "touches").stdout, ["0"], "no bad call reached the guest")
    }

    // Foreground-only actions are refused in background; a suspended guest is never woken for one.
    func f2ForegroundAndSuspension() throws {
        _ = try startRunning(try TestGuests.actions(into: scratch.path))
        let id = TestGuests.actionsID
        XCTAssertEqual(try ctlSucceeds("call", id, "shown").stdout, ["shown"])
        try ctlSucceeds("home")
        try waitForAppState(id, .background)
        assertOneLineError(
            try ctl("call", id, "shown"),
            containing: "action shown of \(id) runs only in the foreground, and \(id) is in background")
        XCTAssertEqual(try ctlSucceeds("call", id, "echo-y", "1").stdout, ["1"], "other actions run in background")
        try ctlSucceeds("suspend", id)
        try waitForAppState(id, .suspended)
        assertOneLineError(
            try ctl("call", id, "touch"),
            containing:
                "\(id) is suspended, and an action never wakes a guest: resume it first (apphost ctl resume \(id))")
        try ctlSucceeds("resume", id)
        XCTAssertEqual(try ctlSucceeds("call", id, "touches").stdout, ["0"])
    }

    // MARK: - F2, F3: a guest that breaks, crashes or hangs inside an action

    func f2BrokenResultsAreErrors() throws {
        _ = try startRunning(try TestGuests.actions(into: scratch.path))
        let id = TestGuests.actionsID
        let cases = [
            ("null-string", "\(id)'s action null-string returned NULL as its string"),
            ("bad-utf8", "\(id)'s action bad-utf8 returned a string that is not UTF-8"),
            ("long-string", "\(id)'s action long-string returned a string longer than"),
            ("nan", "\(id)'s action nan returned a double that is not finite"),
        ]
        for (action, message) in cases { assertOneLineError(try ctl("call", id, action), containing: message) }
        XCTAssertEqual(try ctlSucceeds("call", id, "echo-y", "9").stdout, ["9"], "the guest goes on")
    }

    func f3ACrashInsideAnActionIsTheCallersError() throws {
        let host = try startRunning(try TestGuests.actions(into: scratch.path))
        assertOneLineError(
            try ctl("call", TestGuests.actionsID, "crash"),
            containing: "\(TestGuests.actionsID) crashed in action crash")
        try host.waitForEvent("the crash") { $0.kind == .error && $0.message?.contains("in action crash") == true }
        XCTAssertNotNil(try status().guest(TestGuests.actionsID), "the host lives, and still lists the guest")
    }

    func f3B5AHangInsideAnActionIsTheCallersError() throws {
        let host = try startRunning(
            try TestGuests.actions(into: scratch.path), options: ["--watchdog", "0.5", "--watchdog-hard-limit", "1"])
        let started = Date()
        let result = try ctl("call", TestGuests.actionsID, "hang")
        if isolated {
            assertOneLineError(result, containing: "\(TestGuests.actionsID) was killed by the watchdog in action hang")
        } else {
            assertOneLineError(
                result,
                containing:
                    "\(TestGuests.actionsID) has not returned from action hang within 1 s, the watchdog's hard limit")
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 10)
        try host.waitForEvent("the watchdog's flag") {
            $0.kind == .watchdog && $0.message?.contains("action hang") == true
        }
        XCTAssertNotNil(try status().guest(TestGuests.actionsID), "the host still answers")
    }

    // CONTRACT F3 B5: `ctl call G hang & ctl call G echo-y 7`: the call that hung is the one
    // blamed. Its caller hears that the watchdog killed the guest in action hang, past the hard
    // limit (in a worker; in the host's process, that hang has not returned); the caller queued
    // behind it hears that echo-y never ran, and why: the guest was killed (or is still stuck)
    // in action hang.
    func f3B5ACallQueuedBehindAHangIsNotBlamedForIt() throws {
        let host = try startRunning(
            try TestGuests.actions(into: scratch.path), options: ["--watchdog", "0.5", "--watchdog-hard-limit", "1"])
        let id = TestGuests.actionsID
        let hanging = Process()
        hanging.executableURL = URL(fileURLWithPath: try BuildProducts.apphost())
        hanging.arguments = ["ctl", "call", id, "hang", "--data-dir", dataDirectory]
        let hangErrors = OutputCollector()
        hanging.standardError = hangErrors.pipe
        hangErrors.start()
        try hanging.run()
        defer { if hanging.isRunning { kill(hanging.processIdentifier, SIGKILL) } }
        try host.waitForEvent("the hang called") { $0.kind == .callback && $0.name == "action hang" }

        let queued = try ctl("call", id, "echo-y", "7")
        hanging.waitUntilExit()
        let hung = hangErrors.waitForEnd(until: Date() + 10)
        XCTAssertNotEqual(hanging.terminationStatus, 0)
        XCTAssertEqual(hung.count, 1, "one line: \(hung)")
        let hungLine = hung.first ?? ""
        if isolated {
            XCTAssertTrue(
                hungLine.hasPrefix(
                    "apphost: \(id) was killed by the watchdog in action hang: it ran past 1 s, the watchdog's hard limit"
                ),
                hungLine)
            assertOneLineError(
                queued,
                containing: "\(id)'s action echo-y never ran: the watchdog killed \(id) while it was in action hang, "
                    + "past 1 s")
        } else {
            XCTAssertTrue(
                hungLine.hasPrefix("apphost: \(id) has not returned from action hang within 1 s"), hungLine)
            assertOneLineError(
                queued,
                containing: "\(id)'s action echo-y never ran: \(id) is still in action hang, which has not returned "
                    + "within 1 s")
        }
        XCTAssertFalse(hungLine.contains("echo-y"), hungLine)
        XCTAssertFalse(queued.stderr.joined().contains("in action echo-y"), "\(queued.stderr)")
    }

    // MARK: - Fuzz: 2000 random calls, nothing crashes the host or the worker

    func fuzzedCallsCrashNothing() throws {
        let host = try startRunning(try TestGuests.actions(into: scratch.path))
        let worker = try status().guest(TestGuests.actionsID)?.pid
        let actions = try XCTUnwrap(try status().guest(TestGuests.actionsID)?.actions).map(\.name)
            .filter { !["crash", "hang"].contains($0) }
        let values = [
            "0", "-1", "255", "256", "65536", "2147483648", "-9223372036854775809", "18446744073709551615", "1e400",
            "0.5", "true", "null", "\"\"", "\"a\\u0000b\"", "\"é🎈\"", "\"AAEC\"", "[1]", "{}",
        ]
        var generator = SystemRandomNumberGenerator()
        var replies: [String] = []
        for _ in 0..<20 {
            var batch = ""
            for _ in 0..<100 {
                let action = actions.randomElement(using: &generator)!
                let count = Int.random(in: 0...4, using: &generator)
                let arguments = (0..<count).map { _ in values.randomElement(using: &generator)! }
                let member = Bool.random(using: &generator) ? "arguments" : "words"
                let list =
                    member == "arguments"
                    ? arguments.joined(separator: ",")
                    : arguments.map { "\"\($0.replacingOccurrences(of: "\"", with: "'"))\"" }.joined(separator: ",")
                batch +=
                    #"{"command":"call","guest":"\#(TestGuests.actionsID)","action":"\#(action)","\#(member)":[\#(list)]}"#
                batch += "\n"
            }
            replies += try exchangeRaw(batch, socketPath: dataDirectory + "/control.sock")
        }
        XCTAssertEqual(replies.count, 2000)
        XCTAssertEqual(replies.filter { $0.hasPrefix(#"{"ok":true"#) || $0.hasPrefix(#"{"code":"#) }.count, 2000)
        XCTAssertTrue(replies.contains { $0.hasPrefix(#"{"ok":true"#) }, "some random calls are valid")
        XCTAssertTrue(host.process.isRunning)
        XCTAssertEqual(try status().guest(TestGuests.actionsID)?.pid, worker, "the same worker, or none in process")
        XCTAssertEqual(try ctlSucceeds("call", TestGuests.actionsID, "echo-y", "5").stdout, ["5"])
    }

    // MARK: - The C sample

    func theCSampleGreetsAndCounts() throws {
        let host = try startHost([BuildProducts.cSample])
        try host.waitForLog(Self.cID, "callback did_become_active", prefix: true)
        XCTAssertEqual(try ctlSucceeds("call", Self.cID, "greet", "Ada").stdout, ["Hello, Ada!"])
        XCTAssertEqual(try ctlSucceeds("call", "c sample", "scenes").stdout, ["1"])
        XCTAssertEqual(try ctlSucceeds("call", Self.cID, "activations").stdout, ["1"])
        let handle = try XCTUnwrap(try status().guest(Self.cID)?.scenes.first?.handle)
        XCTAssertEqual(try ctlSucceeds("call", Self.cID, "reset", "\(handle)").stdout, ["true"])
        XCTAssertEqual(try ctlSucceeds("call", Self.cID, "activations").stdout, ["0"])
        XCTAssertEqual(try ctlSucceeds("call", Self.cID, "reset", "\(handle + 1000)").stdout, ["false"])
    }

    // The Swift sample: actions declared as typed closures, called through the SDK's libffi closures.
    func theSwiftNotesSampleAddsCountsAndSearches() throws {
        let id = "org.apphost.samples.notes"
        let host = try startHost(["libSwiftNotesGuest.so"], options: ["--suspend-delay", "3600"])
        try host.waitForEvent("the notes' launch") { $0.kind == .appState && $0.guest == id }
        let deadline = Date() + 15
        while try status().guest(id)?.phase != .running, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        let actions = try XCTUnwrap(try status().guest(id)?.actions).map(\.signature)
        XCTAssertEqual(actions, ["add(s)", "count()i", "search(s)s"])
        let before = Int(try ctlSucceeds("call", id, "count").stdout.first ?? "") ?? -1
        XCTAssertEqual(try ctlSucceeds("call", id, "add", "Buy milk").stdout, [])
        XCTAssertEqual(try ctlSucceeds("call", id, "add", "Call Ada").stdout, [])
        XCTAssertEqual(try ctlSucceeds("call", "swift notes", "count").stdout, ["\(before + 2)"])
        XCTAssertEqual(try ctlSucceeds("call", id, "search", "Ada").stdout, ["Call Ada"])
        XCTAssertEqual(try ctlSucceeds("call", id, "search", "nothing like it").stdout, [""])
        assertOneLineError(try ctl("call", id, "count", "1"), containing: "count()i takes 0 arguments, not 1")
    }

    // MARK: - Helpers

    /// Starts a host on `guest` and waits until it runs (did_finish_launching answered).
    private func startRunning(_ guest: String, options: [String] = []) throws -> HostProcess {
        let host = try startHost([guest], options: options + ["--suspend-delay", "3600"])
        try host.waitForEvent("the launch") { $0.kind == .appState && $0.guest == TestGuests.actionsID }
        let deadline = Date() + 15
        while try status().guest(TestGuests.actionsID)?.phase != .running, Date() < deadline {
            Thread.sleep(forTimeInterval: 0.05)
        }
        XCTAssertEqual(try status().guest(TestGuests.actionsID)?.phase, .running)
        return host
    }

    private func waitForAppState(_ id: String, _ state: AppState) throws {
        let deadline = Date() + 10
        while try status().guest(id)?.appState != state, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        XCTAssertEqual(try status().guest(id)?.appState, state)
    }
}

final class ActionTests: ActionCases {
    func testF1InspectAndPsListTheActions() throws { try f1InspectAndPsListTheActions() }
    func testF1X1WrongTablesRefuseTheGuest() throws { try f1X1WrongTablesRefuseTheGuest() }
    func testF2EveryTypeCodeAtItsLimits() throws { try f2EveryTypeCodeAtItsLimits() }
    func testF2BadInputGetsOneLineAndNeverReachesTheGuest() throws {
        try f2BadInputGetsOneLineAndNeverReachesTheGuest()
    }
    func testF2ForegroundAndSuspension() throws { try f2ForegroundAndSuspension() }
    func testF2BrokenResultsAreErrors() throws { try f2BrokenResultsAreErrors() }
    func testF3ACrashInsideAnActionIsTheCallersError() throws { try f3ACrashInsideAnActionIsTheCallersError() }
    func testF3B5AHangInsideAnActionIsTheCallersError() throws { try f3B5AHangInsideAnActionIsTheCallersError() }
    func testF3B5ACallQueuedBehindAHangIsNotBlamedForIt() throws { try f3B5ACallQueuedBehindAHangIsNotBlamedForIt() }
    func testTheCSampleGreetsAndCounts() throws { try theCSampleGreetsAndCounts() }
    func testF2FuzzedCallsCrashNothing() throws { try fuzzedCallsCrashNothing() }
    func testTheSwiftNotesSampleAddsCountsAndSearches() throws { try theSwiftNotesSampleAddsCountsAndSearches() }
}

/// The same, with the guests in the host's process.
final class ActionInProcessTests: ActionCases {
    override class var isolation: String? { "none" }

    func testF1InspectAndPsListTheActions() throws { try f1InspectAndPsListTheActions() }
    func testF1X1WrongTablesRefuseTheGuest() throws { try f1X1WrongTablesRefuseTheGuest() }
    func testF2EveryTypeCodeAtItsLimits() throws { try f2EveryTypeCodeAtItsLimits() }
    func testF2BadInputGetsOneLineAndNeverReachesTheGuest() throws {
        try f2BadInputGetsOneLineAndNeverReachesTheGuest()
    }
    func testF2ForegroundAndSuspension() throws { try f2ForegroundAndSuspension() }
    func testF2BrokenResultsAreErrors() throws { try f2BrokenResultsAreErrors() }
    // No crash test: a guest in the host's process takes the host with it when it aborts.
    func testF3B5AHangInsideAnActionIsTheCallersError() throws { try f3B5AHangInsideAnActionIsTheCallersError() }
    func testF3B5ACallQueuedBehindAHangIsNotBlamedForIt() throws { try f3B5ACallQueuedBehindAHangIsNotBlamedForIt() }
    func testTheCSampleGreetsAndCounts() throws { try theCSampleGreetsAndCounts() }
    func testF2FuzzedCallsCrashNothing() throws { try fuzzedCallsCrashNothing() }
    func testTheSwiftNotesSampleAddsCountsAndSearches() throws { try theSwiftNotesSampleAddsCountsAndSearches() }
}
