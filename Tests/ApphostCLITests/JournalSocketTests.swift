import ApphostControl
import ApphostServiceTesting
import Foundation
import XCTest

/// `apphost launch` under journald (CONTRACT O3): each event and each log record is one entry of
/// journald's native protocol, with fields to filter on, read back from a socket the test binds
/// in journald's place (`$APPHOST_JOURNAL_SOCKET`).
class JournalSocketCases: HostTestCase {
    var missingGuest: String { scratch.path + "/libMissing.so" }

    /// A socket in journald's place, and the environment that names it to the host.
    func journal() throws -> (JournalListener, [String: String]) {
        let listener = try JournalListener(path: scratch.path + "/journal.socket")
        return (listener, ["APPHOST_JOURNAL_SOCKET": listener.path])
    }

    /// Entries until `done` says the ones so far are enough; fails after 20 s.
    func entries(
        from listener: JournalListener, file: StaticString = #filePath, line: UInt = #line,
        until done: ([JournalListener.Entry]) -> Bool
    ) throws -> [JournalListener.Entry] {
        var entries: [JournalListener.Entry] = []
        let deadline = Date() + 20
        while !done(entries) {
            guard let entry = listener.receive(timeout: deadline.timeIntervalSinceNow) else {
                XCTFail("not all entries came within 20 s: \(entries.map(\.description))", file: file, line: line)
                throw HostTestFailure()
            }
            entries.append(entry)
        }
        return entries
    }

    // CONTRACT O3: with the journal (`--log-format journal`) and its socket, every event and log
    // record is one entry with MESSAGE (no time of its own: journald stamps it), PRIORITY and
    // SYSLOG_IDENTIFIER=apphost, and the event's parts as fields: EVENT, GUEST_ID, REASON, ...;
    // callbacks at debug (7), transitions at info (6), a failure at error (3), said once though
    // the host used to say it both as an error line and as an event. Nothing goes to standard
    // output.
    func eventsAndLogRecordsAreEntriesWithFields() throws {
        let (listener, environment) = try journal()
        let host = try startHost(
            [BuildProducts.cSample, missingGuest], options: ["--log-format", "journal", "--log-level", "info"],
            environment: environment)
        let cID = Self.cID
        let all = try entries(from: listener) { entries in
            entries.contains { $0["EVENT"] == "app-state" && $0["GUEST_ID"] == cID && $0["EVENT_TO"] == "active" }
                && entries.contains { $0["EVENT"] == "launch-failed" }
                && entries.contains { $0["MESSAGE"] == "listening" }
        }
        host.signal(SIGTERM)
        XCTAssertEqual(try host.waitForExit(), 0)
        let rest = listener.entries(during: 0.2)
        let entries = all + rest

        for entry in entries {
            XCTAssertEqual(entry["SYSLOG_IDENTIFIER"], "apphost", "\(entry)")
            let priority = try XCTUnwrap(entry["PRIORITY"].flatMap(Int.init), "\(entry)")
            XCTAssertTrue((2...7).contains(priority), "\(entry)")
            let message = try XCTUnwrap(entry["MESSAGE"], "\(entry)")
            XCTAssertNil(
                message.range(of: #"^\d\d:\d\d:\d\d|^\d{4}-\d\d-\d\d"#, options: .regularExpression),
                "a time in MESSAGE: \(entry)")
            for (name, _) in entry.fields {
                XCTAssertNotNil(name.range(of: "^[A-Z0-9][A-Z0-9_]*$", options: .regularExpression), "\(entry)")
            }
        }

        let callbacks = entries.filter { $0["EVENT"] == "callback" }
        XCTAssertTrue(callbacks.contains { $0["EVENT_NAME"] == "did_finish_launching" }, "\(callbacks)")
        for callback in callbacks {
            XCTAssertEqual(callback["PRIORITY"], "7", "\(callback)")
            XCTAssertEqual(callback["GUEST_ID"], cID, "\(callback)")
        }
        let active = try XCTUnwrap(
            entries.first { $0["EVENT"] == "app-state" && $0["GUEST_ID"] == cID && $0["EVENT_TO"] == "active" })
        XCTAssertEqual(active["PRIORITY"], "6")
        XCTAssertEqual(active["EVENT_FROM"], "inactive")
        XCTAssertNotNil(active["REASON"])
        XCTAssertEqual(active["MESSAGE"], "app-state \(cID) inactive -> active (\(active["REASON"] ?? ""))")
        let scene = try XCTUnwrap(entries.first { $0["EVENT"] == "scene-state" && $0["GUEST_ID"] == cID })
        XCTAssertNotNil(scene["SCENE"].flatMap(UInt64.init), "\(scene)")

        // The missing guest's failure: one entry, at error.
        let failures = entries.filter { $0["MESSAGE"]?.contains(missingGuest) == true }
        XCTAssertEqual(failures.count, 1, "\(failures)")
        XCTAssertEqual(failures.first?["EVENT"], "launch-failed")
        XCTAssertEqual(failures.first?["PRIORITY"], "3")

        // The host's own log: fields of its metadata, the logger and where it logged.
        let listening = try XCTUnwrap(entries.first { $0["MESSAGE"] == "listening" })
        XCTAssertEqual(listening["PRIORITY"], "6")
        XCTAssertEqual(listening["SOCKET"], dataDirectory + "/control.sock")
        XCTAssertEqual(listening["PID"], "\(host.pid)")
        XCTAssertEqual(listening["LOGGER"], "apphost")
        XCTAssertNotNil(listening["CODE_FILE"])
        XCTAssertNil(listening["EVENT"])

        XCTAssertEqual(host.stdout.snapshot, [], "the events went to the journal")
    }
}

final class JournalSocketTests: JournalSocketCases {
    func testO3EventsAndLogRecordsAreEntriesWithFields() throws { try eventsAndLogRecordsAreEntriesWithFields() }

    // CONTRACT O3, X2: a guest that crashes is one entry at error (its cause and the callback it
    // was in); its termination that follows is a notice, not a second error. The entries carry
    // the guest's id, so that `journalctl GUEST_ID=... -p err` lists its failures, each once.
    func testO3X2ACrashIsOneErrorEntry() throws {
        let (listener, environment) = try journal()
        let dying = try TestGuests.dying(["-DFIXTURE_DIE_IN_CALLBACK"], as: "libDying.so", into: scratch.path)
        let host = try startHost([dying], options: ["--log-format", "journal"], environment: environment)
        let entries = try entries(from: listener) { entries in
            entries.contains { $0["EVENT"] == "terminated" && $0["GUEST_ID"] == TestGuests.dyingID }
        }
        if host.process.isRunning { host.signal(SIGTERM) }
        _ = try host.waitForExit()
        let all = entries + listener.entries(during: 0.2)
        let guests = all.filter { $0["GUEST_ID"] == TestGuests.dyingID }
        let failures = guests.filter { Int($0["PRIORITY"] ?? "") ?? 7 <= 4 }
        XCTAssertEqual(failures.count, 1, "one failure, one entry: \(failures)")
        XCTAssertEqual(failures.first?["EVENT"], "error")
        XCTAssertEqual(failures.first?["PRIORITY"], "3")
        XCTAssertEqual(failures.first?["REASON"], "crash")
        XCTAssertTrue(failures.first?["MESSAGE"]?.contains("crashed in") == true, "\(failures)")
        let terminated = try XCTUnwrap(guests.first { $0["EVENT"] == "terminated" })
        XCTAssertEqual(terminated["PRIORITY"], "5")
        XCTAssertEqual(terminated["REASON"], "crash")
    }
}

extension JournalSocketTests {
    // CONTRACT O3, X5: a sessions database made anew (an empty file) is said once in the journal,
    // by the `store-recovered` entry at warning, not by a log record besides it, as on a terminal.
    func testO3X5ARecoveredStoreIsOneEntry() throws {
        try FileManager.default.createDirectory(
            atPath: dataDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let database = dataDirectory + "/sessions.sqlite"
        XCTAssertTrue(FileManager.default.createFile(atPath: database, contents: Data()))
        let (listener, environment) = try journal()
        let host = try startHost(
            [BuildProducts.cSample], options: ["--log-format", "journal"], environment: environment)
        let cID = Self.cID
        let entries = try entries(from: listener) { entries in
            entries.contains { $0["EVENT"] == "app-state" && $0["GUEST_ID"] == cID && $0["EVENT_TO"] == "active" }
        }
        host.signal(SIGTERM)
        XCTAssertEqual(try host.waitForExit(), 0)
        let said = entries.filter { $0["MESSAGE"]?.contains("\(database) was empty") == true }
        XCTAssertEqual(said.count, 1, "\(said)")
        XCTAssertEqual(said.first?["EVENT"], "store-recovered")
        XCTAssertEqual(said.first?["PRIORITY"], "4")
    }
}

final class JournalSocketInProcessTests: JournalSocketCases {
    override class var isolation: String? { "none" }

    func testO3EventsAndLogRecordsAreEntriesWithFields() throws { try eventsAndLogRecordsAreEntriesWithFields() }
}
