import Glibc
import Logging

/// Freezes a worker with the cgroup v2 freezer: `cgroup.freeze` of its own cgroup, confirmed by
/// the "frozen" line of `cgroup.events`. The kernel stops every thread of every process in the
/// cgroup, and a frozen process still dies of SIGKILL.
public final class CgroupV2Freezer: ProcessFreezer {
    public let mechanism = "cgroup v2"
    let cgroups: WorkerCgroups
    private let timeout: Duration

    /// Finds our cgroup v2 directory, tries freezing an empty cgroup there, and removes the
    /// parents that dead hosts left. Throws why this machine cannot freeze with cgroup v2.
    public convenience init(
        hostPID: pid_t, timeout: Duration = .seconds(2), logger: Logger = Logger(label: "apphost.freezer")
    ) throws(FreezeError) {
        let base = try CgroupLocation.v2Directory(
            mountinfo: KernelFile.read("/proc/self/mountinfo"), cgroups: KernelFile.read("/proc/self/cgroup")
        ).get()
        try self.init(base: base, hostPID: hostPID, timeout: timeout, logger: logger)
    }

    /// With the cgroup directory given, for tests that make one of their own.
    init(base: String, hostPID: pid_t, timeout: Duration, logger: Logger) throws(FreezeError) {
        cgroups = WorkerCgroups(base: base, hostPID: hostPID, logger: logger)
        self.timeout = timeout
        try cgroups.probe { probe throws(FreezeError) in
            // Kernels before 5.2 have cgroup v2 but not its freezer.
            guard KernelFile.exists("\(probe)/cgroup.freeze") else {
                throw FreezeError("\(base) has no cgroup.freeze (the kernel predates the cgroup v2 freezer)")
            }
            try setFrozen(probe, true)
            try setFrozen(probe, false)
        }
        for stale in cgroups.removeStaleParents(thawing: Self.letRun) {
            logger.info("removed a stale worker cgroup", metadata: ["cgroup": "\(stale)"])
        }
    }

    public func adopt(pid: pid_t) throws(FreezeError) { try cgroups.adopt(pid: pid) }

    public func freeze(pid: pid_t) throws(FreezeError) {
        let child = try cgroups.child(of: pid)
        guard try cgroups.holds(pid, in: child) else { throw .exited(pid) }
        do {
            try setFrozen(child, true)
        } catch {
            // Not frozen in time: leave it running rather than half stopped.
            Self.letRun(child)
            throw FreezeError("cannot freeze process \(pid), it runs on: \(error)")
        }
        // An empty cgroup counts as frozen: check that the process did not exit meanwhile.
        guard try cgroups.holds(pid, in: child) else { throw .exited(pid) }
    }

    public func thaw(pid: pid_t) throws(FreezeError) {
        let child = try cgroups.child(of: pid)
        do {
            try setFrozen(child, false)
        } catch {
            throw FreezeError("cannot thaw process \(pid): \(error)")
        }
        guard try cgroups.holds(pid, in: child) else { throw .exited(pid) }
    }

    public func release(pid: pid_t) { cgroups.release(pid: pid) }

    /// Unfreezes a cgroup without waiting, where nobody waits for the outcome.
    static func letRun(_ cgroup: String) { try? KernelFile.write("0", to: "\(cgroup)/cgroup.freeze") }

    /// Writes `cgroup.freeze` and waits until `cgroup.events` agrees.
    private func setFrozen(_ cgroup: String, _ frozen: Bool) throws(FreezeError) {
        try KernelFile.write(frozen ? "1" : "0", to: "\(cgroup)/cgroup.freeze")
        let expected = frozen ? "frozen 1" : "frozen 0"
        let confirmed = try Polling.until(timeout: timeout) { () throws(FreezeError) in
            try KernelFile.read("\(cgroup)/cgroup.events").split(separator: "\n").contains { $0 == expected }
        }
        guard confirmed else {
            throw FreezeError("\(cgroup) did not report \"\(expected)\" within \(timeout.secondsText)")
        }
    }
}
