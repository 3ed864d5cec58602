import ApphostStore
import ApphostVocabulary
import Foundation
import Synchronization
import XCTest

/// The SQLite session store (CONTRACT S8, S12) on its own: what one opening saved, the next reads.
final class SQLiteSessionStoreTests: XCTestCase {
    private var directory: String!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("store-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: directory)
    }

    private func save(_ store: SQLiteSessionStore, _ state: Data, session: String) -> Result<Void, StoreError> {
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var outcome: Result<Void, StoreError>?
        store.save(state, session: session) { result in
            outcome = result
            done.signal()
        }
        done.wait()
        return outcome!
    }

    func testSessionsAndSavesOutliveTheStore() throws {
        let path = directory + "/sessions.sqlite"
        do {
            let store = try SQLiteSessionStore(path: path)
            try store.create(StoredSession(sessionID: "s1", role: .primary, state: nil), of: "org.a")
            try store.create(StoredSession(sessionID: "s2", role: .auxiliary, state: nil), of: "org.a")
            try store.create(StoredSession(sessionID: "s3", role: .primary, state: nil), of: "org.b")
            XCTAssertNoThrow(try save(store, Data("one".utf8), session: "s1").get())
            XCTAssertNoThrow(try save(store, Data(), session: "s2").get())
            XCTAssertThrowsError(try save(store, Data("x".utf8), session: "nope").get()) { error in
                XCTAssertEqual(error as? StoreError, StoreError("no session nope"))
            }
        }
        let reopened = try SQLiteSessionStore(path: path)
        XCTAssertEqual(
            try reopened.sessions(of: "org.a"),
            [
                StoredSession(sessionID: "s1", role: .primary, state: Data("one".utf8)),
                StoredSession(sessionID: "s2", role: .auxiliary, state: Data()),
            ], "oldest first; an empty save is not nothing (S12)")
        XCTAssertEqual(try reopened.sessions(of: "org.b").map(\.state), [nil])
        XCTAssertEqual(try reopened.sessions(of: "org.c"), [])
    }

    // CONTRACT X4: the database, its log and its shared memory hold saved state: they are the
    // owner's alone (0600) whatever the umask, and a database an older host left readable by
    // others becomes private when it is opened.
    func testTheDatabaseFilesArePrivate() throws {
        let path = directory + "/sessions.sqlite"
        let mask = umask(0o022)
        defer { umask(mask) }
        let files = [path, path + "-wal", path + "-shm"]
        do {
            let store = try SQLiteSessionStore(path: path)
            try store.create(StoredSession(sessionID: "s1", role: .primary, state: nil), of: "org.a")
            XCTAssertNoThrow(try save(store, Data("one".utf8), session: "s1").get())
            for file in files {
                XCTAssertEqual(try mode(of: file), 0o600, file)
                XCTAssertEqual(chmod(file, 0o644), 0)
            }
            let reopened = try SQLiteSessionStore(path: path)
            for file in files { XCTAssertEqual(try mode(of: file), 0o600, "reopened: \(file)") }
            XCTAssertEqual(try reopened.sessions(of: "org.a").map(\.state), [Data("one".utf8)])
        }
    }

    private func mode(of path: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return try XCTUnwrap(attributes[.posixPermissions] as? Int)
    }

    func testAFileThatIsNotADatabaseIsAOneLineError() throws {
        let path = directory + "/sessions.sqlite"
        try String(repeating: "not a database ", count: 100).write(toFile: path, atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try SQLiteSessionStore(path: path)) { error in
            let text = (error as? StoreError)?.description ?? ""
            XCTAssertTrue(text.hasPrefix(path + ": "), text)
            XCTAssertFalse(text.contains("\n"))
        }
    }
}

/// CONTRACT S7: closing a session deletes its state for good; the session is remembered as
/// discarded until its guest has been told.
final class SQLiteSessionDiscardTests: XCTestCase {
    func testADiscardedSessionLosesItsStateAndIsRememberedUntilForgotten() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("store-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/sessions.sqlite"
        do {
            let store = try SQLiteSessionStore(path: path)
            try store.create(StoredSession(sessionID: "s1", role: .primary, state: Data("keep".utf8)), of: "org.a")
            try store.create(StoredSession(sessionID: "s2", role: .auxiliary, state: Data("gone".utf8)), of: "org.a")
            try store.create(StoredSession(sessionID: "s3", role: .primary, state: nil), of: "org.b")
            XCTAssertNoThrow(try wait { store.discard(session: "s2", completion: $0) }.get())
            XCTAssertThrowsError(try wait { store.discard(session: "nope", completion: $0) }.get())
            // A save still on its way when the session was closed does not bring it back.
            XCTAssertNoThrow(try wait { store.save(Data("late".utf8), session: "s2", completion: $0) }.get())
        }
        let store = try SQLiteSessionStore(path: path)
        XCTAssertEqual(
            try store.sessions(of: "org.a"), [StoredSession(sessionID: "s1", role: .primary, state: Data("keep".utf8))])
        XCTAssertEqual(try store.discardedSessions(of: "org.a"), ["s2"])
        XCTAssertEqual(try store.discardedSessions(of: "org.b"), [])
        try store.forget(session: "s2")
        XCTAssertEqual(try store.discardedSessions(of: "org.a"), [])
        try store.forget(session: "s1")
        XCTAssertEqual(try store.sessions(of: "org.a").count, 1, "forget removes only discarded sessions")
    }

    // S7: the discard runs after the saves asked for before it, so that a save on its way when
    // the user closed the scene cannot outlive the close; its state is gone for good.
    func testADiscardComesAfterTheSavesAskedForBeforeIt() throws {
        let path = try databasePath()
        let order = Mutex<[String]>([])
        let done = DispatchGroup()
        do {
            let store = try SQLiteSessionStore(path: path)
            try store.create(StoredSession(sessionID: "s1", role: .primary, state: nil), of: "org.a")
            for index in 1...20 {
                done.enter()
                store.save(Data("save \(index)".utf8), session: "s1") { result in
                    order.withLock { $0.append("save \(index): \(Self.text(result))") }
                    done.leave()
                }
            }
            done.enter()
            store.discard(session: "s1") { result in
                order.withLock { $0.append("discard: \(Self.text(result))") }
                done.leave()
            }
            done.enter()
            store.save(Data("too late".utf8), session: "s1") { result in
                order.withLock { $0.append("late: \(Self.text(result))") }
                done.leave()
            }
            done.wait()
            XCTAssertEqual(
                order.withLock { $0 },
                (1...20).map { "save \($0): ok" } + ["discard: ok", "late: ok"],
                "in the order asked; a late save of a discarded session is dropped, not an error")
            XCTAssertEqual(try store.sessions(of: "org.a"), [])
        }
        let reopened = try SQLiteSessionStore(path: path)
        XCTAssertEqual(try reopened.sessions(of: "org.a"), [], "S7: not resurrected by the late save")
        XCTAssertEqual(try reopened.discardedSessions(of: "org.a"), ["s1"])
    }

    // S7: discarded sessions are listed per guest, oldest first, each until it is forgotten,
    // across reopenings; a forgotten session is unknown.
    func testDiscardedSessionsArePerGuestUntilForgotten() throws {
        let path = try databasePath()
        do {
            let store = try SQLiteSessionStore(path: path)
            for (session, guest) in [("a1", "org.a"), ("b1", "org.b"), ("a2", "org.a"), ("a3", "org.a")] {
                try store.create(
                    StoredSession(sessionID: session, role: .auxiliary, state: Data(session.utf8)), of: guest)
            }
            for session in ["a3", "b1", "a1"] {
                XCTAssertNoThrow(try wait { store.discard(session: session, completion: $0) }.get())
            }
            XCTAssertNoThrow(try wait { store.discard(session: "a1", completion: $0) }.get(), "again: still discarded")
        }
        do {
            let store = try SQLiteSessionStore(path: path)
            XCTAssertEqual(try store.discardedSessions(of: "org.a"), ["a1", "a3"], "oldest first")
            XCTAssertEqual(try store.discardedSessions(of: "org.b"), ["b1"])
            XCTAssertEqual(
                try store.sessions(of: "org.a"),
                [StoredSession(sessionID: "a2", role: .auxiliary, state: Data("a2".utf8))])
            XCTAssertEqual(try store.sessions(of: "org.b"), [])
            try store.forget(session: "a1")
            try store.forget(session: "a1")
            try store.forget(session: "nope")
            XCTAssertEqual(try store.discardedSessions(of: "org.a"), ["a3"])
            XCTAssertEqual(try store.discardedSessions(of: "org.b"), ["b1"], "another guest's stay")
            XCTAssertThrowsError(try wait { store.save(Data("x".utf8), session: "a1", completion: $0) }.get()) {
                error in
                XCTAssertEqual(error as? StoreError, StoreError("no session a1"), "forgotten: unknown")
            }
            XCTAssertThrowsError(try wait { store.discard(session: "a1", completion: $0) }.get())
        }
        let reopened = try SQLiteSessionStore(path: path)
        XCTAssertEqual(try reopened.discardedSessions(of: "org.a"), ["a3"])
        XCTAssertEqual(try reopened.sessions(of: "org.a").map(\.sessionID), ["a2"])
    }

    private static func text(_ result: Result<Void, StoreError>) -> String {
        switch result {
        case .success: "ok"
        case .failure(let error): error.description
        }
    }

    private func databasePath() throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("store-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: directory) }
        return directory + "/sessions.sqlite"
    }

    private func wait(_ body: (@escaping @Sendable (Result<Void, StoreError>) -> Void) -> Void) -> Result<
        Void, StoreError
    > {
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var outcome: Result<Void, StoreError>?
        body { result in
            outcome = result
            done.signal()
        }
        done.wait()
        return outcome!
    }
}
