import Foundation
import XCTest

/// `apphost launch` under a real systemd-journald (CONTRACT O3), as an operator's probe runs it:
/// journald started by the test in a mount namespace of its own (`unshare`), its sockets and its
/// journal in the test's directory, and the host's entries read back with `journalctl -o json`,
/// filtered by journald itself on the host's fields.
final class JournaldTests: HostTestCase {
    private var journald: Process?

    override func tearDown() {
        if let journald, journald.isRunning {
            journald.terminate()
            journald.waitUntilExit()
        }
        journald = nil
        super.tearDown()
    }

    /// Starts systemd-journald with `/run` a tmpfs of its own, `/run/systemd/journal` (its
    /// sockets) and `/run/log/journal` (its files) directories of this test; returns where its
    /// native socket and its journal are. Root gets a mount namespace; another user one inside a
    /// user namespace of its own (`unshare -r`). Skips the test where neither can be made.
    private func startJournald() throws -> (socket: String, journal: String) {
        let journaldPath = "/lib/systemd/systemd-journald"
        guard FileManager.default.isExecutableFile(atPath: journaldPath),
            FileManager.default.isExecutableFile(atPath: "/usr/bin/journalctl")
        else { throw XCTSkip("no systemd-journald or journalctl here (Debian's systemd package has them)") }
        let sockets = scratch.path + "/journald-run"
        let journal = scratch.path + "/journald-log"
        for directory in [sockets, journal] {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        let script = """
            set -e
            mount -t tmpfs tmpfs /run
            mkdir -p /run/systemd/journal /run/log/journal
            mount --bind "$1" /run/systemd/journal
            mount --bind "$2" /run/log/journal
            if [ -d /var/log/journal ]; then mount -t tmpfs tmpfs /var/log/journal; fi
            exec \(journaldPath)
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        process.arguments = (getuid() == 0 ? ["-m"] : ["-r", "-m"]) + ["sh", "-c", script, "sh", sockets, journal]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        journald = process
        let socket = sockets + "/socket"
        let deadline = Date() + 10
        while process.isRunning, !FileManager.default.fileExists(atPath: socket), Date() < deadline {
            usleep(10_000)
        }
        guard process.isRunning, FileManager.default.fileExists(atPath: socket) else {
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
            let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            throw XCTSkip("systemd-journald could not be started in a mount namespace here: \(said)")
        }
        return (socket, journal)
    }

    /// `journalctl -D journal -o json` with `matches`: the entries, each a JSON object.
    private func entries(_ journal: String, _ matches: [String]) throws -> [[String: String]] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/journalctl")
        process.arguments = ["-D", journal, "-o", "json", "--no-pager"] + matches
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return try data.split(separator: UInt8(ascii: "\n")).map { line in
            // A field journald keeps as bytes (not valid UTF-8) is an array: none is expected.
            try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line)) as? [String: Any]).compactMapValues {
                $0 as? String
            }
        }
    }

    /// Reads the journal until `done` says the entries are there; fails after 20 s.
    private func waitForEntries(
        _ journal: String, _ matches: [String], file: StaticString = #filePath, line: UInt = #line,
        until done: ([[String: String]]) -> Bool
    ) throws -> [[String: String]] {
        let deadline = Date() + 20
        while true {
            let found = try entries(journal, matches)
            if done(found) { return found }
            guard Date() < deadline else {
                XCTFail("journald did not have them within 20 s: \(found)", file: file, line: line)
                throw HostTestFailure()
            }
            usleep(100_000)
        }
    }

    // CONTRACT O3: under a real journald the host's entries carry their fields, and journald
    // filters on them: one guest's events (GUEST_ID), its callbacks at debug (EVENT=callback),
    // and the errors (-p err): one entry for a guest that failed to launch.
    func testO3JournaldKeepsTheEntriesFieldsAndFiltersOnThem() throws {
        let (socket, journal) = try startJournald()
        let missing = scratch.path + "/libMissing.so"
        let host = try startHost(
            [BuildProducts.cSample, missing], options: ["--log-format", "journal", "--log-level", "info"],
            environment: ["APPHOST_JOURNAL_SOCKET": socket])
        let cID = Self.cID
        let guest = try waitForEntries(journal, ["GUEST_ID=\(cID)"]) { entries in
            entries.contains { $0["EVENT"] == "app-state" && $0["EVENT_TO"] == "active" }
        }
        host.signal(SIGTERM)
        XCTAssertEqual(try host.waitForExit(), 0)

        for entry in guest {
            XCTAssertEqual(entry["SYSLOG_IDENTIFIER"], "apphost", "\(entry)")
            XCTAssertEqual(entry["_TRANSPORT"], "journal", "\(entry)")
            XCTAssertEqual(entry["_PID"], "\(host.pid)", "\(entry)")
            XCTAssertNotNil(entry["EVENT"], "\(entry)")
        }
        let active = try XCTUnwrap(guest.first { $0["EVENT"] == "app-state" && $0["EVENT_TO"] == "active" })
        XCTAssertEqual(active["PRIORITY"], "6")
        XCTAssertEqual(active["MESSAGE"], "app-state \(cID) inactive -> active (\(active["REASON"] ?? "?"))")

        let callbacks = try entries(journal, ["GUEST_ID=\(cID)", "EVENT=callback"])
        XCTAssertTrue(callbacks.contains { $0["EVENT_NAME"] == "did_finish_launching" }, "\(callbacks)")
        XCTAssertEqual(Set(callbacks.map { $0["PRIORITY"] }), ["7"])

        let errors = try entries(journal, ["SYSLOG_IDENTIFIER=apphost", "-p", "err"])
        XCTAssertEqual(errors.count, 1, "\(errors)")
        XCTAssertEqual(errors.first?["EVENT"], "launch-failed")
        XCTAssertTrue(errors.first?["MESSAGE"]?.contains(missing) == true, "\(errors)")

        let listening = try entries(journal, ["SYSLOG_IDENTIFIER=apphost", "MESSAGE=listening"])
        XCTAssertEqual(listening.first?["SOCKET"], dataDirectory + "/control.sock")
    }
}
