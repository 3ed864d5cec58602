import ApphostModel
import ApphostVocabulary
import Dispatch
import Foundation
import GRDB

/// Scene sessions in an SQLite database in the data directory (CONTRACT S6, S8, S12), through
/// GRDB: WAL mode, each save one transaction committed with synchronous=FULL, so that a host
/// killed at any moment, or a machine that loses power, keeps every save it reported and never
/// half of one.
public final class SQLiteSessionStore: SessionStore {
    private let database: DatabaseQueue
    /// Reads, saves, discards and forgets run here, one after another, in the order asked: never
    /// on the host queue. (`create` runs on the caller's thread.)
    private let requests = DispatchQueue(label: "apphost.store")

    /// What the operator must hear about the database as it was found, and the store went on:
    /// it was empty and is made anew, or SQLite's recovery of its damaged log dropped saves.
    public let notices: [StoreNotice]

    /// Opens (creating it if needed) the database at `path`. The database and the log and
    /// shared memory SQLite makes beside it hold saved state: they are the owner's alone (0600).
    ///
    /// Saved state never vanishes without a word. A file the host cannot read, or whose schema
    /// it does not know (another program's database, or a newer apphost's), or a damaged
    /// database, is refused and left as it is. An empty file (a host stopped while making it) is
    /// made anew, and a log SQLite's recovery drops committed transactions from is copied
    /// aside first; `notices` says so.
    public init(path: String, now: Date = Date()) throws(StoreError) {
        var configuration = Configuration()
        // A connection closing (its last checkpoint), or an operator's sqlite3 reading, holds a
        // lock for a moment: wait for it rather than fail.
        configuration.busyMode = .timeout(5)
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
        }
        let files = SessionDatabaseFiles(path: path)
        var notices: [StoreNotice] = []
        do {
            let found = try files.examine()
            switch found {
            case .absent:
                // SQLite makes its files with the database's mode (0644 less the umask when it
                // makes the database itself): a new database is made here, 0600.
                try Self.createPrivately(path)
            case .empty:
                notices.append(
                    StoreNotice(
                        "\(path) was empty (0 bytes), as a host that stopped while making it leaves it: made it anew",
                        lostSaves: false))
            case .database(let pageSize):
                if let notice = try files.keepDamagedLog(pageSize: pageSize, now: now) { notices.append(notice) }
            }
            database = try DatabaseQueue(path: path, configuration: configuration)
            // Nothing is written before the database is known to be a sound one of apphost's.
            let migrations = Self.migrator.migrations
            let contents = try SessionDatabaseFiles.contents(of: database, migrations: migrations)
            // A database whose log was dropped may hold nothing: the log's notice says why.
            if case .database = found, contents == .nothing, notices.isEmpty {
                notices.append(
                    StoreNotice(
                        "\(path) held no table, as a host that stopped while making it leaves it: made them anew",
                        lostSaves: false))
            }
            // A database an older host made, and the files SQLite made beside it.
            try Self.makePrivate([path, files.logPath, files.sharedMemoryPath])
            // Readers never wait for a save, and a save is one append to the log.
            try database.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA journal_mode = WAL") }
            try Self.migrator.migrate(database)
        } catch {
            throw StoreError("\(path): \(Self.describe(error))")
        }
        self.notices = notices
    }

    /// Makes an empty file at `path`, 0600 whatever the umask, unless something is there.
    private static func createPrivately(_ path: String) throws(StoreError) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if descriptor >= 0 {
            close(descriptor)
        } else if errno != EEXIST {
            throw StoreError("cannot create it: \(String(cString: strerror(errno)))")
        }
    }

    /// Takes away every permission but the owner's read and write from those of `paths` that exist.
    private static func makePrivate(_ paths: [String]) throws(StoreError) {
        for path in paths where chmod(path, 0o600) != 0 && errno != ENOENT {
            throw StoreError("cannot make \(path) private (0600): \(String(cString: strerror(errno)))")
        }
    }

    private static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("sessions") { db in
            try db.create(table: "session") { table in
                table.primaryKey("id", .text)
                table.column("guest", .text).notNull().indexed()
                table.column("role", .integer).notNull()
                table.column("state", .blob)
                table.column("created", .integer).notNull()
            }
        }
        // S7: a closed session stays, without its state, until its guest has been told.
        migrator.registerMigration("discarded sessions") { db in
            try db.alter(table: "session") { table in
                table.add(column: "discarded", .boolean).notNull().defaults(to: false)
            }
        }
        return migrator
    }

    public func sessions(
        of guest: String, completion: @escaping @Sendable (Result<[StoredSession], StoreError>) -> Void
    ) {
        queued(completion) { database in
            try database.read { db in
                try Row.fetchAll(
                    db,
                    sql:
                        "SELECT id, role, state FROM session WHERE guest = ? AND NOT discarded ORDER BY created, rowid",
                    arguments: [guest]
                ).map { row in
                    StoredSession(
                        sessionID: row["id"], role: SceneRole(rawValue: row["role"]) ?? .primary, state: row["state"])
                }
            }
        }
    }

    public func create(_ session: StoredSession, of guest: String) throws(StoreError) {
        do {
            try database.write { db in
                try db.execute(
                    sql: "INSERT INTO session (id, guest, role, state, created) VALUES (?, ?, ?, ?, ?)",
                    arguments: [
                        session.sessionID, guest, session.role.rawValue, session.state,
                        Int64(Date().timeIntervalSince1970 * 1000),
                    ])
            }
        } catch {
            throw StoreError(Self.describe(error))
        }
    }

    /// A save of a discarded session (S7) is dropped and reported as a success: it was asked for
    /// before the close reached the store, and nothing is lost by dropping it. Once the session
    /// is forgotten it is unknown, and a save fails with "no session", as for any unknown id.
    public func save(
        _ state: Data, session: String, completion: @escaping @Sendable (Result<Void, StoreError>) -> Void
    ) {
        queued(completion) { database in
            try database.write { db in
                // A save that was on its way when the session was closed is dropped (S7).
                try db.execute(
                    sql: "UPDATE session SET state = ? WHERE id = ? AND NOT discarded", arguments: [state, session])
                if db.changesCount == 0,
                    try Bool.fetchOne(db, sql: "SELECT discarded FROM session WHERE id = ?", arguments: [session])
                        == nil
                {
                    throw StoreError("no session \(session)")
                }
            }
        }
    }

    public func flush(completion: @escaping @Sendable () -> Void) {
        requests.async(execute: completion)
    }

    /// Marks the session discarded and deletes its state in one transaction, in the order asked,
    /// so after every save asked for before it. Discarding it again succeeds; an unknown id fails
    /// with "no session".
    public func discard(session: String, completion: @escaping @Sendable (Result<Void, StoreError>) -> Void) {
        queued(completion) { database in
            try database.write { db in
                try db.execute(sql: "UPDATE session SET state = NULL, discarded = 1 WHERE id = ?", arguments: [session])
                if db.changesCount == 0 { throw StoreError("no session \(session)") }
            }
        }
    }

    public func discardedSessions(
        of guest: String, completion: @escaping @Sendable (Result<[String], StoreError>) -> Void
    ) {
        queued(completion) { database in
            try database.read { db in
                try String.fetchAll(
                    db, sql: "SELECT id FROM session WHERE guest = ? AND discarded ORDER BY created, rowid",
                    arguments: [guest])
            }
        }
    }

    /// Deletes the row of a discarded session, in the order asked, so after its discard; a
    /// session that is not discarded stays.
    public func forget(session: String, completion: @escaping @Sendable (Result<Void, StoreError>) -> Void) {
        queued(completion) { database in
            try database.write { db in
                try db.execute(sql: "DELETE FROM session WHERE id = ? AND discarded", arguments: [session])
            }
        }
    }

    /// Runs `work` on the database after every request asked before it, and completes with its
    /// result, or with its error in the words an operator reads ("disk full").
    private func queued<Value>(
        _ completion: @escaping @Sendable (Result<Value, StoreError>) -> Void,
        _ work: @escaping @Sendable (DatabaseQueue) throws -> Value
    ) {
        requests.async { [database] in
            do {
                completion(.success(try work(database)))
            } catch {
                completion(.failure(StoreError(Self.describe(error))))
            }
        }
    }

    private static func describe(_ error: any Error) -> String {
        if let error = error as? StoreError { return error.description }
        if let error = error as? DatabaseError {
            // SQLite says "database or disk is full"; what an operator must hear is the disk.
            if error.resultCode == .SQLITE_FULL { return "disk full" }
            return error.message ?? "\(error.resultCode)"
        }
        return "\(error)"
    }
}
