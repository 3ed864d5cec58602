import ApphostFreezing
import ApphostWire
import Glibc
import Logging
import Synchronization

/// The users workers run as (CONTRACT X2). A host that runs as root gives each guest a uid and
/// gid of its own, as Android gives each app one: allocated from a range when the guest first
/// launches from its library in a data directory, recorded in the machine's registry of worker
/// users (`WorkerUserRegistry`, which every host on the machine consults, whatever its data
/// directory), the same at every launch after, and freed only once the guest's data directory
/// is gone. No other guest, of this host or another, can be given it meanwhile, so whatever a
/// killed host left owned by it stays out of every other guest's reach. The policy is
/// `WorkerUserTable`'s; this class applies it to the registry's files and to the guests' data
/// directories. `apphost inspect` gives its worker a throwaway user, freed once the worker and
/// all it started are gone.
///
/// The worker takes its user when LOAD arrives, once the host has set its limits and before any
/// of the guest's code runs, and keeps no privilege. Sending a signal, tracing a process or
/// reading its memory takes the same user (or a capability the worker no longer has), so a
/// guest reaches the processes it started itself, and neither its host nor another guest:
/// `kill(getppid(), ...)` and `kill(-1, ...)` do nothing to them.
///
/// The range, `base + 1` to `base + 2^22`, lies by default in the one systemd's UID table leaves
/// unused, 1879048192 to 2147483647: above the container ranges, below the ids some programs
/// read as negative. The base is also the group every worker has besides its own, which only
/// lets it search the data directory down to its own directory.
///
/// What workers need of the file system then: their library must be readable by any user, as an
/// installed library is, and their data directory is theirs while they run (`handOver`, then
/// `takeBack`: at rest it is the host's, 0700, its files the guest's user's). Files a guest leaves
/// elsewhere (in /tmp) keep its uid, which no other guest gets until the guest's directory is
/// gone.
public final class WorkerUsers: Sendable {
    /// 0x70000000, the start of the range systemd leaves unused.
    public static let defaultBase: UInt32 = 0x7000_0000
    static let pidLimit: UInt32 = WorkerUserTable.rangeSize

    public let base: UInt32
    private let hostUser: uid_t
    private let hostGroup: gid_t
    private let logger: Logger
    private let registry: WorkerUserRegistry
    /// The table of each guests directory made ready for workers so far, by its path; that of
    /// throwaway users under "".
    private let tables = Mutex<[String: WorkerUserTable]>([:])

    /// How deep `handOver` goes into a guest's directory; deeper files stay as they are.
    static let maximumDepth = 128

    /// Why a data directory could not be handed over: one line.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    /// The registry's directory: `APPHOST_UID_REGISTRY`, else /var/lib/apphost-uids.
    public static var configuredRegistry: String { WorkerUserRegistry.configuredDirectory() }

    /// `registry`: the directory of the machine's registry of worker users (by default the one
    /// `APPHOST_UID_REGISTRY` names, else /var/lib/apphost-uids).
    public init(
        base: UInt32 = defaultBase, registry: String = WorkerUsers.configuredRegistry,
        logger: Logger = Logger(label: "apphost.users")
    ) {
        self.base = base
        self.logger = logger
        self.registry = WorkerUserRegistry(directory: registry)
        hostUser = geteuid()
        hostGroup = getegid()
    }

    /// Users of their own for this host's workers when it can give them (it runs as root, with
    /// the capabilities that takes, the range is mapped in its user namespace, and the registry
    /// can be used), else nil. `report` says which; a host calls it once its first worker has started.
    public static func forThisHost(base: UInt32 = defaultBase, logger: Logger) -> WorkerUsers? {
        unavailability(base: base) == nil ? WorkerUsers(base: base, logger: logger) : nil
    }

    /// Logs what `forThisHost` chose: at info, the users workers get; else a warning that guests
    /// run as the host's user, and why.
    public static func report(_ users: WorkerUsers?, base: UInt32 = defaultBase, logger: Logger) {
        if let users {
            logger.info(
                "workers run as users of their own",
                metadata: [
                    "uids": "\(users.base + 1) to \(users.base + pidLimit), one per guest", "group": "\(users.base)",
                    "registry": "\(users.registry.directory)",
                ])
        } else {
            let reason = unavailability(base: base) ?? "users of their own were not asked for"
            logger.warning(
                "guests run as the host's user and can signal the host and each other: \(reason)",
                metadata: ["uid": "\(geteuid())"])
        }
    }

    /// Why a host that could give its workers users of their own (root, with the capabilities,
    /// the range mapped) cannot record them in the registry; nil otherwise. Such a host must not
    /// start: its guests would run as root, which is a mistake in its setup, not a limit of the
    /// machine.
    public static func registryProblem(base: UInt32 = defaultBase) -> String? {
        guard unavailability(base: base, checkingRegistry: false) == nil else { return nil }
        return unavailability(base: base)
    }

    /// Why this process cannot give workers users of their own, or nil when it can.
    static func unavailability(base: UInt32, checkingRegistry: Bool = true) -> String? {
        guard geteuid() == 0 else { return "the host does not run as root" }
        let needed: [(bit: Int, name: String)] = [
            (0, "CAP_CHOWN"), (5, "CAP_KILL"), (6, "CAP_SETGID"), (7, "CAP_SETUID"), (19, "CAP_SYS_PTRACE"),
        ]
        let status = (try? KernelFile.read("/proc/self/status")) ?? ""
        guard
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("CapEff:") }),
            let effective = UInt64(line.dropFirst("CapEff:".count).trimmingWhitespace, radix: 16)
        else { return "/proc/self/status gives no CapEff" }
        let missing = needed.filter { effective & (1 << UInt64($0.bit)) == 0 }.map(\.name)
        guard missing.isEmpty else { return "the host lacks \(missing.joined(separator: ", "))" }
        guard UInt64(base) + UInt64(pidLimit) < UInt64(UInt32.max) else { return "the uid base \(base) is too high" }
        for map in ["uid_map", "gid_map"] where !maps(base, in: (try? KernelFile.read("/proc/self/\(map)")) ?? "") {
            return "uids \(base) to \(base + pidLimit) are not all mapped in this user namespace (/proc/self/\(map))"
        }
        guard checkingRegistry else { return nil }
        do throws(WorkerUserRegistry.Failure) {
            try WorkerUserRegistry(directory: WorkerUserRegistry.configuredDirectory()).open()
        } catch {
            return error.description
        }
        return nil
    }

    /// Whether one line of a uid_map or gid_map (`inside outside count`) holds base...base+pidLimit.
    private static func maps(_ base: UInt32, in map: String) -> Bool {
        map.split(separator: "\n").contains { line in
            let fields = line.split(whereSeparator: \.isWhitespace).compactMap { UInt64($0) }
            guard fields.count == 3 else { return false }
            return fields[0] <= UInt64(base) && UInt64(base) + UInt64(pidLimit) < fields[0] + fields[2]
        }
    }

    // MARK: Allocation

    /// Allocates, records and returns the user for a worker about to load `library` (canonical)
    /// for a guest of `guestsDirectory`: the one recorded for that library there when no running
    /// worker has it, else a new one. Nil `guestsDirectory`: a throwaway user, freed by `release`.
    public func acquire(library: String, guestsDirectory: String?) throws(Failure) -> WorkerUser {
        let guests = guestsDirectory.map(Self.canonical) ?? ""
        do throws(WorkerUserRegistry.Failure) {
            return try tables.withLock { tables throws(WorkerUserRegistry.Failure) in
                var table = try self.table(guests, in: &tables)
                defer { tables[guests] = table }
                if let uid = table.choose(library: library) { return WorkerUser(uid: uid, group: base, guests: guests) }
                var record = table.newRecord(library: library, holder: getpid())
                for candidate in WorkerUserTable.candidates(base: base, from: UInt32.random(in: 0...UInt32.max)) {
                    record.uid = candidate
                    if try registry.create(record) {
                        table.allocated(record)
                        return WorkerUser(uid: candidate, group: base, guests: guests)
                    }
                }
                throw WorkerUserRegistry.Failure(
                    description:
                        "every uid from \(base + 1) to \(base + Self.pidLimit) is taken (\(registry.directory))")
            }
        } catch {
            throw Failure(description: error.description)
        }
    }

    /// Binds `user` to the guest its worker loaded, then gives it the guest's data directory
    /// (`handOver`). What its user had before, another guest's directory, goes back to the host
    /// whole; the guest's other users (it ran from another library) are freed once its
    /// directory is this one's.
    func adopt(_ user: WorkerUser, guest: String, dataDirectory: String) throws(Failure) {
        guard !user.guests.isEmpty else { return try handOver(dataDirectory, to: user.uid) }
        let binding = tables.withLock { $0[user.guests]?.bind(user.uid, to: guest) }
        if let record = binding?.write {
            do throws(WorkerUserRegistry.Failure) {
                try registry.update(record)
            } catch {
                throw Failure(description: error.description)
            }
        }
        for displaced in binding?.displaced ?? [] {
            giveBackWhole("\(user.guests)/\(displaced)")
        }
        try handOver(dataDirectory, to: user.uid)
        for uid in binding?.superseded ?? [] {
            registry.remove(uid)
            tables.withLock { _ = $0[user.guests]?.removed(uid) }
        }
    }

    /// The worker that had `user` is gone, with all it started (its cgroup killed, where it has
    /// one). A user bound to no guest is freed, unless a process still runs as it (one that
    /// escaped a worker with no cgroup): then the next host's start frees it.
    public func release(_ user: WorkerUser) {
        tables.withLock { tables in
            guard var table = tables[user.guests] else { return }
            defer { tables[user.guests] = table }
            guard table.release(user.uid), !ProcessUsers.all().contains(user.uid) else { return }
            registry.remove(user.uid)
            table.removed(user.uid)
        }
    }

    /// The table of `guests`, read from the registry the first time.
    private func table(_ guests: String, in tables: inout [String: WorkerUserTable]) throws(WorkerUserRegistry.Failure)
        -> WorkerUserTable
    {
        if let table = tables[guests] { return table }
        try registry.open()
        let table = WorkerUserTable(base: base, guests: guests, records: registry.records())
        tables[guests] = table
        return table
    }

    private static func canonical(_ path: String) -> String {
        guard let resolved = realpath(path, nil) else { return path }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    // MARK: Data directories

    /// Makes `guestsDirectory` ready for workers, once per host, when it starts (and at the
    /// latest before its first worker loads): it, and the data directory that holds it, get the
    /// workers' group with search permission and nothing else for the group (other users get
    /// nothing they did not have). Reads its users from the registry and frees those whose guest's
    /// directory is gone (and throwaway ones whose holder is gone), unless a process still runs
    /// as one. Then fixes what a killed host left: every guest directory is the host's again,
    /// private, and everything in it its guest's recorded user's, or the host's when the guest
    /// has none (nothing stays a stale user's, such as the pid-derived uids hosts gave before
    /// users were recorded). Warns when a directory above the data directory is not searchable
    /// by other users, so that guests cannot reach their directories (as under root's home, mode
    /// 0700). Never fails; what cannot be done is logged.
    public func prepare(guestsDirectory: String) {
        let guests = Self.canonical(guestsDirectory)
        tables.withLock { tables in
            guard tables[guests] == nil else { return }
            let dataDirectory = Self.parent(of: guests)
            for directory in [guests, dataDirectory] where directory != "/" {
                if let error = openForSearch(directory) {
                    logger.warning("guests may not reach their data directories", metadata: ["error": "\(error)"])
                }
            }
            let existing = KernelFile.entries(guests).filter { name in
                var info = stat()
                return lstat("\(guests)/\(name)", &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
            }
            do throws(WorkerUserRegistry.Failure) {
                try registry.open()
            } catch {
                logger.error("cannot read the registry of worker users", metadata: ["error": "\(error)"])
                return
            }
            var records = registry.records()
            let unused = WorkerUserTable.unused(
                records, guests: guests, existingGuests: Set(existing), usersWithProcesses: ProcessUsers.all(),
                holderIsAlive: { kill($0, 0) == 0 || errno == EPERM })
            for uid in unused { registry.remove(uid) }
            let freed = Set(unused)
            records.removeAll { freed.contains($0.uid) }
            let table = WorkerUserTable(base: base, guests: guests, records: records)
            tables[guests] = table
            for name in existing {
                fixOwnership("\(guests)/\(name)", table: table, guest: name)
            }
            var directory = dataDirectory
            while directory != "/" {
                directory = Self.parent(of: directory)
                var info = stat()
                guard stat(directory, &info) == 0 else { break }
                let searchable =
                    info.st_mode & 0o001 != 0 || (info.st_gid == base && info.st_mode & 0o010 != 0)
                if !searchable {
                    logger.warning(
                        "guests cannot reach their data directories: a directory above the data directory is not searchable by other users; choose a data directory they may reach, such as one under /var/lib",
                        metadata: [
                            "directory": "\(directory)", "mode": "\(String(info.st_mode & 0o7777, radix: 8))",
                        ])
                    break
                }
            }
        }
    }

    /// Lets workers search `guestsDirectory` (a temporary one of inspect's) down to their own.
    func allowSearch(_ guestsDirectory: String) {
        if let error = openForSearch(guestsDirectory) {
            logger.warning("guests may not reach their data directories", metadata: ["error": "\(error)"])
        }
    }

    /// A guest directory as no worker runs: the host's, 0700, what it holds the guest's user's.
    private func fixOwnership(_ directory: String, table: WorkerUserTable, guest: String) {
        let top = open(directory, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard top >= 0 else { return }
        defer { close(top) }
        var info = stat()
        guard fstat(top, &info) == 0 else { return }
        let user = table.user(ofGuest: guest, owner: info.st_uid) ?? hostUser
        let group = user == hostUser ? hostGroup : user
        chownContents(of: top, path: directory, device: info.st_dev, to: user, group: group, depth: 1)
        takeBack(directory)
    }

    /// Gives a guest's directory, and all it holds, back to the host: its user now runs another
    /// guest.
    private func giveBackWhole(_ directory: String) {
        let top = open(directory, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard top >= 0 else { return }
        defer { close(top) }
        var info = stat()
        guard fstat(top, &info) == 0 else { return }
        chownContents(of: top, path: directory, device: info.st_dev, to: hostUser, group: hostGroup, depth: 1)
        takeBack(directory)
    }

    /// Gives `directory` and what it holds to the worker's user, the directory itself last, so
    /// that the worker reaches nothing in it before all of it is its own. Symbolic links are
    /// changed, never followed; what lies on another file system or deeper than `maximumDepth`,
    /// and files with more than one link (an earlier worker may have linked in someone else's
    /// file), are left as they are.
    func handOver(_ directory: String, to user: uid_t) throws(Failure) {
        let top = open(directory, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard top >= 0 else { throw Failure(description: Self.failure(errno, "cannot open", directory)) }
        defer { close(top) }
        var info = stat()
        guard fstat(top, &info) == 0 else { throw Failure(description: Self.failure(errno, "cannot stat", directory)) }
        chownContents(of: top, path: directory, device: info.st_dev, to: user, group: user, depth: 1)
        guard fchown(top, user, user) == 0, fchmod(top, 0o700) == 0 else {
            throw Failure(description: Self.failure(errno, "cannot give the worker's user", directory))
        }
    }

    /// Gives a guest's directory back to the host's user, private (0700), once its worker is
    /// gone: only the directory itself, which is enough for nothing in it to be reached by the
    /// next worker that gets the same uid. Never fails; a failure is logged.
    func takeBack(_ directory: String) {
        let top = open(directory, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard top >= 0, fchown(top, hostUser, hostGroup) == 0, fchmod(top, 0o700) == 0 else {
            logger.warning(
                "cannot take a guest's data directory back from its worker's user",
                metadata: ["directory": "\(directory)", "error": "\(String(cString: strerror(errno)))"])
            if top >= 0 { close(top) }
            return
        }
        close(top)
    }

    private func chownContents(
        of directory: Int32, path: String, device: dev_t, to user: uid_t, group: gid_t, depth: Int
    ) {
        guard depth <= Self.maximumDepth else { return }
        for name in Self.names(in: directory) {
            var info = stat()
            guard fstatat(directory, name, &info, AT_SYMLINK_NOFOLLOW) == 0, info.st_dev == device else { continue }
            let isDirectory = info.st_mode & S_IFMT == S_IFDIR
            if isDirectory {
                let child = openat(directory, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                guard child >= 0 else { continue }
                chownContents(
                    of: child, path: "\(path)/\(name)", device: device, to: user, group: group, depth: depth + 1)
                if info.st_uid != user || info.st_gid != group, fchown(child, user, group) != 0 {
                    logger.warning(
                        "cannot give a file to a worker's user",
                        metadata: ["file": "\(path)/\(name)", "error": "\(String(cString: strerror(errno)))"])
                }
                close(child)
            } else if info.st_nlink <= 1, info.st_uid != user || info.st_gid != group,
                fchownat(directory, name, user, group, AT_SYMLINK_NOFOLLOW) != 0
            {
                logger.warning(
                    "cannot give a file to a worker's user",
                    metadata: ["file": "\(path)/\(name)", "error": "\(String(cString: strerror(errno)))"])
            }
        }
    }

    /// Gives `directory` the workers' group with search permission, the group's only one, when
    /// the host owns it, and takes every permission from other users: what the workers may reach
    /// is for their group to reach, and a data directory an operator made 0755 would otherwise
    /// let any user list the guests (0715). The reason when that fails.
    private func openForSearch(_ directory: String) -> String? {
        let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return Self.failure(errno, "cannot open", directory) }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return Self.failure(errno, "cannot stat", directory) }
        guard info.st_uid == hostUser else { return nil }
        let mode = (info.st_mode & 0o7700) | 0o010
        guard
            info.st_gid == base && info.st_mode & 0o7777 == mode
                || (fchown(descriptor, uid_t.max, base) == 0 && fchmod(descriptor, mode) == 0)
        else { return Self.failure(errno, "cannot let workers search", directory) }
        return nil
    }

    /// The names in an open directory, without "." and "..".
    private static func names(in directory: Int32) -> [String] {
        let copy = dup(directory)
        guard copy >= 0, let stream = fdopendir(copy) else {
            if copy >= 0 { close(copy) }
            return []
        }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    private static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }

    private static func failure(_ code: Int32, _ what: String, _ path: String) -> String {
        "\(what) \(path): \(String(cString: strerror(code)))"
    }
}

/// The user a worker takes: its uid (and gid of the same number), the workers' shared group, and
/// the guests directory whose table it came from ("" for a throwaway user).
public struct WorkerUser: Sendable, Equatable {
    public let uid: uid_t
    public let group: gid_t
    let guests: String

    /// What the worker's environment gets, so that it takes the user at LOAD.
    var environment: String { "\(APPHOST_WORKER_USER_VARIABLE)=\(uid):\(group)" }
}

extension Substring {
    fileprivate var trimmingWhitespace: Substring {
        drop { $0 == " " || $0 == "\t" }.prefix { $0 != " " && $0 != "\t" }
    }
}
