import ApphostFreezing
import Glibc
import Logging
import Synchronization

/// Puts `GuestLimits` on each worker process and says, when one dies, which limit it ran into
/// (CONTRACT X2: a guest that exhausts memory, descriptors or processes harms no other guest nor
/// the host, and its death is reported with the reason).
///
/// Mechanisms, chosen once at start from what this machine has:
/// - memory: cgroup v2 memory.max when the memory controller can be enabled for the workers'
///   cgroups, else cgroup v1 memory.limit_in_bytes in our memory hierarchy, else RLIMIT_AS.
/// - processes: cgroup v2 pids.max likewise, else v1 pids.max, else RLIMIT_NPROC — which counts
///   per user: per worker when each runs under a user of its own (`WorkerUsers`), else the
///   host's user's, which the kernel does not enforce for root (nor CAP_SYS_RESOURCE).
/// - files: RLIMIT_NOFILE, always.
///
/// How a hit is detected:
/// - memory in a cgroup: the kernel OOM-killed in the worker's cgroup (`oom_kill`) after the
///   cgroup's own limit ran out (v2 memory.events `oom`, v1 memory.failcnt), so that a machine-wide
///   OOM kill is not blamed on the limit. Under RLIMIT_AS allocations just fail and the guest
///   dies however it handles that: not detected, `explainDeath` says nothing.
/// - processes in a cgroup: pids.events "max", the forks and clones the limit refused. Under
///   RLIMIT_NPROC fork fails with EAGAIN inside the guest: not detected.
/// - files: no kernel counter records EMFILE, so `usage(of:)` samples the worker's open
///   descriptors, by itself every `samplingInterval` and whenever called; the limit counts as
///   hit when a sample found every number below it in use. A worker that hits it and dies
///   before the next sample is not detected.
public final class WorkerLimiter: Sendable {
    public let limits: GuestLimits
    /// One line per limited resource: what enforces it, for the log and `apphost ps`.
    public let mechanisms: [String]
    /// Internal, not private, so that tests can find the cgroups.
    let memory: Enforcement
    let processes: Enforcement
    private let logger: Logger
    /// The workers with limits, and the most open descriptors a sample saw in each.
    private let workers = Mutex<[pid_t: Int]>([:])
    /// Samples every worker's descriptors while there is a files limit; nil without one.
    private let sampler = Mutex<DescriptorSampler?>(nil)

    /// How often the descriptors of every limited worker are counted, with a files limit.
    public static let samplingInterval = Duration.milliseconds(250)

    /// How one resource is limited.
    enum Enforcement: Sendable {
        case none
        case cgroup(LimitCgroup)
        case resourceLimit(ResourceLimit.Kind)
    }

    /// Finds the mechanisms for the limits that are set; never fails: rlimits are the fallback.
    /// `workersHaveOwnUsers`: each worker takes a user of its own (`WorkerUsers`), so that
    /// RLIMIT_NPROC counts its processes alone.
    public convenience init(
        limits: GuestLimits, hostPID: pid_t = getpid(), workersHaveOwnUsers: Bool = false,
        logger: Logger = Logger(label: "apphost.limits")
    ) {
        self.init(
            limits: limits, hostPID: hostPID, useCgroups: true, workersHaveOwnUsers: workersHaveOwnUsers,
            logger: logger)
    }

    /// `useCgroups: false` forces the rlimit fallbacks, for tests on machines that have cgroups.
    init(limits: GuestLimits, hostPID: pid_t, useCgroups: Bool, workersHaveOwnUsers: Bool = false, logger: Logger) {
        self.limits = limits
        self.logger = logger
        memory =
            limits.memoryBytes == nil
            ? .none
            : Self.cgroup(.memory, hostPID: hostPID, enabled: useCgroups, logger: logger)
                ?? .resourceLimit(.addressSpace)
        processes =
            limits.processes == nil
            ? .none
            : Self.cgroup(.pids, hostPID: hostPID, enabled: useCgroups, logger: logger) ?? .resourceLimit(.processes)
        var mechanisms: [String] = []
        if let bytes = limits.memoryBytes {
            mechanisms.append("memory \(GuestLimits.describe(bytes: bytes)): \(Self.describe(memory))")
        }
        if let count = limits.openFiles { mechanisms.append("files \(count): RLIMIT_NOFILE") }
        if let count = limits.processes {
            var line = "processes \(count): \(Self.describe(processes))"
            if case .resourceLimit = processes {
                line +=
                    workersHaveOwnUsers
                    ? " (per guest: each worker runs under a user of its own)"
                    : geteuid() == 0 ? " (NOT enforced: the host runs as root)" : " (counted per user, not per guest)"
            }
            mechanisms.append(line)
        }
        self.mechanisms = mechanisms
        for line in mechanisms { logger.info("guest limit", metadata: ["limit": "\(line)"]) }
        if limits.openFiles != nil {
            let sampler = DescriptorSampler(interval: Self.samplingInterval) { [weak self] in self?.sampleAll() }
            self.sampler.withLock { $0 = sampler }
        }
        if case .resourceLimit = processes, geteuid() == 0, !workersHaveOwnUsers {
            logger.warning(
                "--processes-limit is not enforced: no pids cgroup is usable, and RLIMIT_NPROC does not apply to root")
        }
    }

    /// Limits a worker: call right after spawning it and before it loads its guest. On an error
    /// nothing of it stays in place, and the caller should not run the guest.
    public func apply(to pid: pid_t) throws(LimitError) {
        guard !limits.isEmpty else { return }
        var placed: [LimitCgroup] = []
        do throws(LimitError) {
            for (enforcement, value) in [(memory, limits.memoryBytes), (processes, limits.processes.map(UInt64.init))] {
                guard let value else { continue }
                switch enforcement {
                case .none: break
                case .cgroup(let cgroup):
                    try cgroup.apply(value, to: pid)
                    placed.append(cgroup)
                case .resourceLimit(let kind): try ResourceLimit.set(kind, to: value, pid: pid)
                }
            }
            if let files = limits.openFiles { try ResourceLimit.set(.openFiles, to: UInt64(files), pid: pid) }
        } catch {
            for cgroup in placed { cgroup.release(pid: pid) }
            throw error
        }
        workers.withLock { $0[pid] = 0 }
    }

    /// Samples what a running worker uses and remembers the most it had open; nil once it is gone
    /// (a zombie has no descriptors left to count). Call it periodically for the files reason.
    @discardableResult
    public func usage(of pid: pid_t) -> WorkerUsage? {
        guard KernelFile.exists("/proc/\(pid)/fd"), ProcessStat.of(pid: pid)?.hasExited == false else { return nil }
        let usage = WorkerUsage(openFiles: KernelFile.entries("/proc/\(pid)/fd").count)
        workers.withLock { workers in
            if let peak = workers[pid] { workers[pid] = max(peak, usage.openFiles) }
        }
        return usage
    }

    /// Samples every limited worker, for the sampler.
    private func sampleAll() {
        for pid in workers.withLock({ Array($0.keys) }) { usage(of: pid) }
    }

    /// The limits a worker has run into so far, memory first. Its cgroups must still exist:
    /// call before `release`.
    public func limitHits(of pid: pid_t) -> [LimitHit] {
        var hits: [LimitHit] = []
        if case .cgroup(let cgroup) = memory, let bytes = limits.memoryBytes, cgroup.hits(of: pid) > 0 {
            hits.append(.memory(bytes: bytes))
        }
        if case .cgroup(let cgroup) = processes, let count = limits.processes, cgroup.hits(of: pid) > 0 {
            hits.append(.processes(count))
        }
        if let files = limits.openFiles {
            usage(of: pid)
            if let peak = workers.withLock({ $0[pid] }), peak >= files { hits.append(.files(files)) }
        }
        return hits
    }

    /// Why a worker that died did, when a limit explains it: "memory limit of 64 MB reached". An
    /// OOM kill is a cause for sure; a refused fork or a full descriptor table is the limit the
    /// guest ran into before it died. Call before `release`, which removes the counters.
    public func explainDeath(of pid: pid_t) -> String? {
        limitHits(of: pid).first?.description
    }

    /// Removes the worker's cgroups (retrying briefly while its last process leaves them) and
    /// forgets its samples. Never fails; what cannot be removed is logged.
    public func release(pid: pid_t) {
        guard workers.withLock({ $0.removeValue(forKey: pid) }) != nil else { return }
        for case .cgroup(let cgroup) in [memory, processes] { cgroup.release(pid: pid) }
    }

    /// The v2 controller if it can be enabled for the workers, else the v1 one, else nil; says
    /// in the log why each was not usable.
    private static func cgroup(
        _ controller: LimitCgroup.Controller, hostPID: pid_t, enabled: Bool, logger: Logger
    ) -> Enforcement? {
        guard enabled else { return nil }
        return CgroupVersions.first(
            v2: { () throws(LimitError) in try LimitCgroup.v2(controller, hostPID: hostPID, logger: logger) },
            v1: { () throws(LimitError) in try LimitCgroup.v1(controller, hostPID: hostPID, logger: logger) },
            otherwise: "no cgroup \(controller.rawValue) controller to limit workers with; using rlimits",
            logger: logger
        ).map(Enforcement.cgroup)
    }

    private static func describe(_ enforcement: Enforcement) -> String {
        switch enforcement {
        case .none: "none"
        case .cgroup(let cgroup): cgroup.mechanism
        case .resourceLimit(let kind): kind.name
        }
    }
}
