/// One user given to workers, as the machine's registry of worker users records it (a file per
/// uid, `WorkerUserRegistry`): which guest of which data directory it is for.
public struct WorkerUserRecord: Codable, Equatable, Sendable {
    public var uid: UInt32
    /// The guests directory (`<data directory>/guests`) of the guest; empty for a throwaway user
    /// (`apphost inspect`), which belongs to no data directory.
    public var guests: String
    /// The canonical path of the library whose worker took the user: how a worker that has not
    /// loaded its guest yet, so whose id nobody knows, finds the user of that guest.
    public var library: String
    /// The guest's id, once its worker has loaded it and the host has given it its data
    /// directory; nil for a user whose worker never got that far, a throwaway one.
    public var guest: String?
    /// The process that allocated it: the host, or inspect.
    public var holder: Int32
}

/// Which user each worker of one guests directory takes (CONTRACT X2), as Android gives each app
/// a uid of its own: allocated once, recorded, the same at every launch of the guest from the
/// same library, and freed only once the guest's files are gone. Values in, values out: the
/// registry's files are `WorkerUserRegistry`'s, and `WorkerUsers` applies what this decides.
///
/// A worker takes its user before the guest's code runs, so before anyone knows the guest's id
/// (the library's entry says it): the user is looked up by library path, then bound to the id
/// the worker reports. A user that a running worker has is never given to another.
public struct WorkerUserTable: Sendable {
    /// How many uids the range holds: PID_MAX_LIMIT, as many as the uids the host gave before
    /// they were allocated (base + pid).
    public static let rangeSize: UInt32 = 1 << 22

    /// The workers' shared group; the range is the `rangeSize` uids above it.
    public let base: UInt32
    /// The guests directory the table is for; empty for throwaway users.
    public let guests: String
    /// The records of `guests` by uid.
    public private(set) var records: [UInt32: WorkerUserRecord] = [:]
    /// The users running workers have.
    public private(set) var running: Set<UInt32> = []
    /// The record of each library path that no running worker has, for `choose`.
    private var idle: [String: Set<UInt32>] = [:]
    /// The users bound to each guest: one, but for the moment a guest moves to another
    /// library's user. Each lookup is then constant, however many guests the directory holds.
    private var byGuest: [String: Set<UInt32>] = [:]

    /// The table of `guests` from the registry's records (those of other directories are left out).
    public init(base: UInt32, guests: String, records: [WorkerUserRecord]) {
        self.base = base
        self.guests = guests
        for record in records where record.guests == guests && Self.range(base: base).contains(record.uid) {
            self.records[record.uid] = record
            idle[record.library, default: []].insert(record.uid)
            if let guest = record.guest { byGuest[guest, default: []].insert(record.uid) }
        }
    }

    public static func range(base: UInt32) -> ClosedRange<UInt32> { (base + 1)...(base + rangeSize) }
    public var range: ClosedRange<UInt32> { Self.range(base: base) }

    /// The recorded user for a worker about to load `library`, now running; nil when the library
    /// has none that is free (never launched here, or its user runs another worker): then
    /// allocate a new one (`newRecord`, then `allocated`). Never for throwaway users.
    public mutating func choose(library: String) -> UInt32? {
        guard !guests.isEmpty, let uid = idle[library]?.min() else { return nil }
        idle[library]?.remove(uid)
        running.insert(uid)
        return uid
    }

    /// A record for `library` with no uid yet; the registry gives it one.
    public func newRecord(library: String, holder: Int32) -> WorkerUserRecord {
        WorkerUserRecord(uid: 0, guests: guests, library: library, holder: holder)
    }

    /// Records the user the registry allocated; a running worker has it.
    public mutating func allocated(_ record: WorkerUserRecord) {
        records[record.uid] = record
        running.insert(record.uid)
    }

    /// Every uid of the range once, from `start` (any number: taken into the range) on, wrapping
    /// around: the order in which to try to allocate one. A start chosen at random makes a free
    /// uid a probe or two away while the range is far from full.
    public static func candidates(base: UInt32, from start: UInt32) -> some Sequence<UInt32> {
        let first = start % rangeSize
        return (0..<rangeSize).lazy.map { base + 1 + (first + $0) % rangeSize }
    }

    /// What binding a user to the guest its worker loaded asks of the files.
    public struct Binding: Equatable, Sendable {
        /// The record to write again, when it changed.
        public var write: WorkerUserRecord?
        /// Guests whose user this was, whose directories go back to the host whole: their files
        /// were this user's, and the user now runs another guest.
        public var displaced: [String]
        /// Other users of the same guest (it ran from another library path), to free once its
        /// directory is this user's.
        public var superseded: [UInt32]
    }

    /// Binds the running user `uid` to `guest`, whose data directory it is about to be given.
    public mutating func bind(_ uid: UInt32, to guest: String) -> Binding {
        guard var record = records[uid], !guests.isEmpty else {
            return Binding(write: nil, displaced: [], superseded: [])
        }
        let displaced = record.guest.map { $0 == guest ? [] : [$0] } ?? []
        let changed = record.guest != guest
        if let old = record.guest, changed { byGuest[old]?.remove(uid) }
        record.guest = guest
        records[uid] = record
        byGuest[guest, default: []].insert(uid)
        let superseded = (byGuest[guest] ?? []).filter { $0 != uid && !running.contains($0) }.sorted()
        return Binding(write: changed ? record : nil, displaced: displaced, superseded: superseded)
    }

    /// Forgets a record the registry removed.
    public mutating func removed(_ uid: UInt32) {
        guard let record = records.removeValue(forKey: uid) else { return }
        running.remove(uid)
        idle[record.library]?.remove(uid)
        if let guest = record.guest { byGuest[guest]?.remove(uid) }
    }

    /// The worker that had `uid` is gone, and everything it started with it. True: its record is
    /// to be removed, as no guest was bound to it (a throwaway user, or a load that failed), so
    /// that it owns nothing; else the user waits for the guest's next launch.
    public mutating func release(_ uid: UInt32) -> Bool {
        guard running.remove(uid) != nil, let record = records[uid] else { return false }
        if record.guest == nil { return true }
        idle[record.library, default: []].insert(uid)
        return false
    }

    /// The user whose files a guest's directory should hold, given who owns the directory now:
    /// that owner when it is one of the guest's recorded users, else the guest's lowest one; nil
    /// when the guest has none (the host's then).
    public func user(ofGuest guest: String, owner: UInt32) -> UInt32? {
        let users = byGuest[guest] ?? []
        return users.contains(owner) ? owner : users.min()
    }

    /// The records a host starting on `guests` frees, among all of the registry's: a user bound
    /// to a guest of `guests` whose directory is gone (`existingGuests` lists those there are),
    /// and a user bound to no guest, whose worker is gone, when it is `guests`' (whose last host is
    /// gone: the new one holds the data directory's lock) or its holder is gone. Never one that
    /// a process still runs as (`usersWithProcesses`), which could read the next owner's files.
    public static func unused(
        _ records: [WorkerUserRecord], guests: String, existingGuests: Set<String>,
        usersWithProcesses: Set<UInt32>, holderIsAlive: (Int32) -> Bool
    ) -> [UInt32] {
        records.filter { record in
            guard !usersWithProcesses.contains(record.uid) else { return false }
            if let guest = record.guest {
                return record.guests == guests && !existingGuests.contains(guest)
            }
            return record.guests == guests || !holderIsAlive(record.holder)
        }.map(\.uid).sorted()
    }
}
