import ApphostStore
import ApphostVocabulary
import Foundation
import GRDB
import XCTest

/// CONTRACT X5, S12: saved state never vanishes without a word when the sessions database is
/// opened. A file the host cannot read, or whose schema it does not know, is refused and left as
/// it is; an empty file is made anew and a damaged log recovered by SQLite, each said in a notice.
final class SessionDatabaseOpeningTests: XCTestCase {
    private var directory: String!
    private var path: String { directory + "/sessions.sqlite" }
    /// When the stores of these tests open: the copies of a damaged log are named by it.
    private let now = Date(timeIntervalSince1970: 1_800_000_000)
    private let stamp = "20270115T080000Z"

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("opening-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: directory)
    }

    // A 0-byte file is what a host stopped while making the database leaves: it is made anew,
    // and said (nothing was lost).
    func testAnEmptyFileIsMadeAnewAndSaid() throws {
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data()))
        let store = try SQLiteSessionStore(path: path, now: now)
        XCTAssertEqual(
            store.notices,
            [
                StoreNotice(
                    "\(path) was empty (0 bytes), as a host that stopped while making it leaves it: made it anew",
                    lostSaves: false)
            ])
        try store.create(StoredSession(sessionID: "s1", role: .primary, state: Data("x".utf8)), of: "org.a")
        XCTAssertEqual(try SQLiteSessionStore(path: path).sessions(of: "org.a").count, 1)
    }

    // A new database, and one that is sound, open without a notice.
    func testASoundDatabaseOpensWithoutANotice() throws {
        XCTAssertEqual(try SQLiteSessionStore(path: path).notices, [])
        XCTAssertEqual(try SQLiteSessionStore(path: path).notices, [])
    }

    // SQLite would take an empty (or missing) database for a new one and delete the log beside
    // it, with whatever it held: refused, and the log left as it is.
    func testAnEmptyOrMissingDatabaseBesideALogIsRefused() throws {
        let log = Data(repeating: 7, count: 5000)
        for empty in [true, false] {
            if empty { XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data())) }
            XCTAssertTrue(FileManager.default.createFile(atPath: path + "-wal", contents: log))
            XCTAssertThrowsError(try SQLiteSessionStore(path: path)) { error in
                XCTAssertEqual(
                    (error as? StoreError)?.description,
                    "\(path): \(empty ? "empty (0 bytes)" : "missing"), but its log \(path)-wal holds 5000 bytes, "
                        + "which SQLite would delete on opening it (the host does not change a file it cannot read: "
                        + "move it away to start with no saved state, with its log)")
            }
            XCTAssertEqual(FileManager.default.contents(atPath: path + "-wal"), log)
            XCTAssertEqual(FileManager.default.fileExists(atPath: path), empty)
            try? FileManager.default.removeItem(atPath: path)
        }
    }

    // Not SQLite: refused, never overwritten.
    func testAFileThatIsNotSQLiteIsRefusedAndLeftAsItIs() throws {
        let text = Data(String(repeating: "my notes ", count: 100).utf8)
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: text))
        XCTAssertThrowsError(try SQLiteSessionStore(path: path)) { error in
            XCTAssertEqual(
                (error as? StoreError)?.description,
                "\(path): not an SQLite database (the host does not change a file it cannot read: move it away to "
                    + "start with no saved state, or use another data directory)")
        }
        XCTAssertEqual(FileManager.default.contents(atPath: path), text)
    }

    // Another program's database, another GRDB program's, and a newer apphost's: the host does
    // not know their schemas, so it refuses them and changes nothing in them.
    func testADatabaseWithASchemaTheHostDoesNotKnowIsRefusedAndLeftAsItIs() throws {
        let foreign = "not an apphost sessions database"
        let advice = "the host does not change a database it does not know: move it away, or use another data directory"
        let cases: [(String, (Database) throws -> Void, String)] = [
            (
                "another program's",
                { db in
                    try db.execute(sql: "CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)")
                    try db.execute(sql: "CREATE TABLE tags (note INTEGER, tag TEXT)")
                },
                "\(foreign): it holds the tables notes, tags (\(advice))"
            ),
            (
                "another GRDB program's",
                { db in
                    try db.execute(sql: "CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)")
                    try db.execute(sql: "INSERT INTO grdb_migrations VALUES ('v1'), ('v2')")
                    try db.execute(sql: "CREATE TABLE player (id INTEGER PRIMARY KEY)")
                },
                "\(foreign): its schema's migrations v1, v2 are not apphost's (\(advice))"
            ),
        ]
        for (name, make, expected) in cases {
            try? FileManager.default.removeItem(atPath: path)
            try DatabaseQueue(path: path).write(make)
            try assertRefused(name, expected)
        }

        // A newer apphost: this one's schema, and a migration it does not know.
        try? FileManager.default.removeItem(atPath: path)
        do {
            let store = try SQLiteSessionStore(path: path)
            try store.create(StoredSession(sessionID: "s1", role: .primary, state: Data("x".utf8)), of: "org.a")
        }
        try DatabaseQueue(path: path).write { db in
            try db.execute(sql: "INSERT INTO grdb_migrations VALUES ('session order')")
            try db.execute(sql: "ALTER TABLE session RENAME TO scene_session")
        }
        try assertRefused(
            "a newer apphost's",
            "made by a newer apphost: its schema has migrations this one does not know, session order (the host "
                + "does not change a schema it does not know: run the newer apphost, or move the file away to start "
                + "with no saved state)")
    }

    private func assertRefused(_ name: String, _ expected: String) throws {
        let before = try XCTUnwrap(FileManager.default.contents(atPath: path))
        XCTAssertThrowsError(try SQLiteSessionStore(path: path), name) { error in
            XCTAssertEqual((error as? StoreError)?.description, "\(path): \(expected)", name)
        }
        XCTAssertEqual(FileManager.default.contents(atPath: path), before, "\(name): unchanged")
    }

    // A database whose pages are damaged is refused: writing to it could lose more.
    func testADamagedDatabaseIsRefused() throws {
        do {
            let store = try SQLiteSessionStore(path: path)
            try store.create(StoredSession(sessionID: "s1", role: .primary, state: Data("x".utf8)), of: "org.a")
        }
        // Page 2 is a b-tree page; a page type that is none makes it unreadable.
        let file = try XCTUnwrap(FileHandle(forUpdatingAtPath: path))
        try file.seek(toOffset: 4096)
        try file.write(contentsOf: [0xEE])
        try file.close()
        let before = try XCTUnwrap(FileManager.default.contents(atPath: path))
        XCTAssertThrowsError(try SQLiteSessionStore(path: path)) { error in
            let text = (error as? StoreError)?.description ?? ""
            XCTAssertTrue(text.hasPrefix("\(path): damaged: "), text)
            XCTAssertTrue(
                text.hasSuffix(
                    "(the host does not write to a damaged database: recover what it can with sqlite3's .recover, "
                        + "or move it away to start with no saved state)"), text)
            XCTAssertFalse(text.contains("\n"))
        }
        XCTAssertEqual(FileManager.default.contents(atPath: path), before)
    }

    // A host killed after its saves leaves the database and its log as they are on disk: the
    // next opening recovers every save from the log, and says nothing; nor for a frame cut short
    // by the kill, which belongs to no committed transaction.
    func testALogLeftByAKilledHostIsRecoveredWithoutANotice() throws {
        _ = try killedAfterSaves(4)
        let store = try SQLiteSessionStore(path: path, now: now)
        XCTAssertEqual(store.notices, [])
        XCTAssertEqual(try store.sessions(of: "org.a").map(\.state), [Data("state 4".utf8)])

        _ = try killedAfterSaves(4)
        let log = try XCTUnwrap(FileHandle(forWritingAtPath: path + "-wal"))
        try log.seekToEnd()
        try log.write(contentsOf: Data(repeating: 0x5A, count: 2000))
        try log.close()
        let cut = try SQLiteSessionStore(path: path, now: now)
        XCTAssertEqual(cut.notices, [])
        XCTAssertEqual(try cut.sessions(of: "org.a").map(\.state), [Data("state 4".utf8)])
    }

    // CONTRACT X5: a frame of the log damaged on disk makes SQLite's recovery drop every
    // transaction after it, acknowledged saves included, and then overwrite the log. The store
    // keeps copies of the database and its log as found first, and says where the log is damaged
    // and how many committed transactions are lost.
    func testADamagedLogFrameIsCopiedAsideAndWhatIsLostIsSaid() throws {
        let frames = try killedAfterSaves(5)
        // The first frame of the third save: saves 3, 4 and 5 are lost.
        let damaged = frames[1] + 1
        try flipByte(inLogAt: WriteAheadLogLayout.headerSize + (damaged - 1) * WriteAheadLogLayout.frameSize + 24 + 100)
        let database = try XCTUnwrap(FileManager.default.contents(atPath: path))
        let log = try XCTUnwrap(FileManager.default.contents(atPath: path + "-wal"))

        let store = try SQLiteSessionStore(path: path, now: now)
        XCTAssertEqual(store.notices.count, 1)
        let notice = try XCTUnwrap(store.notices.first)
        XCTAssertTrue(notice.lostSaves)
        let copy = "\(path).damaged-\(stamp)"
        XCTAssertTrue(
            notice.description.hasPrefix("\(path)-wal is damaged at frame \(damaged): SQLite keeps "),
            notice.description)
        XCTAssertTrue(
            notice.description.hasSuffix(
                " and drops 3 committed transactions after it (\(frames[4] - frames[1]) frames), saves of state or new "
                    + "or closed sessions; the database and its log as found are kept as \(copy) and \(copy)-wal"),
            notice.description)
        XCTAssertEqual(try store.sessions(of: "org.a").map(\.state), [Data("state 2".utf8)], "what SQLite kept")
        XCTAssertEqual(FileManager.default.contents(atPath: copy), database)
        XCTAssertEqual(FileManager.default.contents(atPath: copy + "-wal"), log)
        XCTAssertEqual(try mode(of: copy), 0o600)
        XCTAssertEqual(try mode(of: copy + "-wal"), 0o600)
    }

    // A damaged log header makes SQLite ignore the whole log: everything since the last
    // checkpoint is lost, the sessions table too for a young database. Said, with copies; the
    // store then starts with no saved state, and says only that.
    func testADamagedLogHeaderIsCopiedAsideAndSaid() throws {
        _ = try killedAfterSaves(3)
        try flipByte(inLogAt: 25)
        do {
            let store = try SQLiteSessionStore(path: path, now: now)
            XCTAssertEqual(store.notices.map(\.lostSaves), [true])
            let text = store.notices.first?.description ?? ""
            XCTAssertTrue(text.hasPrefix("\(path)-wal has a damaged header: SQLite ignores the whole log ("), text)
            XCTAssertTrue(
                text.contains(" committed transactions in it, saves of state or new or closed sessions; "), text)
            XCTAssertTrue(FileManager.default.fileExists(atPath: "\(path).damaged-\(stamp)-wal"))
            XCTAssertEqual(try store.sessions(of: "org.a"), [])
        }

        // A second damaged log in the same second gets copies of its own.
        _ = try killedAfterSaves(3)
        try flipByte(inLogAt: 25)
        XCTAssertTrue(
            try SQLiteSessionStore(path: path, now: now).notices.first?.description.hasSuffix(
                "kept as \(path).damaged-\(stamp)-2 and \(path).damaged-\(stamp)-2-wal") ?? false)
    }

    // CONTRACT X5: wherever a frame of the last saves is damaged (each field of its header, its
    // page, or a stretch of the log's middle), a save SQLite's recovery drops is said, at the
    // frame where it happens. A frame whose salts were damaged was taken for one left over from
    // an earlier generation of the log, and the last save went without a word. Damage to the
    // log's last frame alone is the exception: it cannot be told from a kill that cut the frame
    // short as it was written, before its save was acknowledged, and is not said (see below).
    func testEveryDamagedFrameOfTheLastSavesIsSaidWhereItIs() throws {
        let frames = try killedAfterSaves(5)
        let database = try XCTUnwrap(FileManager.default.contents(atPath: path))
        let log = try XCTUnwrap(FileManager.default.contents(atPath: path + "-wal"))
        func frameStart(_ frame: Int) -> Int {
            WriteAheadLogLayout.headerSize + (frame - 1) * WriteAheadLogLayout.frameSize
        }
        var damages: [(what: String, firstFrame: Int, log: Data)] = []
        for frame in (frames[2] + 1)...frames[4] {
            // Page number, commit size, both salts, both checksums, and a byte of the page.
            for field in [0, 4, 8, 12, 16, 20, 24 + 100] {
                var damaged = log
                damaged[frameStart(frame) + field] = ~damaged[frameStart(frame) + field]
                damages.append(("byte \(field) of frame \(frame)", frame, damaged))
            }
        }
        // Into the next frame's header: the saves after it show both were once whole.
        let middle = frameStart(frames[2]) + 2000
        var zeroed = log
        zeroed.replaceSubrange(middle..<(middle + 4096), with: Data(count: 4096))
        damages.append(("4096 zero bytes from \(middle)", frames[2], zeroed))

        // Each damaged log in a directory of its own: the store before it closes its database on
        // its own queue, a moment after its last answer, and SQLite then removes the log by name.
        for (index, damage) in damages.enumerated() {
            let place = directory + "/damage-\(index)"
            try FileManager.default.createDirectory(atPath: place, withIntermediateDirectories: true)
            let path = place + "/sessions.sqlite"
            XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: database))
            XCTAssertTrue(FileManager.default.createFile(atPath: path + "-wal", contents: damage.log))
            let store = try SQLiteSessionStore(path: path, now: now)
            let kept = try store.sessions(of: "org.a").map(\.state)
            guard kept != [Data("state 5".utf8)] else { continue }
            guard damage.firstFrame != frames[4] else {
                XCTAssertEqual(store.notices, [], "\(damage.what): the last frame, as a kill leaves it")
                continue
            }
            XCTAssertEqual(store.notices.count, 1, "\(damage.what): state \(kept) kept without a word")
            let said = store.notices.first?.description ?? ""
            XCTAssertTrue(said.hasPrefix("\(path)-wal is damaged at frame "), "\(damage.what): \(said)")
            let frame = said.dropFirst("\(path)-wal is damaged at frame ".count).prefix { $0.isNumber }
            XCTAssertEqual(Int(frame), damage.firstFrame, "\(damage.what): \(said)")
        }
    }

    // CONTRACT X5, S12: a host killed while SQLite wrote a save's last frame (its header, then
    // part of its page) leaves a frame whose checksum fails after an intact one: that save was
    // never acknowledged, and SQLite's recovery dropping it loses nothing. Not said as damage
    // (a host killed at random moments once was told its log was damaged).
    func testASaveCutShortByAKillIsNoDamage() throws {
        let frames = try killedAfterSaves(5)
        let last = WriteAheadLogLayout.headerSize + (frames[4] - 1) * WriteAheadLogLayout.frameSize
        let log = try XCTUnwrap(FileHandle(forUpdatingAtPath: path + "-wal"))
        try log.seek(toOffset: UInt64(last + 24 + 1500))
        try log.write(contentsOf: Data(repeating: 0, count: WriteAheadLogLayout.frameSize - 24 - 1500))
        try log.close()
        let store = try SQLiteSessionStore(path: path, now: now)
        XCTAssertEqual(store.notices, [])
        XCTAssertEqual(try store.sessions(of: "org.a").map(\.state), [Data("state 4".utf8)])
    }

    /// Saves `count` states of session s1 of org.a ("state 1", ...) in a store, and copies its
    /// database and log to `path` as a host killed after the last save leaves them (the store is
    /// open meanwhile, so its log is not checkpointed away). Returns how many frames the log held
    /// after each save.
    private func killedAfterSaves(_ count: Int) throws -> [Int] {
        let live = directory + "/live-\(UUID())"
        try FileManager.default.createDirectory(atPath: live, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: live) }
        let store = try SQLiteSessionStore(path: live + "/sessions.sqlite")
        try store.create(StoredSession(sessionID: "s1", role: .primary, state: nil), of: "org.a")
        var frames: [Int] = []
        for index in 1...count {
            let done = DispatchSemaphore(value: 0)
            nonisolated(unsafe) var outcome: Result<Void, StoreError>?
            store.save(Data("state \(index)".utf8), session: "s1") { result in
                outcome = result
                done.signal()
            }
            done.wait()
            try outcome?.get()
            let size = try XCTUnwrap(
                try FileManager.default.attributesOfItem(atPath: live + "/sessions.sqlite-wal")[.size] as? Int)
            frames.append((size - WriteAheadLogLayout.headerSize) / WriteAheadLogLayout.frameSize)
        }
        for suffix in ["", "-wal"] {
            try? FileManager.default.removeItem(atPath: path + suffix)
            try FileManager.default.copyItem(atPath: live + "/sessions.sqlite" + suffix, toPath: path + suffix)
        }
        try? FileManager.default.removeItem(atPath: path + "-shm")
        withExtendedLifetime(store) {}
        return frames
    }

    private func flipByte(inLogAt offset: Int) throws {
        let file = try XCTUnwrap(FileHandle(forUpdatingAtPath: path + "-wal"))
        try file.seek(toOffset: UInt64(offset))
        let byte = try XCTUnwrap(try file.read(upToCount: 1)?.first)
        try file.seek(toOffset: UInt64(offset))
        try file.write(contentsOf: [~byte])
        try file.close()
    }

    private func mode(of path: String) throws -> Int {
        try XCTUnwrap(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
    }
}

/// The log's layout with the 4096-byte pages SQLite gives a new database.
enum WriteAheadLogLayout {
    static let headerSize = 32
    static let frameSize = 24 + 4096
}
