import Glibc
import Logging

/// Freezes a worker with a cgroup freezer, in a cgroup of the worker's own: the kernel stops
/// every thread of every process in it. `control` says how the hierarchy at hand (v2 or v1)
/// freezes, thaws and confirms a cgroup; everything else is the same for both.
public final class CgroupFreezer: ProcessFreezer {
    public var mechanism: String { control.mechanism }
    let cgroups: WorkerCgroups
    private let control: any CgroupFreezeControl
    private let timeout: Duration

    /// The cgroup v2 freezer, in our own cgroup v2 directory; throws why this machine lacks it.
    public static func v2(
        hostPID: pid_t, timeout: Duration = .seconds(2), logger: Logger = Logger(label: "apphost.freezer")
    ) throws(FreezeError) -> CgroupFreezer {
        try located(CgroupV2FreezeControl(), hostPID: hostPID, timeout: timeout, logger: logger)
    }

    /// The cgroup v1 freezer, in our own cgroup of the freezer hierarchy; throws why this machine
    /// lacks it.
    public static func v1(
        hostPID: pid_t, timeout: Duration = .seconds(2), logger: Logger = Logger(label: "apphost.freezer")
    ) throws(FreezeError) -> CgroupFreezer {
        try located(CgroupV1FreezeControl(), hostPID: hostPID, timeout: timeout, logger: logger)
    }

    /// A freezer with `control`, in our own cgroup of the hierarchy it freezes.
    private static func located(
        _ control: any CgroupFreezeControl, hostPID: pid_t, timeout: Duration, logger: Logger
    ) throws(FreezeError) -> CgroupFreezer {
        let base = try control.ownCgroup(
            mountinfo: KernelFile.read("/proc/self/mountinfo"), cgroups: KernelFile.read("/proc/self/cgroup")
        ).get()
        return try CgroupFreezer(control: control, base: base, hostPID: hostPID, timeout: timeout, logger: logger)
    }

    /// Tries freezing an empty cgroup under `base`, and removes the parents that dead hosts left
    /// (killing what runs in them: workers they left frozen, what their guests started).
    init(control: any CgroupFreezeControl, base: String, hostPID: pid_t, timeout: Duration, logger: Logger)
        throws(FreezeError)
    {
        self.control = control
        cgroups = WorkerCgroups(base: base, hostPID: hostPID, logger: logger, thaw: control.letRun)
        self.timeout = timeout
        try cgroups.probe { probe throws(FreezeError) in
            try control.checkSupported(probe, base: base)
            let files = try control.open(probe)
            _ = try control.set(files, frozen: true, timeout: timeout)
            _ = try control.set(files, frozen: false, timeout: timeout)
        }
        for stale in cgroups.removeStaleParents() {
            logger.info("removed a stale worker cgroup", metadata: ["cgroup": "\(stale)"])
        }
    }

    public func adopt(pid: pid_t) throws(FreezeError) {
        try cgroups.adopt(pid: pid)
    }

    public func freeze(pid: pid_t) throws(FreezeError) {
        try set(pid, frozen: true)
    }

    public func thaw(pid: pid_t) throws(FreezeError) {
        try set(pid, frozen: false)
    }

    private func set(_ pid: pid_t, frozen: Bool) throws(FreezeError) {
        let files = try files(of: pid)
        let populated: Bool?
        do {
            populated = try control.set(files, frozen: frozen, timeout: timeout)
        } catch {
            guard frozen else { throw FreezeError("cannot thaw process \(pid): \(error)") }
            // Not frozen in time (a thread in uninterruptible sleep): leave it running rather
            // than half stopped.
            control.letRun(files.cgroup)
            throw FreezeError("cannot freeze process \(pid), it runs on: \(error)")
        }
        // An empty cgroup counts as frozen, and as thawed: check that the process did not exit
        // meanwhile.
        guard try runs(pid, in: files, populated: populated) else { throw .exited(pid) }
    }

    public func release(pid: pid_t) {
        cgroups.release(pid: pid)
    }

    /// Whether the worker is still there: what confirmed the freeze or thaw says (cgroup v2:
    /// whether anything is left in the worker's cgroup, which is the worker and what it started),
    /// else its cgroup's process list and /proc.
    private func runs(_ pid: pid_t, in files: CgroupFreezeFiles, populated: Bool?) throws(FreezeError) -> Bool {
        if let populated { return populated }
        return try cgroups.holds(pid, in: files.cgroup)
    }

    /// The files of an adopted worker's cgroup, opened for one freeze or thaw; an error for any
    /// other process. Not held between them: a host of thousands of workers would hold two
    /// descriptors more for each, which took a third of what the descriptor limit allows, for
    /// some 60 us less a thaw (Benchmarks/README.md).
    private func files(of pid: pid_t) throws(FreezeError) -> CgroupFreezeFiles {
        guard let cgroup = cgroups.adoptedDirectory(of: pid) else { throw .notAdopted(pid) }
        return try control.open(cgroup)
    }
}
