import Glibc
import Synchronization

/// The host holds four descriptors for each isolated guest (its socket, its pidfd, the pipes of
/// its stdout and stderr), so that the usual soft limit of 1024 would stop a host at some 250
/// guests. A host raises its soft RLIMIT_NOFILE to the hard limit when it starts, as
/// systemd advises programs that need many descriptors, and gives each worker back the soft
/// limit it started with before the guest's code loads: guests see the limit any process of
/// this user gets (a guest that uses select() needs descriptors below 1024).
public enum HostDescriptorLimit {
    /// The soft limit before `raise()`; nil until then, or when nothing was changed.
    private static let started = Mutex<rlim_t?>(nil)

    /// Raises this process's soft limit to its hard limit, once; best effort.
    public static func raise() {
        started.withLock { started in
            var limit = rlimit()
            guard started == nil, getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0,
                limit.rlim_cur < limit.rlim_max
            else { return }
            let before = limit.rlim_cur
            // Under an unlimited hard limit the soft one may not exceed fs.nr_open (2^20 by default).
            limit.rlim_cur = limit.rlim_max == rlim_t.max ? max(before, 1 << 20) : limit.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 { started = before }
        }
    }

    /// Descriptors the host holds for each isolated guest.
    public static let perGuest = 4

    /// Descriptors a launch leaves to the host and the guests already there: freezes and thaws
    /// open a worker's cgroup files for a moment, the control socket and HTTP clients take
    /// theirs (up to 256), the store its files. A launch that would go deeper is refused, so
    /// that reaching the limit costs the next guest and nothing of the others. An eighth of a
    /// small limit.
    public static func reserve(of limit: Int) -> Int { min(512, limit / 8) }

    /// Whether a new worker whose socket is descriptor `descriptor` leaves the reserve. The
    /// kernel hands out the lowest free number, so a number this high means a table this full.
    public static func leavesReserve(_ descriptor: Int32) -> Bool {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max else { return true }
        return Int(descriptor) + perGuest < Int(limit.rlim_cur) - reserve(of: Int(limit.rlim_cur))
    }

    /// What to say when `operation` failed with EMFILE, or would have left less than the reserve:
    /// which limit stopped it, and how many isolated guests it allows.
    public static func exhausted(_ operation: String) -> String {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        guard limit.rlim_cur != rlim_t.max else { return "\(operation): the host's open-files limit is reached" }
        let kept = reserve(of: Int(limit.rlim_cur))
        return "\(operation): the host's open-files limit (\(limit.rlim_cur)) is reached: at \(perGuest) descriptors "
            + "for each isolated guest, with \(kept) kept for the host, it holds about "
            + "\((Int(limit.rlim_cur) - kept) / perGuest) guests; raise it (ulimit -n, or LimitNOFILE= in the host's service)"
    }

    /// Sets the soft limit of `pid`, a worker spawned by this process, back to what this process
    /// started with, if `raise()` changed it; the hard limit stays. Best effort: a worker left
    /// with the raised soft limit is no danger, only unlike other processes.
    package static func restore(in pid: pid_t) {
        guard let soft = started.withLock({ $0 }) else { return }
        ResourceLimit.setSoft(.openFiles, to: UInt64(soft), pid: pid)
    }
}
