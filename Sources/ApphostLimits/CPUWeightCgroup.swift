import ApphostFreezing
import Glibc
import Logging
import Synchronization

/// The workers' parent cgroup `<our cgroup>/apphost-<host pid>` in a hierarchy with the cpu
/// controller, given the CPU weight of one task at `nice`: the workers together then weigh, against
/// the host's threads, as one task at that nice, however many of them are busy.
///
/// In v2 each worker is in a child of its own (`WorkerCgroups`, shared with the v2 freezer), which
/// keeps the default weight, so workers share their part equally. In v1 the workers are in the
/// parent itself: where the kernel schedules real-time threads by group (the parent has
/// cpu.rt_runtime_us), a cgroup's real-time time must be handed down from its parent, and
/// children's times add up, so that one allotment on the parent serves every worker's audio
/// thread (SCHED_FIFO) however many workers there are; a new cgroup has none, and a SCHED_FIFO
/// request in it fails (EPERM). The parent takes half of what its siblings leave of our cgroup's
/// time; when none is left, the v1 cgroup is not used (nice only), rather than take real-time
/// audio from the guests.
///
/// | | file, in the parent |
/// |---|---|
/// | v2 | cpu.weight.nice (the kernel maps the nice to cpu.weight itself) |
/// | v1 | cpu.shares, the weight of a task at that nice (`weight(nice:)`) |
///
/// v2 needs the cpu controller in our cgroup's cgroup.subtree_control, which the kernel refuses
/// for a cgroup that holds processes (the host's), unless it is the root or the controller was
/// delegated already: then a hybrid machine's v1 cpu hierarchy is tried.
final class CPUWeightCgroup: Sendable {
    let version: Int
    let nice: Int32
    let cgroups: WorkerCgroups
    /// v1: the workers in the parent. The lock also orders creating and removing the parent.
    private let members = Mutex<Set<pid_t>>([])

    init(version: Int, nice: Int32, cgroups: WorkerCgroups) {
        self.version = version
        self.nice = nice
        self.cgroups = cgroups
    }

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
            try cgroups.probe { _ throws(FreezeError) in try weighParent(probing: true) }
        } catch {
            throw LimitError(error.description)
        }
        cgroups.removeStaleParents()
    }

    /// Puts `pid` in the weighed parent (v1) or in its own child of it (v2).
    func apply(to pid: pid_t) throws(LimitError) {
        do {
            // The parent may be new (it goes with the last worker): weigh it again, before the
            // worker is in it.
            if version == 2 {
                try cgroups.adopt(pid: pid) { _ throws(FreezeError) in try weighParent() }
                return
            }
            let parent = cgroups.parent
            try members.withLock { members throws(FreezeError) in
                guard mkdir(parent, 0o755) == 0 || errno == EEXIST else {
                    throw FreezeError("cannot create \(parent): \(String(cString: strerror(errno)))")
                }
                do throws(FreezeError) {
                    if members.isEmpty { try weighParent() }
                    try KernelFile.write("\(pid)", to: "\(parent)/cgroup.procs")
                } catch {
                    if members.isEmpty { rmdir(parent) }
                    throw error
                }
                members.insert(pid)
            }
        } catch {
            throw LimitError("cannot weigh the CPU of process \(pid): \(error)")
        }
    }

    /// v2: removes the worker's child; v1: the parent, with the last worker.
    func release(pid: pid_t) {
        guard version == 1 else { return cgroups.release(pid: pid) }
        members.withLock { members in
            guard members.remove(pid) != nil, members.isEmpty else { return }
            // A worker that is not reaped yet keeps it busy: the next worker, or the next host,
            // takes it over.
            rmdir(cgroups.parent)
        }
    }

    /// `probing`: real-time time is not handed out to the probe, whose removal the kernel completes
    /// later, holding the time meanwhile.
    private func weighParent(probing: Bool = false) throws(FreezeError) {
        if version == 2 {
            // Writing a controller that is enabled already is fine.
            try KernelFile.write("+cpu", to: "\(cgroups.base)/cgroup.subtree_control")
        }
        guard KernelFile.exists("\(cgroups.parent)/\(file)") else {
            throw FreezeError("\(cgroups.parent) has no \(file)")
        }
        try KernelFile.write(value, to: "\(cgroups.parent)/\(file)")
        if version == 1, !probing { try allotRealTime() }
    }

    /// v1 with real-time group scheduling: gives the parent half of the real-time time our cgroup
    /// has that its other children have not taken, unless it has some already. A cgroup removed
    /// a moment ago may still hold its time (the kernel frees it later) and the kernel refuses
    /// more than is left (EINVAL): then a half of that, and so on, down to 1% of the period.
    private func allotRealTime() throws(FreezeError) {
        let parent = cgroups.parent
        let file = "cpu.rt_runtime_us"
        guard KernelFile.exists("\(parent)/\(file)"), Self.number(in: "\(parent)/\(file)") == 0 else { return }
        let ours = Self.number(in: "\(cgroups.base)/\(file)")
        let taken = KernelFile.entries(cgroups.base).filter { "\(cgroups.base)/\($0)" != parent }.reduce(0) {
            $0 + max(Self.number(in: "\(cgroups.base)/\($1)/\(file)"), 0)
        }
        let least = Self.number(in: "\(parent)/cpu.rt_period_us") / 100
        var share = (ours - taken) / 2
        while share >= max(least, 1) {
            do throws(FreezeError) {
                return try KernelFile.write("\(share)", to: "\(parent)/\(file)")
            } catch {
                share /= 2
            }
        }
        throw FreezeError("no real-time time is left in \(cgroups.base) for the workers' audio threads")
    }

    /// The integer a kernel file holds; 0 when it holds none.
    private static func number(in path: String) -> Int {
        Int(((try? KernelFile.read(path)) ?? "").split(whereSeparator: \.isWhitespace).first ?? "") ?? 0
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
