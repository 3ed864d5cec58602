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

    // docs/operating.md: inspect runs no host and takes no --data-dir. Given one, it says so in one line (a
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

    // docs/operating.md: in this process nothing can stop a library that hangs while it loads, so --timeout
    // with --isolation none is a usage error instead of an option silently ignored.
    func testTimeoutWithoutProcessIsolationIsAUsageError() throws {
        let sample = try BuildProducts.path(BuildProducts.cSample)
        let result = try runApphost(["inspect", "--isolation", "none", "--timeout", "5", sample])
        XCTAssertEqual(result.status, 64, "\(result.stderr)")
        assertOneLineError(result, containing: "--timeout needs --isolation process")
        XCTAssertEqual(try runApphost(["inspect", "--isolation", "none", sample]).status, 0)
    }

    // sdk/README.md, "One exported symbol": inspect says what a C guest exports besides
    // apphost_entry, read from the file, so the same in either isolation and with --launch; a
    // warning, never an error. At most 8 names, then how many more.
    func testInspectSaysWhatACGuestExports() throws {
        let extra = scratch.path + "/exports.c"
        try """
        double log(double x) { return x; }
        int state = 1;
        void init(void) { state = 2; }
        #ifdef MANY
        int more_1(void) { return 1; }
        int more_2(void) { return 2; }
        int more_3(void) { return 3; }
        int more_4(void) { return 4; }
        int more_5(void) { return 5; }
        int more_6(void) { return 6; }
        int more_7(void) { return 7; }
        #endif
        """.write(toFile: extra, atomically: true, encoding: .utf8)
        for subdirectory in ["/linked", "/plain", "/many"] {
            try FileManager.default.createDirectory(
                atPath: scratch.path + subdirectory, withIntermediateDirectories: false)
        }
        let script = "-Wl,--version-script=" + TestGuests.packageRoot.appendingPathComponent("sdk/apphost.map").path
        let warning =
            "; the guest's own references to them may bind to same-named symbols of the host or a system library:"
            + " link with sdk/apphost.map (sdk/README.md, \"One exported symbol\")"
        let many = ["init", "log"] + (1...7).map { "more_\($0)" } + ["state"]
        let guests: [(path: String, line: String, names: [String])] = [
            (try TestGuests.minimal(into: scratch.path + "/linked", flags: [script, extra]), "apphost_entry only", []),
            (
                try TestGuests.minimal(into: scratch.path + "/plain", flags: [extra]),
                "apphost_entry and 3 other symbols: init, log, state" + warning, ["init", "log", "state"]
            ),
            (
                try TestGuests.minimal(into: scratch.path + "/many", flags: ["-DMANY", extra]),
                "apphost_entry and 10 other symbols: " + many.prefix(8).joined(separator: ", ") + " and 2 more"
                    + warning, many
            ),
        ]
        for guest in guests {
            for options in [[], ["--isolation", "none"], ["--launch"], ["--launch", "--isolation", "none"]] {
                let human = try runApphost(["inspect"] + options + [guest.path])
                XCTAssertEqual(human.status, 0, "\(options): \(human.stderr)")
                XCTAssertEqual(human.stdout.last, "exports       " + guest.line, "\(options)")

                let json = try runApphost(["inspect", "--json"] + options + [guest.path])
                XCTAssertEqual(json.status, 0, "\(options): \(json.stderr)")
                let object = try XCTUnwrap(
                    JSONSerialization.jsonObject(with: Data(json.stdout.joined().utf8)) as? [String: Any])
                let exports = try XCTUnwrap(object["exports"] as? [String: Any], "\(options): \(json.stdout)")
                XCTAssertEqual(exports["swiftSymbols"] as? Int, 0, "\(options)")
                XCTAssertEqual(exports["otherSymbols"] as? [String], guest.names, "\(options)")
            }
        }
    }

    // A Swift guest: its Swift-mangled exports are counted, as harmless, and the others listed;
    // the same as `nm -D --defined-only --extern-only` says, less the entry and what the linker
    // adds to every library. (The sample is linked with sdk/apphost.map, or not: either way.)
    func testInspectCountsASwiftGuestsSwiftSymbols() throws {
        let sample = try BuildProducts.path(BuildProducts.swiftSample)
        let nm = Process()
        nm.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        nm.arguments = ["nm", "-D", "--defined-only", "--extern-only", sample]
        let output = Pipe()
        nm.standardOutput = output
        try nm.run()
        let listing = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        nm.waitUntilExit()
        XCTAssertEqual(nm.terminationStatus, 0, "nm (binutils) failed")
        let names = Set(listing.split(separator: "\n").compactMap { $0.split(separator: " ").last.map(String.init) })
        XCTAssertTrue(names.contains("apphost_entry"), listing)
        let swift = names.filter { $0.hasPrefix("$s") || $0.hasPrefix("_$s") }
        let other = names.subtracting(swift).subtracting(["apphost_entry", "__bss_start", "_edata", "_end"]).sorted()

        for isolation in ["process", "none"] {
            let json = try runApphost(["inspect", "--json", "--isolation", isolation, sample])
            XCTAssertEqual(json.status, 0, "\(isolation): \(json.stderr)")
            let object = try XCTUnwrap(
                JSONSerialization.jsonObject(with: Data(json.stdout.joined().utf8)) as? [String: Any])
            let exports = try XCTUnwrap(object["exports"] as? [String: Any], "\(json.stdout)")
            XCTAssertEqual(exports["swiftSymbols"] as? Int, swift.count, isolation)
            XCTAssertEqual(exports["otherSymbols"] as? [String], other, isolation)

            let human = try runApphost(["inspect", "--isolation", isolation, sample])
            XCTAssertEqual(human.status, 0, "\(isolation): \(human.stderr)")
            let line = try XCTUnwrap(human.stdout.last)
            if swift.isEmpty, other.isEmpty {
                XCTAssertEqual(line, "exports       apphost_entry only")
            } else if other.isEmpty {
                XCTAssertEqual(
                    line,
                    "exports       apphost_entry and \(swift.count) Swift symbols"
                        + " (harmless: Swift names are unique to their module)")
            } else {
                XCTAssertTrue(line.contains("\(other.count) other symbol"), line)
            }
        }
    }
}
