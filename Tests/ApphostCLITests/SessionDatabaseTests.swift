import ApphostStore
import ApphostVocabulary
import Foundation
import GRDB
import XCTest

/// CONTRACT X5, S12: saved state does not vanish without a word when a host starts on a
/// sessions database it finds empty, damaged or not its own.
final class SessionDatabaseTests: HostTestCase {
    private var databasePath: String { dataDirectory + "/sessions.sqlite" }

    private func makeDataDirectory() throws {
        try FileManager.default.createDirectory(
            atPath: dataDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    // An empty file is what a host stopped while making the database leaves: the host makes it
    // anew and says so, on stderr and in the event stream, and runs.
    func testAnEmptyDatabaseIsMadeAnewAndSaid() throws {
        try makeDataDirectory()
        XCTAssertTrue(FileManager.default.createFile(atPath: databasePath, contents: Data()))
        let host = try startHost([BuildProducts.cSample])
        try host.waitForLog(Self.cID, "callback did_become_active", prefix: true)
        let said = "\(databasePath) was empty (0 bytes), as a host that stopped while making it leaves it: made it anew"
        XCTAssertEqual(host.events.filter { $0.kind == .storeRecovered }.map(\.message), [said])
        XCTAssertEqual(host.events.first { $0.kind == .storeRecovered }?.name, nil, "nothing was lost")
        let (lines, _) = host.stderr.wait(until: Date() + 10) { $0.contains { $0.contains(said) } }
        XCTAssertEqual(lines.filter { $0.contains(said) }.count, 1, "\(lines)")
        XCTAssertTrue(lines.first { $0.contains(said) }?.contains("warning") ?? false, "\(lines)")
    }

    // A file that is not SQLite, another program's database and a newer apphost's: the host
    // refuses to start, with one line naming the file and what is wrong, and leaves it as it is.
    func testADatabaseTheHostCannotReadIsRefusedAndLeftAsItIs() throws {
        let guest = try BuildProducts.path(BuildProducts.cSample)
        let cases: [(String, () throws -> Void, String)] = [
            (
                "not SQLite", { try "my notes\n".write(toFile: self.databasePath, atomically: true, encoding: .utf8) },
                "not an SQLite database"
            ),
            (
                "another program's",
                {
                    try DatabaseQueue(path: self.databasePath).write { db in
                        try db.execute(sql: "CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)")
                    }
                }, "not an apphost sessions database: it holds the tables notes"
            ),
            (
                "a newer apphost's",
                {
                    try SQLiteSessionStore(path: self.databasePath).create(
                        StoredSession(sessionID: "s1", role: .primary, state: Data("kept".utf8)), of: Self.cID)
                    try DatabaseQueue(path: self.databasePath).write { db in
                        try db.execute(sql: "INSERT INTO grdb_migrations VALUES ('session order')")
                    }
                }, "made by a newer apphost: its schema has migrations this one does not know, session order"
            ),
        ]
        for (name, make, problem) in cases {
            try? FileManager.default.removeItem(atPath: dataDirectory)
            try makeDataDirectory()
            try make()
            let before = try XCTUnwrap(FileManager.default.contents(atPath: databasePath), name)
            let result = try runApphost(["launch", "--data-dir", dataDirectory, guest], timeout: 10)
            assertOneLineError(result, containing: "cannot open the sessions database: \(databasePath): \(problem)")
            XCTAssertEqual(FileManager.default.contents(atPath: databasePath), before, "\(name): left as it was")
        }
    }

    // CONTRACT X5: a host killed while its guest saves leaves a log; a frame of it damaged on
    // disk makes SQLite's recovery drop the saves after it. The next host keeps copies of the
    // database and its log as found, and says where the log is damaged and what is lost, as an
    // error on stderr and in the event stream.
    func testADamagedLogIsCopiedAsideAndWhatIsLostIsSaid() throws {
        let saver = try TestGuests.saver(into: scratch.path)
        let killed = try startHost([saver])
        let deadline = Date() + 10
        while killed.events.filter({ $0.kind == .stateSaved }).count < 20, Date() < deadline { usleep(20_000) }
        killed.kill()
        let logPath = databasePath + "-wal"
        let frameSize = 24 + 4096
        let frames = try XCTUnwrap(FileManager.default.contents(atPath: logPath)).count / frameSize
        XCTAssertGreaterThan(frames, 20)
        // A byte of the fifth frame's page: the saves after it are in the frames that follow.
        let file = try XCTUnwrap(FileHandle(forUpdatingAtPath: logPath))
        try file.seek(toOffset: UInt64(32 + 4 * frameSize + 24 + 100))
        let byte = try XCTUnwrap(try file.read(upToCount: 1)?.first)
        try file.seek(toOffset: UInt64(32 + 4 * frameSize + 24 + 100))
        try file.write(contentsOf: [~byte])
        try file.close()
        let database = try XCTUnwrap(FileManager.default.contents(atPath: databasePath))
        let log = try XCTUnwrap(FileManager.default.contents(atPath: logPath))

        let host = try startHost([saver])
        let event = try host.waitForEvent("store-recovered") { $0.kind == .storeRecovered }
        let message = try XCTUnwrap(event.message)
        XCTAssertTrue(message.hasPrefix("\(logPath) is damaged at frame 5: SQLite keeps "), message)
        // What makes it an error in the journal, where it is this event's entry alone.
        XCTAssertEqual(event.name, HostEvent.savesLost)
        let copy = try XCTUnwrap(
            message.components(separatedBy: "the database and its log as found are kept as ").last?.components(
                separatedBy: " and "
            ).first)
        XCTAssertTrue(copy.hasPrefix(databasePath + ".damaged-"), message)
        XCTAssertEqual(FileManager.default.contents(atPath: copy), database)
        XCTAssertEqual(FileManager.default.contents(atPath: copy + "-wal"), log)
        let (lines, _) = host.stderr.wait(until: Date() + 10) { $0.contains { $0.contains(message) } }
        let line = try XCTUnwrap(lines.first { $0.contains(message) }, "\(lines)")
        XCTAssertTrue(line.contains("error"), line)
        try host.waitForLog(TestGuests.saverID, "restored", prefix: true)
        XCTAssertFalse(host.events.contains { $0.message == "torn" })
    }
}
