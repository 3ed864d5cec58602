import ApphostFreezing
import Glibc
import Logging
import Synchronization

/// Fair shares: however many guests are busy, the host's own threads (its queue, timers,
/// watchdog, control server) keep their part of the CPU. Each worker runs `niceOffset` above the
/// host's nice, and where a cgroup hierarchy with the cpu controller is usable the workers' parent
/// cgroup weighs as one task at that nice (`CPUWeightCgroup`: v2 cpu.weight.nice, else v1
/// cpu.shares). The nice works on every machine; the cgroup is what keeps 50 busy workers from
/// outweighing the host 50 to 1.
///
/// The host sets the nice of the worker's threads right after spawning it, before the guest
/// loads: the worker has one thread then, and every thread the guest starts inherits it. The host
/// may, as the same user or as root, so this holds for workers that take a user of their own at
/// LOAD. A guest under a user of its own cannot lower it again (RLIMIT_NICE); one that runs as
/// root could.
///
/// The cgroup is chosen when the first worker is weighed, so that a host that fails to start
/// probes and logs nothing.
public final class WorkerPriority: Sendable {
    /// 1 to 19: how much nicer than the host each worker runs.
    public let niceOffset: Int32
    private let hostPID: pid_t
    private let logger: Logger
    private let useCgroups: Bool
    /// nil until the first worker; then the cgroup, or none (`.some(nil)`).
    private let chosen = Mutex<CPUWeightCgroup??>(nil)
    /// Whether a worker the cgroup could not take was logged yet: once is enough.
    private let warned = Mutex(false)

    public convenience init(
        niceOffset: Int32, hostPID: pid_t = getpid(), logger: Logger = Logger(label: "apphost.priority")
    ) {
        self.init(niceOffset: niceOffset, hostPID: hostPID, useCgroups: true, logger: logger)
    }

    /// `useCgroups: false`: the nice alone, as on a machine with no usable cpu controller (the
    /// fair-share benchmark measures it beside the cgroup).
    package init(niceOffset: Int32, hostPID: pid_t, useCgroups: Bool, logger: Logger) {
        self.niceOffset = niceOffset
        self.hostPID = hostPID
        self.useCgroups = useCgroups
        self.logger = logger
    }

    /// Parses `--worker-nice`: 0 (none) to 19, or a one-line error.
    public static func parseOffset(_ text: String) throws(LimitError) -> Int32 {
        guard let value = Int32(text), (0...19).contains(value) else {
            throw LimitError("--worker-nice: \(text) is not a nice offset from 0 (none) to 19")
        }
        return value
    }

    /// "nice +10; cgroup v1 cpu.shares 110 on /sys/fs/cgroup/cpu/apphost-12", once chosen.
    public var mechanism: String {
        let cgroup = cgroup
        return "nice +\(niceOffset)" + (cgroup.map { "; \($0.mechanism)" } ?? "")
    }

    private var cgroup: CPUWeightCgroup? {
        chosen.withLock { chosen in
            if let chosen { return chosen }
            let cgroup = useCgroups ? Self.choose(nice: niceOffset, hostPID: hostPID, logger: logger) : nil
            chosen = .some(cgroup)
            logger.info(
                "workers run at a lower CPU priority",
                metadata: ["priority": "nice +\(niceOffset)\(cgroup.map { "; \($0.mechanism)" } ?? "")"])
            return cgroup
        }
    }

    /// Lowers a worker's priority: call right after spawning it and before it loads its guest.
    /// Throws only when the nice cannot be set. A worker the cgroup cannot take (no real-time
    /// time left for its audio threads, say, while the kernel still holds what removed cgroups
    /// had) runs with the nice alone: fair shares are no reason to refuse a guest.
    public func apply(to pid: pid_t) throws(LimitError) {
        try renice(pid: pid)
        do throws(LimitError) {
            try cgroup?.apply(to: pid)
        } catch {
            let first = warned.withLock { warned in
                defer { warned = true }
                return !warned
            }
            let metadata: Logger.Metadata = ["pid": "\(pid)", "why": "\(error)"]
            // A notice, not a warning: the guest runs, a little less protected from its neighbours;
            // on a busy machine (hosts started one after another, whose cgroups the kernel frees
            // later) it is expected, and the operator's warnings stay for what went wrong.
            if first {
                logger.notice("a worker runs with the nice alone, outside the weighed cgroup", metadata: metadata)
            } else {
                logger.debug("a worker runs with the nice alone, outside the weighed cgroup", metadata: metadata)
            }
        }
    }

    /// Removes the worker's child cgroup. Never fails; what cannot be removed is logged.
    public func release(pid: pid_t) { cgroup?.release(pid: pid) }

    /// Sets every thread of `pid` to the host's nice plus the offset: on Linux a nice belongs to
    /// a thread, and setpriority(PRIO_PROCESS, pid) sets only the one whose id is `pid`.
    private func renice(pid: pid_t) throws(LimitError) {
        let which = __priority_which_t(PRIO_PROCESS.rawValue)
        errno = 0
        let hostNice = getpriority(which, id_t(hostPID))
        let base = errno == 0 ? hostNice : 0
        let nice = min(base + niceOffset, 19)
        let threads = KernelFile.entries("/proc/\(pid)/task").compactMap { pid_t($0) }
        for thread in threads.isEmpty ? [pid] : threads {
            // A thread that has exited meanwhile is no failure.
            guard setpriority(which, id_t(thread), nice) == 0 || errno == ESRCH else {
                throw LimitError(
                    "cannot set the nice of process \(pid) to \(nice): \(String(cString: strerror(errno)))")
            }
        }
    }

    /// The v2 cpu controller if it can be enabled for the workers, else the v1 one, else nil;
    /// says in the log why each was not usable.
    private static func choose(nice: Int32, hostPID: pid_t, logger: Logger) -> CPUWeightCgroup? {
        CgroupVersions.first(
            v2: { () throws(LimitError) in try CPUWeightCgroup.v2(nice: nice, hostPID: hostPID, logger: logger) },
            v1: { () throws(LimitError) in try CPUWeightCgroup.v1(nice: nice, hostPID: hostPID, logger: logger) },
            otherwise: "no cgroup cpu controller to weigh workers with; nice only", logger: logger)
    }
}
