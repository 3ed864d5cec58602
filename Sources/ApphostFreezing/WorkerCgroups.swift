import ApphostVocabulary
import Glibc
import Logging
import Synchronization

/// The cgroups one host makes for its workers, in one hierarchy (v2, or a v1 one):
/// `<our cgroup>/apphost-<host pid>/worker-<pid>`, a child per worker so that each freezes alone.
/// A worker's child holds whatever its guest started too, wherever those went since (another
/// process group, another session, reparented to init): when the worker ends, so do they
/// (CONTRACT X2), and the child goes once it is empty.
///
/// The parent comes with the first worker and goes with the last, so a host that ends normally
/// (every worker released) leaves nothing behind; `deinit` removes what is left of it. A host
/// that died leaves its parent, whose processes the next host kills before it removes it.
package final class WorkerCgroups: Sendable {
    /// Our own cgroup's directory, where the parent goes.
    package let base: String
    /// `<base>/apphost-<host pid>`.
    package let parent: String
    private let hostPID: pid_t
    private let logger: Logger
    /// Lets a cgroup of this hierarchy run without waiting, where freezing it would keep a killed
    /// process from dying (the v1 freezer); nothing elsewhere.
    private let thaw: @Sendable (_ cgroup: String) -> Void
    /// The workers with a child cgroup. The lock also orders creating and removing the parent.
    private let adopted = Mutex<Set<pid_t>>([])

    /// How long `release` retries a child that is still busy: its last process may take a moment
    /// to leave it after it exited.
    static let releaseRetry = Duration.seconds(1)
    /// How long killing what is left in a cgroup waits for it to be empty: a process that frees
    /// much memory as it dies takes a while.
    static let killTimeout = Duration.seconds(5)

    package init(
        base: String, hostPID: pid_t, logger: Logger, thaw: @escaping @Sendable (_ cgroup: String) -> Void = { _ in }
    ) {
        self.base = base
        self.hostPID = hostPID
        self.logger = logger
        self.thaw = thaw
        parent = "\(base)/apphost-\(hostPID)"
    }

    deinit {
        let children = adopted.withLock { $0 }.map(directory(of:))
        _ = killAll(in: children, timeout: Self.killTimeout)
        for child in children where !KernelFile.removeDirectory(child) {
            logger.warning("cannot remove a worker's cgroup", metadata: ["cgroup": "\(child)"])
        }
        removeParent()
    }

    package func directory(of pid: pid_t) -> String { "\(parent)/\(Self.childName(of: pid))" }

    /// The child of `pid` if it was adopted and not yet released, else nil.
    package func adoptedDirectory(of pid: pid_t) -> String? {
        adopted.withLock { $0.contains(pid) } ? directory(of: pid) : nil
    }

    /// The name of a worker's own cgroup, the same in every hierarchy.
    package static func childName(of pid: pid_t) -> String { "worker-\(pid)" }

    /// Tries the hierarchy out on an empty child, `probe`, which `check` exercises; removes both
    /// it and the parent (unless a worker of this host is already in it) afterwards.
    package func probe(_ check: (String) throws(FreezeError) -> Void) throws(FreezeError) {
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
    package func adopt(pid: pid_t, prepare: (_ child: String) throws(FreezeError) -> Void = { _ in })
        throws(FreezeError)
    {
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

    /// Kills what is left in the child of a worker that exited (the processes its guest
    /// started), then removes the child once it is empty (retrying while it is busy) and, with the
    /// last child, the parent. A cgroup that cannot go is logged and left; it never fails the
    /// caller.
    package func release(pid: pid_t) {
        guard adopted.withLock({ $0.contains(pid) }) else { return }
        let child = directory(of: pid)
        if !killAll(in: [child], timeout: Self.killTimeout).isEmpty {
            logger.warning(
                "processes of a worker's cgroup are still there \(Self.killTimeout.secondsText) after SIGKILL",
                metadata: ["cgroup": "\(child)"])
        }
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

    /// Removes the parents that hosts which are no longer running left in `base`, with the
    /// children in them, after killing what runs in them: a dead host's workers die with it
    /// (PR_SET_PDEATHSIG), but not what their guests started, nor a worker it left frozen in
    /// the v1 freezer (thawed here so that it dies). Our own pid's parent is left alone: it may
    /// belong to another freezer of this process. Returns the parents removed.
    @discardableResult
    package func removeStaleParents() -> [String] {
        let parents = KernelFile.entries(base).filter { name in
            guard name.hasPrefix("apphost-"), let owner = pid_t(name.dropFirst("apphost-".count)), owner > 0,
                owner != hostPID
            else { return false }
            return kill(owner, 0) != 0 && errno == ESRCH
        }.map { "\(base)/\($0)" }
        let children = parents.flatMap { parent in
            KernelFile.entries(parent).map { "\(parent)/\($0)" }.filter(Self.isDirectory)
        }
        for child in killAll(in: children, timeout: Self.killTimeout) {
            logger.warning(
                "processes of a dead host's worker cgroup are still there after SIGKILL",
                metadata: ["cgroup": "\(child)"])
        }
        // A killed process leaves cgroup.procs a moment before it leaves the cgroup, and rmdir
        // says EBUSY meanwhile: try again for a while (seen as a stale parent left behind).
        var left = children
        _ = try? Polling.until(timeout: Self.killTimeout) { () throws(FreezeError) in
            left = left.filter { !KernelFile.removeDirectory($0) && KernelFile.exists($0) }
            return left.isEmpty
        }
        return parents.filter { parent in
            guard KernelFile.removeDirectory(parent) else {
                logger.info("leaving a stale worker cgroup that is not empty", metadata: ["cgroup": "\(parent)"])
                return false
            }
            return true
        }
    }

    /// Kills every process in `cgroups` and waits, up to `timeout`, until none is left; returns
    /// those that still hold one. cgroup v2 (Linux 5.14) kills a whole cgroup with one write to
    /// cgroup.kill, processes forked meanwhile included; elsewhere each process that
    /// cgroup.procs lists gets SIGKILL, again and again until the list stays empty. Each round
    /// thaws the cgroup, as the v1 freezer holds even a killed process until then.
    func killAll(in cgroups: [String], timeout: Duration) -> [String] {
        var occupied = cgroups.filter { !Self.processes(in: $0).isEmpty }
        guard !occupied.isEmpty else { return [] }
        _ = try? Polling.until(timeout: timeout) { () throws(FreezeError) in
            for cgroup in occupied {
                if KernelFile.exists("\(cgroup)/cgroup.kill") {
                    try? KernelFile.write("1", to: "\(cgroup)/cgroup.kill")
                } else {
                    for pid in Self.processes(in: cgroup) { _ = Glibc.kill(pid, SIGKILL) }
                }
                thaw(cgroup)
            }
            occupied = occupied.filter { !Self.processes(in: $0).isEmpty }
            return occupied.isEmpty
        }
        return occupied
    }

    /// The processes cgroup.procs lists; none when it cannot be read (the cgroup is gone).
    private static func processes(in cgroup: String) -> [pid_t] {
        ((try? KernelFile.read("\(cgroup)/cgroup.procs")) ?? "").split(separator: "\n").compactMap { pid_t($0) }
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
