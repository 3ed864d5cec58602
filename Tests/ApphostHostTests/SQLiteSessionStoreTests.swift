import ApphostHost
import Foundation
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
