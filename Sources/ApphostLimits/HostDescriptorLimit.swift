import Glibc
import Synchronization

/// The host holds about four descriptors for each isolated guest (its socket, its pidfd, its
/// cgroup's freeze and events files), so that the usual soft limit of 1024 would stop a host at
/// some 250 guests. A host raises its soft RLIMIT_NOFILE to the hard limit when it starts, as
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

    /// Sets the soft limit of `pid`, a worker spawned by this process, back to what this process
    /// started with, if `raise()` changed it; the hard limit stays. Best effort: a worker left
    /// with the raised soft limit is no danger, only unlike other processes.
    package static func restore(in pid: pid_t) {
        guard let soft = started.withLock({ $0 }) else { return }
        ResourceLimit.setSoft(.openFiles, to: UInt64(soft), pid: pid)
    }
}
