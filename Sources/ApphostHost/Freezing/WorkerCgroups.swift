import Glibc
import Logging
import Synchronization

/// The cgroups one host makes for its workers, in one hierarchy (v2, or v1's freezer):
/// `<our cgroup>/apphost-<host pid>/worker-<pid>`, a child per worker so that each freezes alone.
///
/// The parent comes with the first worker and goes with the last, so a host that ends normally
/// (every worker released) leaves nothing behind; `deinit` removes what is left of it. A host
/// that died leaves its parent, which the next host removes once nothing runs in it.
final class WorkerCgroups: Sendable {
    /// Our own cgroup's directory, where the parent goes.
    let base: String
    /// `<base>/apphost-<host pid>`.
    let parent: String
    private let hostPID: pid_t
    private let logger: Logger
    /// The workers with a child cgroup. The lock also orders creating and removing the parent.
    private let adopted = Mutex<Set<pid_t>>([])

    /// How long `release` retries a child that is still busy: its last process may take a moment
    /// to leave it after it exited.
    static let releaseRetry = Duration.seconds(1)

    init(base: String, hostPID: pid_t, logger: Logger) {
        self.base = base
        self.hostPID = hostPID
        self.logger = logger
        parent = "\(base)/apphost-\(hostPID)"
    }

    deinit {
        for pid in adopted.withLock({ $0 }) where !KernelFile.removeDirectory(directory(of: pid)) {
            logger.warning("cannot remove a worker's cgroup", metadata: ["cgroup": "\(directory(of: pid))"])
        }
        removeParent()
    }

    func directory(of pid: pid_t) -> String { "\(parent)/worker-\(pid)" }

    /// Tries the hierarchy out on an empty child, `probe`, which `check` exercises; removes both
    /// it and the parent (unless a worker of this host is already in it) afterwards.
    func probe(_ check: (String) throws(FreezeError) -> Void) throws(FreezeError) {
        try adopted.withLock { adopted throws(FreezeError) in
            let probe = "\(parent)/probe"
            defer {
                _ = KernelFile.removeDirectory(probe)
                if adopted.isEmpty { _ = KernelFile.removeDirectory(parent) }
            }
            try KernelFile.makeDirectory(parent)
            try KernelFile.makeDirectory(probe)
            try check(probe)
        }
    }

    /// Moves `pid`, every thread of it, into a child cgroup of its own. `prepare` gets the child
    /// first, before the process is in it; when it throws, nothing is adopted.
    func adopt(pid: pid_t, prepare: (_ child: String) throws(FreezeError) -> Void = { _ in }) throws(FreezeError) {
        try adopted.withLock { adopted throws(FreezeError) in
            let child = directory(of: pid)
            do throws(FreezeError) {
                try KernelFile.makeDirectory(parent)
                try KernelFile.makeDirectory(child)
                try prepare(child)
                try KernelFile.write("\(pid)", to: "\(child)/cgroup.procs")
            } catch {
                if !adopted.contains(pid) {
                    _ = KernelFile.removeDirectory(child)
                    if adopted.isEmpty { _ = KernelFile.removeDirectory(parent) }
                }
                throw error
            }
            adopted.insert(pid)
        }
    }

    /// Whether `pid` still runs in its child. A process leaves its cgroup as it exits, but a
    /// zombie whose last threads are still exiting may be listed for a moment: /proc says Z then.
    func holds(_ pid: pid_t, in child: String) throws(FreezeError) -> Bool {
        let listed = try KernelFile.read("\(child)/cgroup.procs").split(separator: "\n").contains { pid_t($0) == pid }
        return listed && ProcessStat.of(pid: pid)?.hasExited == false
    }

    /// Removes the child of a worker that exited (retrying while it is busy) and, with the last
    /// child, the parent. A cgroup that cannot go is logged and left; it never fails the caller.
    func release(pid: pid_t) {
        guard adopted.withLock({ $0.contains(pid) }) else { return }
        let child = directory(of: pid)
        var code: Int32 = 0
        let removed =
            (try? Polling.until(timeout: Self.releaseRetry) { () throws(FreezeError) in
                if KernelFile.removeDirectory(child) { return true }
                code = errno
                // Only a busy cgroup may become removable; anything else will not change.
                guard code == EBUSY else { throw FreezeError(String(cString: strerror(code))) }
                return false
            }) ?? false
        if !removed {
            logger.warning(
                "cannot remove a worker's cgroup",
                metadata: ["cgroup": "\(child)", "error": "\(String(cString: strerror(code)))"])
        }
        adopted.withLock { adopted in
            adopted.remove(pid)
            if adopted.isEmpty { removeParent() }
        }
    }

    /// How long cleaning up waits for the workers of a dead host to exit once thawed.
    static let staleWorkersExit = Duration.seconds(1)

    /// Removes the parents that hosts which are no longer running left in `base`, with the
    /// children in them, when nothing runs in them (rmdir refuses a cgroup that holds a process).
    /// A host killed while a worker was frozen leaves that worker frozen for good: `thaw` lets it
    /// run, find the host's end of its socket closed and exit, so that its cgroup can go too.
    /// Our own pid's parent is left alone: it may belong to another freezer of this process.
    /// Returns the parents removed.
    @discardableResult
    func removeStaleParents(thawing thaw: (_ cgroup: String) -> Void) -> [String] {
        let parents = KernelFile.entries(base).filter { name in
            guard name.hasPrefix("apphost-"), let owner = pid_t(name.dropFirst("apphost-".count)), owner > 0,
                owner != hostPID
            else { return false }
            return kill(owner, 0) != 0 && errno == ESRCH
        }.map { "\(base)/\($0)" }
        let children = parents.flatMap { parent in
            KernelFile.entries(parent).map { "\(parent)/\($0)" }.filter(Self.isDirectory)
        }
        let occupied = children.filter { !Self.isEmpty($0) }
        if !occupied.isEmpty {
            for child in occupied { thaw(child) }
            _ = try? Polling.until(timeout: Self.staleWorkersExit) { occupied.allSatisfy(Self.isEmpty) }
        }
        for child in children { _ = KernelFile.removeDirectory(child) }
        return parents.filter { parent in
            guard KernelFile.removeDirectory(parent) else {
                logger.info("leaving a stale worker cgroup that is not empty", metadata: ["cgroup": "\(parent)"])
                return false
            }
            return true
        }
    }

    /// No process in it (an unreadable one counts as empty: rmdir decides in the end).
    private static func isEmpty(_ cgroup: String) -> Bool {
        (try? KernelFile.read("\(cgroup)/cgroup.procs"))?.contains(where: \.isNumber) != true
    }

    private func removeParent() {
        if !KernelFile.removeDirectory(parent) {
            logger.debug(
                "cannot remove the workers' parent cgroup",
                metadata: ["cgroup": "\(parent)", "error": "\(String(cString: strerror(errno)))"])
        }
    }

    private static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
    }
}
