import ApphostHost
import XCTest

/// `apphost inspect`: what it checks, what it says it did not check, and its options.
final class InspectTests: HostTestCase {
    // Guests that load, whose descriptor is valid, and that launch refuses all the same: inspect
    // alone never runs init, query or did_finish_launching, and says so; `inspect --launch` runs
    // them in its throwaway worker and fails with the very line launch prints.
    func testInspectLaunchSaysWhatLaunchWouldSay() throws {
        let dir = scratch.path
        for subdirectory in ["/a", "/b"] {
            try FileManager.default.createDirectory(atPath: dir + subdirectory, withIntermediateDirectories: false)
        }
        let guests: [(String, String)] = [
            (
                "init fails",
                try TestGuests.minimal(into: dir + "/a", flags: ["-DFIXTURE_INIT_STATUS=APPHOST_ERROR_UNSUPPORTED"])
            ),
            ("no app callbacks", try TestGuests.minimal(into: dir + "/b", flags: ["-DFIXTURE_NO_APP_CALLBACKS"])),
            (
                "did_finish_launching fails",
                try TestGuests.dying(
                    ["-DFIXTURE_LAUNCH_STATUS=APPHOST_ERROR_INVALID_STATE"], as: "libLaunchFails.so", into: dir)
            ),
            (
                "init crashes",
                try TestGuests.dying(["-DFIXTURE_DIE_IN_INIT", "-DFIXTURE_HOW=1"], as: "libInitCrashes.so", into: dir)
            ),
            (
                "init exits",
                try TestGuests.dying(["-DFIXTURE_DIE_IN_INIT", "-DFIXTURE_HOW=3"], as: "libInitExits.so", into: dir)
            ),
        ]
        for (kind, guest) in guests {
            let inspected = try runApphost(["inspect", guest])
            XCTAssertEqual(inspected.status, 0, "\(kind): \(inspected.stderr)")
            XCTAssertTrue(
                inspected.stdout.contains { $0.hasPrefix("launch") && $0.contains("not checked") },
                "\(kind): inspect says what it did not check: \(inspected.stdout)")

            let launched = try runApphost(["launch", "--log-level", "error", "--data-dir", dataDirectory, guest])
            XCTAssertEqual(launched.status, 1, "\(kind): \(launched.stderr)")
            XCTAssertEqual(launched.stderr.count, 1, "\(kind): \(launched.stderr)")
            let checked = try runApphost(["inspect", "--launch", guest])
            XCTAssertEqual(checked.status, 1, "\(kind): \(checked.stderr)")
            XCTAssertEqual(checked.stderr, launched.stderr, kind)
            XCTAssertEqual(checked.stdout, [], kind)
        }

        // A sixth kind: init that never returns. Launch gives loading and init 10 s; inspect
        // --launch gives them its --timeout.
        let hangs = try TestGuests.dying(
            ["-DFIXTURE_DIE_IN_INIT", "-DFIXTURE_HOW=4"], as: "libInitHangs.so", into: dir)
        XCTAssertEqual(try runApphost(["inspect", hangs]).status, 0)
        let started = Date()
        let checked = try runApphost(["inspect", "--launch", "--timeout", "1", hangs])
        XCTAssertLessThan(Date().timeIntervalSince(started), 5)
        assertOneLineError(checked, containing: "\(hangs): timed out: init did not finish within 1")
    }

    // A guest that launches passes `inspect --launch` in either isolation: init, query,
    // did_finish_launching and deinit ran, and the output says so (and --json as "launch": "ok").
    func testInspectLaunchOfAGoodGuestSaysSo() throws {
        let sample = try BuildProducts.path(BuildProducts.cSample)
        for isolation in ["process", "none"] {
            let human = try runApphost(["inspect", "--launch", "--isolation", isolation, sample])
            XCTAssertEqual(human.status, 0, "\(isolation): \(human.stderr)")
            XCTAssertTrue(
                human.stdout.contains { $0.hasPrefix("launch") && $0.hasSuffix("ok") }, "\(isolation): \(human.stdout)")
            XCTAssertTrue(human.stdout.contains { $0.hasPrefix("id") && $0.hasSuffix(Self.cID) }, "\(human.stdout)")

            let json = try runApphost(["inspect", "--launch", "--json", "--isolation", isolation, sample])
            XCTAssertEqual(json.status, 0, "\(isolation): \(json.stderr)")
            XCTAssertEqual(json.stdout.count, 1, "\(json.stdout)")
            let object = try XCTUnwrap(
                JSONSerialization.jsonObject(with: Data(json.stdout.joined().utf8)) as? [String: Any])
            XCTAssertEqual(object["launch"] as? String, "ok", "\(isolation)")
            XCTAssertEqual(object["id"] as? String, Self.cID)
        }
        let unchecked = try runApphost(["inspect", "--json", sample])
        let object = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(unchecked.stdout.joined().utf8)) as? [String: Any])
        XCTAssertEqual(object["launch"] as? String, "not checked")
    }

    // README: inspect runs no host and takes no --data-dir. Given one, it says so in one line (a
    // usage error); before, ArgumentParser's "Unknown option" took four. APPHOST_DATA_DIR, which
    // only launch and ctl read, is no error.
    func testInspectRefusesADataDirectoryInOneLine() throws {
        let sample = try BuildProducts.path(BuildProducts.cSample)
        let result = try runApphost(["inspect", "--data-dir", dataDirectory, sample])
        XCTAssertEqual(result.status, 64)
        assertOneLineError(result, containing: "inspect takes no --data-dir")
        let environment = try runApphost(["inspect", sample], environment: ["APPHOST_DATA_DIR": dataDirectory])
        XCTAssertEqual(environment.status, 0, "\(environment.stderr)")
    }

    // README: in this process nothing can stop a library that hangs while it loads, so --timeout
    // with --isolation none is a usage error instead of an option silently ignored.
    func testTimeoutWithoutProcessIsolationIsAUsageError() throws {
        let sample = try BuildProducts.path(BuildProducts.cSample)
        let result = try runApphost(["inspect", "--isolation", "none", "--timeout", "5", sample])
        XCTAssertEqual(result.status, 64, "\(result.stderr)")
        assertOneLineError(result, containing: "--timeout needs --isolation process")
        XCTAssertEqual(try runApphost(["inspect", "--isolation", "none", sample]).status, 0)
    }
}
