import ApphostFreezing
import Glibc
import Logging

/// The workers' parent cgroup `<our cgroup>/apphost-<host pid>` in a hierarchy with the cpu
/// controller, given the CPU weight of one task at `nice`: the workers together then weigh, against
/// the host's threads, as one task at that nice, however many of them are busy. Each worker is
/// in a child of its own (`WorkerCgroups`), which keeps the default weight, so workers share
/// their part equally.
///
/// | | file, in the parent |
/// |---|---|
/// | v2 | cpu.weight.nice (the kernel maps the nice to cpu.weight itself) |
/// | v1 | cpu.shares, the weight of a task at that nice (`weight(nice:)`) |
///
/// v2 needs the cpu controller in our cgroup's cgroup.subtree_control, which the kernel refuses
/// for a cgroup that holds processes (the host's), unless it is the root or the controller was
/// delegated already: then a hybrid machine's v1 cpu hierarchy is tried.
struct CPUWeightCgroup: Sendable {
    let version: Int
    let nice: Int32
    let cgroups: WorkerCgroups

    var file: String { version == 2 ? "cpu.weight.nice" : "cpu.shares" }
    var value: String { version == 2 ? "\(nice)" : "\(Self.weight(nice: nice))" }

    /// "cgroup v1 cpu.shares 110 on /sys/fs/cgroup/cpu/apphost-12", for the log.
    var mechanism: String { "cgroup v\(version) \(file) \(value) on \(cgroups.parent)" }

    static func v2(nice: Int32, hostPID: pid_t, logger: Logger) throws(LimitError) -> CPUWeightCgroup {
        let base = try LimitCgroup.located(
            CgroupLocation.v2Directory(mountinfo: LimitCgroup.mountinfo(), cgroups: LimitCgroup.ownCgroups()))
        let cgroup = CPUWeightCgroup(
            version: 2, nice: nice, cgroups: WorkerCgroups(base: base, hostPID: hostPID, logger: logger))
        try cgroup.probe()
        return cgroup
    }

    static func v1(nice: Int32, hostPID: pid_t, logger: Logger) throws(LimitError) -> CPUWeightCgroup {
        let base = try LimitCgroup.located(
            CgroupLocation.v1Directory(
                controller: "cpu", mountinfo: LimitCgroup.mountinfo(), cgroups: LimitCgroup.ownCgroups()))
        let cgroup = CPUWeightCgroup(
            version: 1, nice: nice, cgroups: WorkerCgroups(base: base, hostPID: hostPID, logger: logger))
        try cgroup.probe()
        return cgroup
    }

    /// Writes the weight on a parent made for the probe, then removes what hosts that are gone
    /// left behind.
    private func probe() throws(LimitError) {
        do {
            try cgroups.probe { _ throws(FreezeError) in try weighParent() }
        } catch {
            throw LimitError(error.description)
        }
        cgroups.removeStaleParents()
    }

    /// Puts `pid` in its own child of the weighed parent.
    func apply(to pid: pid_t) throws(LimitError) {
        do {
            // The parent may be new (it goes with the last worker): weigh it again, before the
            // worker is in it.
            try cgroups.adopt(pid: pid) { _ throws(FreezeError) in try weighParent() }
        } catch {
            throw LimitError("cannot weigh the CPU of process \(pid): \(error)")
        }
    }

    func release(pid: pid_t) { cgroups.release(pid: pid) }

    private func weighParent() throws(FreezeError) {
        if version == 2 {
            // Writing a controller that is enabled already is fine.
            try KernelFile.write("+cpu", to: "\(cgroups.base)/cgroup.subtree_control")
        }
        guard KernelFile.exists("\(cgroups.parent)/\(file)") else {
            throw FreezeError("\(cgroups.parent) has no \(file)")
        }
        try KernelFile.write(value, to: "\(cgroups.parent)/\(file)")
    }

    /// The kernel's weight of a task at each nice from -20 to 19 (`sched_prio_to_weight`): nice 0
    /// weighs 1024, each step about 1.25 times less.
    static let weights: [Int] = [
        88761, 71755, 56483, 46273, 36291, 29154, 23254, 18705, 14949, 11916,
        9548, 7620, 6100, 4904, 3906, 3121, 2501, 1991, 1586, 1277,
        1024, 820, 655, 526, 423, 335, 272, 215, 172, 137,
        110, 87, 70, 56, 45, 36, 29, 23, 18, 15,
    ]

    /// cpu.shares for a group that should weigh as one task at `nice` against tasks at nice 0.
    static func weight(nice: Int32) -> Int { weights[Int(min(max(nice, -20), 19)) + 20] }
}
