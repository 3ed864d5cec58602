import ApphostFreezing
import ApphostWire
import Glibc
import Logging
import Synchronization

/// The users workers run as (CONTRACT X2). A host that runs as root gives each worker a uid and
/// gid of its own, `base + the worker's pid`, as systemd's DynamicUser does for services; the
/// worker takes it when LOAD arrives, once the host has set its limits and before any of the
/// guest's code runs, and keeps no privilege. Sending a signal, tracing a process or reading its
/// memory takes the same user (or a capability the worker no longer has), so a guest reaches the
/// processes it started itself, and neither its host nor another guest: `kill(getppid(), ...)`
/// and `kill(-1, ...)` do nothing to them.
///
/// Pids are unique among running processes, so these uids are too, across hosts and without a
/// registry; a uid comes back with its pid, once the worker and all it started are gone (its
/// cgroup and process group are killed with it). The range, `base` to `base + 2^22` (the most
/// pids Linux hands out), lies by default in the one systemd's UID table leaves unused,
/// 1879048192 to 2147483647: above the container ranges, below the ids some programs read as
/// negative. The base is also the group every worker has besides its own, which only lets it
/// search the data directory down to its own directory.
///
/// What workers need of the file system then: their library must be readable by any user, as an
/// installed library is, and their data directory is theirs while they run (`handOver`, then
/// `takeBack`). Files a guest leaves elsewhere (in /tmp) keep its uid, which a later worker with
/// the same pid gets.
public final class WorkerUsers: Sendable {
    /// 0x70000000, the start of the range systemd leaves unused.
    public static let defaultBase: UInt32 = 0x7000_0000
    /// PID_MAX_LIMIT: no pid is larger, whatever /proc/sys/kernel/pid_max says.
    static let pidLimit: UInt32 = 1 << 22

    public let base: UInt32
    private let hostUser: uid_t
    private let hostGroup: gid_t
    private let logger: Logger
    /// The guests directories made ready for workers so far.
    private let prepared = Mutex<Set<String>>([])

    /// How deep `handOver` goes into a guest's directory; deeper files stay as they are.
    static let maximumDepth = 128

    /// Why a data directory could not be handed over: one line.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    public init(base: UInt32 = defaultBase, logger: Logger = Logger(label: "apphost.users")) {
        self.base = base
        self.logger = logger
        hostUser = geteuid()
        hostGroup = getegid()
    }

    /// Users of their own for this host's workers when it can give them (it runs as root, with
    /// the capabilities that takes, and the range is mapped in its user namespace), else nil.
    /// `report` says which; a host calls it once its first worker has started.
    public static func forThisHost(base: UInt32 = defaultBase, logger: Logger) -> WorkerUsers? {
        unavailability(base: base) == nil ? WorkerUsers(base: base, logger: logger) : nil
    }

    /// Logs what `forThisHost` chose: at info, the users workers get; else a warning that guests
    /// run as the host's user, and why.
    public static func report(_ users: WorkerUsers?, base: UInt32 = defaultBase, logger: Logger) {
        if let users {
            logger.info(
                "workers run as users of their own",
                metadata: ["uids": "\(users.base) + worker pid", "group": "\(users.base)"])
        } else {
            let reason = unavailability(base: base) ?? "users of their own were not asked for"
            logger.warning(
                "guests run as the host's user and can signal the host and each other: \(reason)",
                metadata: ["uid": "\(geteuid())"])
        }
    }

    /// Why this process cannot give workers users of their own, or nil when it can.
    static func unavailability(base: UInt32) -> String? {
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

    /// The uid, and gid, of the worker with process id `pid`.
    public func user(ofWorker pid: pid_t) -> uid_t { base + uid_t(pid) }

    /// What the worker's environment gets, so that it takes its user at LOAD.
    var environment: String { "\(APPHOST_WORKER_UID_BASE_VARIABLE)=\(base)" }

    // MARK: Data directories

    /// Lets workers reach their directories in `guestsDirectory`: it, and the data directory that
    /// holds it, get the workers' group with search permission and nothing else for the group
    /// (other users get nothing they did not have). The first time, it also takes back the guest
    /// directories that workers of a host that was killed left theirs, and warns when a directory
    /// above the data directory is not searchable by other users, so that guests cannot reach
    /// their directories (as under root's home, mode 0700). Never fails; what cannot be done is
    /// logged.
    func prepare(guestsDirectory: String) {
        prepared.withLock { prepared in
            guard prepared.insert(guestsDirectory).inserted else { return }
            let dataDirectory = Self.parent(of: guestsDirectory)
            for directory in [guestsDirectory, dataDirectory] where directory != "/" {
                if let error = openForSearch(directory) {
                    logger.warning("guests may not reach their data directories", metadata: ["error": "\(error)"])
                }
            }
            for name in KernelFile.entries(guestsDirectory) {
                var info = stat()
                let path = "\(guestsDirectory)/\(name)"
                guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR, info.st_uid != hostUser,
                    info.st_uid >= base, info.st_uid - base <= Self.pidLimit
                else { continue }
                takeBack(path)
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

    /// Gives `directory` and what it holds to the worker's user, the directory itself last, so
    /// that the worker reaches nothing in it before all of it is its own. Symbolic links are
    /// changed, never followed; what lies on another file system or deeper than `maximumDepth`,
    /// and files with more than one link (an earlier worker may have linked in someone else's
    /// file), are left as they are.
    func handOver(_ directory: String, toWorker pid: pid_t) throws(Failure) {
        let user = user(ofWorker: pid)
        let top = open(directory, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard top >= 0 else { throw Failure(description: Self.failure(errno, "cannot open", directory)) }
        defer { close(top) }
        var info = stat()
        guard fstat(top, &info) == 0 else { throw Failure(description: Self.failure(errno, "cannot stat", directory)) }
        chownContents(of: top, path: directory, device: info.st_dev, to: user, depth: 1)
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

    private func chownContents(of directory: Int32, path: String, device: dev_t, to user: uid_t, depth: Int) {
        guard depth <= Self.maximumDepth else { return }
        for name in Self.names(in: directory) {
            var info = stat()
            guard fstatat(directory, name, &info, AT_SYMLINK_NOFOLLOW) == 0, info.st_dev == device else { continue }
            let isDirectory = info.st_mode & S_IFMT == S_IFDIR
            if isDirectory {
                let child = openat(directory, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                guard child >= 0 else { continue }
                chownContents(of: child, path: "\(path)/\(name)", device: device, to: user, depth: depth + 1)
                if info.st_uid != user || info.st_gid != user, fchown(child, user, user) != 0 {
                    logger.warning(
                        "cannot give a file to a worker's user",
                        metadata: ["file": "\(path)/\(name)", "error": "\(String(cString: strerror(errno)))"])
                }
                close(child)
            } else if info.st_nlink <= 1, info.st_uid != user || info.st_gid != user,
                fchownat(directory, name, user, user, AT_SYMLINK_NOFOLLOW) != 0
            {
                logger.warning(
                    "cannot give a file to a worker's user",
                    metadata: ["file": "\(path)/\(name)", "error": "\(String(cString: strerror(errno)))"])
            }
        }
    }

    /// Gives `directory` the workers' group with search permission, the group's only one, when
    /// the host owns it; the reason when that fails.
    private func openForSearch(_ directory: String) -> String? {
        let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return Self.failure(errno, "cannot open", directory) }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return Self.failure(errno, "cannot stat", directory) }
        guard info.st_uid == hostUser else { return nil }
        let mode = (info.st_mode & 0o7707) | 0o010
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

extension Substring {
    fileprivate var trimmingWhitespace: Substring {
        drop { $0 == " " || $0 == "\t" }.prefix { $0 != " " && $0 != "\t" }
    }
}
