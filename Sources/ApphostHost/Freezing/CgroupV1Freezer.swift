import Glibc
import Logging

/// Freezes a worker with the cgroup v1 freezer: `freezer.state` of its own cgroup in the freezer
/// hierarchy, written FROZEN and read until the kernel has moved from FREEZING to FROZEN.
///
/// Unlike v2, a process frozen here does not die of SIGKILL until it is thawed: whoever kills a
/// frozen worker must thaw it too.
public final class CgroupV1Freezer: ProcessFreezer {
    public let mechanism = "cgroup v1"
    let cgroups: WorkerCgroups
    private let timeout: Duration

    /// Finds our cgroup in the v1 freezer hierarchy, tries freezing an empty cgroup there, and
    /// removes the parents that dead hosts left. Throws why this machine cannot freeze with it.
    public convenience init(
        hostPID: pid_t, timeout: Duration = .seconds(2), logger: Logger = Logger(label: "apphost.freezer")
    ) throws(FreezeError) {
        let base = try CgroupLocation.v1FreezerDirectory(
            mountinfo: KernelFile.read("/proc/self/mountinfo"), cgroups: KernelFile.read("/proc/self/cgroup")
        ).get()
        try self.init(base: base, hostPID: hostPID, timeout: timeout, logger: logger)
    }

    /// With the cgroup directory given, for tests that make one of their own.
    init(base: String, hostPID: pid_t, timeout: Duration, logger: Logger) throws(FreezeError) {
        cgroups = WorkerCgroups(base: base, hostPID: hostPID, logger: logger)
        self.timeout = timeout
        try cgroups.probe { probe throws(FreezeError) in
            try setState(probe, "FROZEN")
            try setState(probe, "THAWED")
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
            try setState(child, "FROZEN")
        } catch {
            // Stuck in FREEZING (a thread in uninterruptible sleep): leave it running rather
            // than half stopped.
            Self.letRun(child)
            throw FreezeError("cannot freeze process \(pid), it runs on: \(error)")
        }
        // An empty cgroup counts as frozen: check that the process did not exit meanwhile.
        guard try cgroups.holds(pid, in: child) else { throw .exited(pid) }
    }

    public func thaw(pid: pid_t) throws(FreezeError) {
        let child = try cgroups.child(of: pid)
        do {
            try setState(child, "THAWED")
        } catch {
            throw FreezeError("cannot thaw process \(pid): \(error)")
        }
        guard try cgroups.holds(pid, in: child) else { throw .exited(pid) }
    }

    public func release(pid: pid_t) { cgroups.release(pid: pid) }

    /// Thaws a cgroup without waiting, where nobody waits for the outcome.
    static func letRun(_ cgroup: String) { try? KernelFile.write("THAWED", to: "\(cgroup)/freezer.state") }

    /// Writes `freezer.state` and waits until reading it gives the same state; each read also
    /// makes the kernel check whether a FREEZING cgroup has become FROZEN.
    private func setState(_ cgroup: String, _ state: String) throws(FreezeError) {
        let file = "\(cgroup)/freezer.state"
        try KernelFile.write(state, to: file)
        var last = ""
        let confirmed = try Polling.until(timeout: timeout) { () throws(FreezeError) in
            last = try KernelFile.read(file).split(whereSeparator: \.isWhitespace).first.map(String.init) ?? ""
            return last == state
        }
        guard confirmed else {
            throw FreezeError("\(file) still reads \(last) after \(timeout.secondsText), not \(state)")
        }
    }
}
