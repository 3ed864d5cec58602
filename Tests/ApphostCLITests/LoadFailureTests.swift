import ApphostModel
import XCTest

/// Guests that fail to load or to launch: reported in one line, and the host runs the others.
final class LoadFailureTests: HostTestCase {
    // CONTRACT A2, X1: a launch that fails is reported with its reason, the guest never connects
    // a scene, and the other guest runs. Both samples honour APPHOST_SAMPLE_FAIL_LAUNCH, so the
    // other guest is the minimal fixture.
    func testFailedLaunchIsReportedAndTheOtherGuestRuns() throws {
        let minimal = try TestGuests.minimal(into: scratch.path)
        let host = try startHost([BuildProducts.cSample, minimal], environment: ["APPHOST_SAMPLE_FAIL_LAUNCH": "1"])
        let failed = try host.waitForEvent("launch-failed for the C sample") {
            $0.kind == .launchFailed && $0.guest == Self.cID
        }
        XCTAssertTrue(failed.message?.contains("launch failed") == true, "\(failed.humanLine)")
        try host.waitForEvent("the fixture's scene becoming active") {
            $0.kind == .sceneState && $0.guest == TestGuests.minimalID && $0.to == "foregroundActive"
        }

        let errors = host.stderr.wait(until: Date() + 10) { !$0.isEmpty }.lines
        XCTAssertEqual(errors.count, 1, "\(errors)")
        XCTAssertTrue(errors.first?.hasPrefix("apphost: ") == true && errors.first?.contains("launch failed") == true)

        XCTAssertEqual(host.events.loggedCallbacks(of: Self.cID), ["did_finish_launching"], "never half-running")
        XCTAssertFalse(host.events.contains { $0.guest == Self.cID && $0.kind == .sceneState }, "no scene connected")
        let status = try status()
        XCTAssertEqual(status.guest(Self.cID)?.appState, .notRunning)
        // The first guest that launches takes the foreground.
        XCTAssertEqual(status.foreground, TestGuests.minimalID)
        XCTAssertEqual(status.guest(TestGuests.minimalID)?.appState, .active)
        XCTAssertTrue(host.process.isRunning)
    }

    // CONTRACT A2: the Swift sample fails its launch on request too, and is reported the same way.
    func testBothSamplesFailingLeavesNoGuestAndExitsOne() throws {
        let host = try startHost(
            [BuildProducts.cSample, BuildProducts.swiftSample], environment: ["APPHOST_SAMPLE_FAIL_LAUNCH": "1"])
        XCTAssertEqual(try host.waitForExit(), 1)
        let failed = host.events.filter { $0.kind == .launchFailed }.compactMap(\.guest)
        XCTAssertEqual(failed, [Self.cID, Self.swiftID])
        XCTAssertEqual(host.stderr.snapshot.count, 2, "one line per guest: \(host.stderr.snapshot)")
        XCTAssertFalse(host.events.contains { $0.kind == .sceneState }, "no scene ever connected")
    }

    // CONTRACT A2, X1: when no guest launches, the host reports it, shuts down and exits 1.
    func testHostExitsOneWhenNoGuestLaunches() throws {
        let result = try runApphost(
            [
                "launch", "--log-level", "warning", "--data-dir", dataDirectory,
                try BuildProducts.path(BuildProducts.cSample),
            ],
            environment: ["APPHOST_SAMPLE_FAIL_LAUNCH": "1"])
        XCTAssertEqual(result.status, 1)
        assertOneLineError(result, containing: "launch failed")
        XCTAssertFalse(FileManager.default.fileExists(atPath: dataDirectory + "/control.sock"))
    }

    // CONTRACT X1: a file that is not a guest gets a one-line error naming the cause; the
    // other guest runs.
    func testNonGuestFileAmongGuestsIsReportedAndTheOthersRun() throws {
        let bad = try scratch.file("notes.so", contents: "not a shared library\n")
        let host = try startHost([bad, BuildProducts.cSample])
        try host.waitForLog(Self.cID, "callback did_become_active", prefix: true)
        let errors = host.stderr.wait(until: Date() + 10) { !$0.isEmpty }.lines
        XCTAssertEqual(errors, ["apphost: \(bad): not an ELF file"])
        XCTAssertTrue(host.events.contains { $0.kind == .launchFailed && $0.message?.contains(bad) == true })
        XCTAssertEqual(try status().guest(Self.cID)?.appState, .active)
    }

    // CONTRACT X1
    func testMissingFileIsReportedAndTheOthersRun() throws {
        let missing = scratch.path + "/missing.so"
        let host = try startHost([BuildProducts.cSample, missing])
        try host.waitForLog(Self.cID, "callback did_become_active", prefix: true)
        let errors = host.stderr.wait(until: Date() + 10) { !$0.isEmpty }.lines
        XCTAssertEqual(errors, ["apphost: \(missing): no such file"])
        XCTAssertTrue(host.process.isRunning)
    }

    // CONTRACT X1: inspect reports the same one-line error.
    func testInspectOfANonGuestIsOneLineError() throws {
        let bad = try scratch.file("notes.so", contents: "not a shared library\n")
        let result = try runApphost(["inspect", bad])
        XCTAssertEqual(result.status, 1)
        assertOneLineError(result, containing: "\(bad): not an ELF file")
    }

    // CONTRACT X1: an apphost_entry that is not the entry object is named for what it is, from
    // the ELF symbol table before the library is loaded, by inspect in either isolation and by
    // launch: not read as one (a function's code was an "unsupported ABI version 3850979413...",
    // a 1-byte object's neighbours a NULL descriptor).
    func testAnEntrySymbolThatIsNotTheEntryObjectIsNamedForWhatItIs() throws {
        let function = try TestGuests.badEntry("FIXTURE_ENTRY_FUNCTION", as: "libFunction.so", into: scratch.path)
        let byte = try TestGuests.badEntry("FIXTURE_ENTRY_BYTE", as: "libByte.so", into: scratch.path)
        let expected = [
            function: "\(function): apphost_entry is a function, not the entry object (see sdk/README.md)",
            byte: "\(byte): apphost_entry is 1 byte, smaller than apphost_entry_t (48 bytes; see sdk/README.md)",
        ]
        for (path, line) in expected {
            for isolation in ["process", "none"] {
                let result = try runApphost(["inspect", "--isolation", isolation, path])
                XCTAssertEqual(result.status, 1, "\(isolation): \(result.stderr)")
                XCTAssertEqual(result.stderr, ["apphost: " + line], isolation)
            }
            let launch = try runApphost(["launch", "--log-level", "error", "--data-dir", dataDirectory, path])
            XCTAssertEqual(launch.status, 1, "\(launch.stderr)")
            XCTAssertEqual(launch.stderr, ["apphost: " + line])
        }
    }

    func testInspectPrintsTheDescriptor() throws {
        let path = try BuildProducts.path(BuildProducts.cSample)
        let json = try runApphost(["inspect", path, "--json"])
        XCTAssertEqual(json.status, 0, "\(json.stderr)")
        let object = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(json.stdout.joined().utf8)) as? [String: Any])
        XCTAssertEqual(object["id"] as? String, Self.cID)
        XCTAssertEqual(object["name"] as? String, "C Sample")
        XCTAssertEqual(object["abiVersion"] as? String, ABIVersion.current.description)
        XCTAssertEqual(object["capabilities"] as? [String], ["multiple-scenes"])

        let human = try runApphost(["inspect", path])
        XCTAssertEqual(human.status, 0)
        XCTAssertTrue(human.stdout.contains { $0.hasPrefix("id") && $0.hasSuffix(Self.cID) }, "\(human.stdout)")
    }
}
