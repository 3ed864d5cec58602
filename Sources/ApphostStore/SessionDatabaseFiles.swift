import ApphostVocabulary
import Foundation
import GRDB

/// Something the operator must hear about the sessions database as the host found it, when the
/// host went on with it; one line.
public struct StoreNotice: Sendable, Equatable, CustomStringConvertible {
    public var description: String
    /// Saves the host once acknowledged are gone (a warning when false: nothing was lost).
    public var lostSaves: Bool

    public init(_ description: String, lostSaves: Bool) {
        self.description = description
        self.lostSaves = lostSaves
    }
}

/// The sessions database's file and the log beside it, looked at before SQLite touches them:
/// SQLite takes a 0-byte file for a new database, drops a log it finds beside an empty one, and
/// drops without a word the committed transactions of a log after a damaged frame. The host
/// refuses a file it cannot read rather than overwrite it, and keeps a copy of a damaged log
/// before SQLite's recovery overwrites it.
struct SessionDatabaseFiles {
    let path: String
    var logPath: String { path + "-wal" }
    var sharedMemoryPath: String { path + "-shm" }

    /// What is at `path`.
    enum Found: Equatable {
        /// Nothing: a new database.
        case absent
        /// A 0-byte file: a host stopped before it wrote the database's first page.
        case empty
        /// An SQLite database with pages of `pageSize` bytes.
        case database(pageSize: Int)
    }

    /// Why the host does not open a file it cannot read, and what the operator may do.
    static let keepOut = "the host does not change a file it cannot read: move it away to start with no saved state"

    /// Looks at the files without changing them; throws when the host must not open them.
    func examine() throws(StoreError) -> Found {
        let size = Self.size(of: path)
        let logSize = Self.size(of: logPath) ?? 0
        guard let size, size > 0 else {
            // SQLite would open an empty database and delete the log: refuse to lose it.
            if logSize > 0 {
                throw StoreError(
                    "\(size == nil ? "missing" : "empty (0 bytes)"), but its log \(logPath) holds \(logSize) bytes, "
                        + "which SQLite would delete on opening it (\(Self.keepOut), with its log)")
            }
            return size == nil ? .absent : .empty
        }
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            throw StoreError("not a regular file (\(Self.keepOut))")
        }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw StoreError("cannot read it: \(String(cString: strerror(errno)))")
        }
        let header = [UInt8]((try? handle.read(upToCount: 100)) ?? Data())
        try? handle.close()
        guard header.count == 100, header.starts(with: Array("SQLite format 3\0".utf8)) else {
            throw StoreError("not an SQLite database (\(Self.keepOut), or use another data directory)")
        }
        // The database header's page size: big-endian, 1 for 65536.
        let pageSize = Int(header[16]) << 8 | Int(header[17])
        return .database(pageSize: pageSize == 1 ? 65536 : pageSize)
    }

    /// When the log would lose committed transactions to SQLite's recovery, keeps copies of the
    /// database and its log as found, and says what is lost; nil when nothing is.
    func keepDamagedLog(pageSize: Int, now: Date) throws(StoreError) -> StoreNotice? {
        guard (Self.size(of: logPath) ?? 0) > 0 else { return nil }
        let what: String
        switch try WriteAheadLog.examine(path: logPath, pageSize: pageSize) {
        case .intact:
            return nil
        case .damagedFrame(let frame, let kept, let lost, let lostFrames):
            what =
                "\(logPath) is damaged at frame \(frame): SQLite keeps \(Self.count(kept, "transaction")) before it "
                + "and drops \(Self.count(lost, "committed transaction")) after it (\(Self.count(lostFrames, "frame")))"
        case .damagedHeader(let bytes, let frames, let transactions):
            let dropped = transactions.map { "the \(Self.count($0, "committed transaction")) in it" } ?? "all it holds"
            what =
                "\(logPath) has a damaged header: SQLite ignores the whole log (\(bytes) bytes, "
                + "\(Self.count(frames, "frame"))) and drops \(dropped)"
        }
        let copy = try keepCopies(now: now)
        return StoreNotice(
            "\(what), saves of state or new or closed sessions; the database and its log as found are kept as "
                + "\(copy) and \(copy)-wal", lostSaves: true)
    }

    /// Copies the database and its log to `<path>.damaged-<UTC time>` and the same with `-wal`,
    /// 0600, never over a file; returns the database copy's path.
    private func keepCopies(now: Date) throws(StoreError) -> String {
        var time = time_t(now.timeIntervalSince1970)
        var parts = tm()
        gmtime_r(&time, &parts)
        let stamp = String(
            format: "%04d%02d%02dT%02d%02d%02dZ", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday, parts.tm_hour,
            parts.tm_min, parts.tm_sec)
        for attempt in 1...100 {
            let copy = "\(path).damaged-\(stamp)" + (attempt == 1 ? "" : "-\(attempt)")
            guard Self.size(of: copy) == nil, Self.size(of: copy + "-wal") == nil else { continue }
            try Self.copy(path, to: copy)
            try Self.copy(logPath, to: copy + "-wal")
            return copy
        }
        throw StoreError("cannot keep a copy of the damaged log: too many copies named \(path).damaged-\(stamp)")
    }

    private static func copy(_ source: String, to destination: String) throws(StoreError) {
        guard let bytes = FileManager.default.contents(atPath: source) else {
            throw StoreError("cannot read \(source) to keep a copy of it")
        }
        let descriptor = open(destination, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw StoreError("cannot keep a copy as \(destination): \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        let written = bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let count = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { return false }
                offset += count
            }
            return fsync(descriptor) == 0
        }
        guard written else {
            let cause = String(cString: strerror(errno))
            unlink(destination)
            throw StoreError("cannot keep a copy as \(destination): \(cause)")
        }
    }

    /// What the open database holds, read before anything is written to it.
    enum Contents {
        /// No table: a new database, or one a host stopped making.
        case nothing
        /// The apphost schema, as this host or an older one left it.
        case sessions
    }

    /// Throws when the database is damaged, or its schema is not apphost's or is a newer
    /// apphost's; `migrations` are this host's. Reads only.
    static func contents(of database: DatabaseQueue, migrations: [String]) throws -> Contents {
        let problems: [String]
        do {
            problems = try database.read { db in try String.fetchAll(db, sql: "PRAGMA quick_check(3)") }
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CORRUPT {
            problems = [error.message ?? "\(error.resultCode)"]
        }
        guard problems == ["ok"] else {
            throw StoreError(
                "damaged: \(problems.joined(separator: "; ")) (the host does not write to a damaged database: "
                    + "recover what it can with sqlite3's .recover, or move it away to start with no saved state)")
        }
        return try database.read { db in try schema(of: db, migrations: migrations) }
    }

    private static func schema(of db: Database, migrations: [String]) throws -> Contents {
        let tables = try String.fetchAll(
            db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
        let applied: Set<String> =
            tables.contains("grdb_migrations")
            ? try String.fetchSet(db, sql: "SELECT identifier FROM grdb_migrations") : []
        if applied.isEmpty, tables.allSatisfy({ $0 == "grdb_migrations" }) { return .nothing }
        let foreign = "not an apphost sessions database"
        let advice = "the host does not change a database it does not know: move it away, or use another data directory"
        guard !applied.isEmpty else {
            throw StoreError("\(foreign): it holds the tables \(tables.joined(separator: ", ")) (\(advice))")
        }
        let unknown = applied.subtracting(migrations).sorted()
        guard !unknown.isEmpty else { return .sessions }
        guard !applied.isDisjoint(with: migrations) else {
            throw StoreError(
                "\(foreign): its schema's migrations \(unknown.joined(separator: ", ")) are not apphost's (\(advice))")
        }
        throw StoreError(
            "made by a newer apphost: its schema has migrations this one does not know, "
                + "\(unknown.joined(separator: ", ")) (the host does not change a schema it does not know: run the "
                + "newer apphost, or move the file away to start with no saved state)")
    }

    static func size(of path: String) -> Int? {
        var info = stat()
        return stat(path, &info) == 0 ? Int(info.st_size) : nil
    }

    private static func count(_ number: Int, _ noun: String) -> String {
        number == 1 ? "1 \(noun)" : "\(number) \(noun)s"
    }
}
