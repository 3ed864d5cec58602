import XCTest

/// `ctl terminate`, relaunching, and graceful shutdown on SIGTERM and SIGINT.
final class TerminationTests: HostTestCase {
    // CONTRACT A3, S12: terminate sends will-terminate after the scene went to background (and
    // saved); switching relaunches the guest, and its scene gets the saved counter back.
    func testTerminateThenSwitchRelaunchesWithRestoredState() throws {
        let host = try startBothSamples()
        let activations = host.events.loggedCallbacks(of: Self.cID).filter { $0 == "did_become_active" }.count
        let mark = host.events.count
        XCTAssertEqual(try ctlSucceeds("terminate", Self.cID).stdout, ["\(Self.cID) terminated"])
        let terminated = try host.waitForEvent("termination of the C sample", after: mark) {
            $0.kind == .terminated && $0.guest == Self.cID
        }
        XCTAssertEqual(terminated.reason, .requested)  // A5
        try host.waitForLog(Self.cID, "callback will_terminate", after: mark)
        XCTAssertEqual(
            host.events.since(mark).loggedCallbacks(of: Self.cID),
            ["will_resign_active", "did_enter_background", "will_terminate"])

        let stopped = try XCTUnwrap(try status().guest(Self.cID))
        XCTAssertEqual(stopped.appState, .notRunning)
        XCTAssertEqual(stopped.scenes.map(\.state), [.unattached])
        XCTAssertNotNil(stopped.scenes.first?.savedBytes, "the saved state survives termination")
        XCTAssertEqual(try status().guest(Self.swiftID)?.appState, .background, "the other guest runs on")

        let relaunch = host.events.count
        try ctlSucceeds("switch", Self.cID)
        let restored = try host.waitForLog(Self.cID, "restored counter=", prefix: true, after: relaunch)
        XCTAssertTrue(
            restored.message?.hasPrefix("restored counter=\(activations) ") == true,
            "expected the counter saved before termination (\(activations)), got: \(restored.message ?? "")")
        try host.waitForLog(Self.cID, "callback did_become_active", prefix: true, after: relaunch)
        XCTAssertEqual(  // A2, S2 again on relaunch
            host.events.since(relaunch).loggedCallbacks(of: Self.cID),
            ["did_finish_launching", "will_connect", "will_enter_foreground", "did_become_active"])
        XCTAssertEqual(try status().guest(Self.cID)?.appState, .active)
    }

    // CONTRACT A3, X2: a guest that crashes or hangs in will_terminate or deinit is terminated all
    // the same, and `ctl terminate` and the event stream say where and of what; the other guest
    // runs on.
    func testACrashOrHangOnTheWayOutIsReported() throws {
        let cases: [(flags: [String], answer: String)] = [
            (["-DFIXTURE_DIE_IN_WILL_TERMINATE"], "it failed in will_terminate: killed by SIGSEGV"),
            (["-DFIXTURE_DIE_IN_DEINIT"], "it failed in deinit: killed by SIGSEGV"),
            (["-DFIXTURE_DIE_IN_WILL_TERMINATE", "-DFIXTURE_HOW=4"], "it failed in will_terminate: still running"),
            (["-DFIXTURE_DIE_IN_DEINIT", "-DFIXTURE_HOW=4"], "it failed in deinit: still running"),
        ]
        for (index, (flags, answer)) in cases.enumerated() {
            let guest = try TestGuests.dying(flags, as: "libDying\(index).so", into: scratch.path)
            let host = try startHost([guest, BuildProducts.cSample], options: ["--isolation", "process"])
            try host.waitForLog(TestGuests.dyingID, "callback did_finish_launching")
            let mark = host.events.count
            let result = try ctlSucceeds("terminate", TestGuests.dyingID)
            XCTAssertEqual(result.stdout.count, 1, "\(flags)")
            XCTAssertTrue(
                result.stdout.first?.hasPrefix("\(TestGuests.dyingID) terminated; \(answer)") == true,
                "\(flags): \(result.stdout)")
            let terminated = try host.waitForEvent("its termination", after: mark) {
                $0.kind == .terminated && $0.guest == TestGuests.dyingID
            }
            XCTAssertTrue(terminated.message?.hasPrefix(answer) == true, "\(flags): \(terminated.humanLine)")
            XCTAssertTrue(
                host.events.since(mark).contains { $0.kind == .error && $0.guest == TestGuests.dyingID },
                "\(flags): an error event")
            XCTAssertEqual(try status().guest(Self.cID)?.phase, .running, "the other guest runs on")
            host.signal(SIGTERM)
            _ = try host.waitForExit()
        }
    }

    // CONTRACT A3: terminating a guest that is not running is an error, not a second will-terminate.
    func testTerminatingAStoppedGuestIsAnError() throws {
        let host = try startBothSamples()
        try ctlSucceeds("terminate", Self.swiftID)
        try host.waitForEvent("termination") { $0.kind == .terminated && $0.guest == Self.swiftID }
        assertOneLineError(try ctl("terminate", Self.swiftID), containing: "not running")
    }

    // CONTRACT A3: SIGTERM terminates every guest gracefully, then the host exits 0.
    func testSigtermTerminatesEveryGuestAndExitsZero() throws {
        try assertGracefulShutdown(on: SIGTERM)
    }

    // CONTRACT A3: so does SIGINT (Ctrl-C).
    func testSigintTerminatesEveryGuestAndExitsZero() throws {
        try assertGracefulShutdown(on: SIGINT)
    }

    // A second SIGINT while the guests are still terminating exits at once, with 130.
    func testSecondSigintDuringShutdownExitsAtOnce() throws {
        let slow = try TestGuests.slowToTerminate(seconds: 30, into: scratch.path)
        let host = try startHost([slow])
        try host.waitForEvent("the slow guest's scene becoming active") {
            $0.kind == .sceneState && $0.guest == TestGuests.slowID && $0.to == "foregroundActive"
        }
        host.signal(SIGINT)
        try host.waitForEvent("will_terminate on its way to the slow guest") {
            $0.kind == .callback && $0.guest == TestGuests.slowID && $0.name == "will_terminate"
        }
        host.signal(SIGINT)
        XCTAssertEqual(try host.waitForExit(timeout: 10), 130, "the guest's 30 s will_terminate was not waited for")
    }

    private func assertGracefulShutdown(on signal: Int32, file: StaticString = #filePath, line: UInt = #line) throws {
        let host = try startBothSamples()
        _ = try status()
        host.signal(signal)
        XCTAssertEqual(try host.waitForExit(), 0, "exit status", file: file, line: line)

        let events = host.events
        for guest in [Self.cID, Self.swiftID] {
            XCTAssertEqual(
                events.loggedCallbacks(of: guest).last, "will_terminate", "\(guest) got will_terminate last",
                file: file, line: line)
            let terminated = events.filter { $0.kind == .terminated && $0.guest == guest }
            XCTAssertEqual(terminated.map(\.reason), [.shutdown], "\(guest) terminated once", file: file, line: line)
        }
        XCTAssertEqual(host.stderr.snapshot, [], "a clean shutdown prints no errors", file: file, line: line)
        XCTAssertFalse(
            FileManager.default.fileExists(atPath: dataDirectory + "/control.sock"), "the socket is removed",
            file: file, line: line)
    }
}
