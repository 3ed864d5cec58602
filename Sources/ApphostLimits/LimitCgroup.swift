import ApphostFreezing
import Glibc
import Logging

/// One cgroup controller that limits one resource of each worker, in the worker's own cgroup
/// `<our cgroup>/apphost-<host pid>/worker-<pid>` (made by `WorkerCgroups`, as for freezing):
/// memory or pids, in cgroup v2 or in a v1 hierarchy. It writes the limit and reads back the
/// kernel's counters of what the limit did (CONTRACT X2). A hit needs every counter of its row
/// above 0:
///
/// | | limit file | counters |
/// |---|---|---|
/// | memory, v2 | memory.max | memory.events `oom` (this cgroup's own limit ran out) and `oom_kill` |
/// | memory, v1 | memory.limit_in_bytes | memory.failcnt (this cgroup's own limit was reached) and memory.oom_control `oom_kill` (Linux 4.13 and later) |
/// | pids, v2 and v1 | pids.max | pids.events `max` (forks and clones refused) |
///
/// `oom_kill` alone would also count a worker that the kernel killed for a machine-wide
/// shortage, or for a limit of an ancestor cgroup: the second counter pins it on our limit.
struct LimitCgroup: Sendable {
    enum Controller: String, Sendable {
        case memory
        case pids
    }

    let controller: Controller
    let version: Int
    let cgroups: WorkerCgroups

    var limitFile: String {
        switch (controller, version) {
        case (.memory, 2): "memory.max"
        case (.memory, _): "memory.limit_in_bytes"
        case (.pids, _): "pids.max"
        }
    }

    /// The counters' files and keys: a counter's value is the number after its key on its line,
    /// or the file's whole text without a key.
    var counters: [(file: String, key: String?)] {
        switch (controller, version) {
        case (.memory, 2): [("memory.events", "oom"), ("memory.events", "oom_kill")]
        case (.memory, _): [("memory.failcnt", nil), ("memory.oom_control", "oom_kill")]
        case (.pids, _): [("pids.events", "max")]
        }
    }

    /// "cgroup v1 memory.limit_in_bytes in /sys/fs/cgroup/memory/…", for the log.
    var mechanism: String { "cgroup v\(version) \(limitFile) under \(cgroups.parent)" }

    /// The controller in our cgroup v2 directory, when it can be enabled for the workers' cgroups:
    /// our cgroup must offer it (cgroup.controllers) and either delegate it already or accept it
    /// in cgroup.subtree_control — which the kernel refuses (EBUSY) for a cgroup that holds
    /// processes, unless it is the root: then this machine limits with v1 or rlimits instead.
    static func v2(_ controller: Controller, hostPID: pid_t, logger: Logger) throws(LimitError) -> LimitCgroup {
        let base = try located(CgroupLocation.v2Directory(mountinfo: mountinfo(), cgroups: ownCgroups()))
        let cgroup = LimitCgroup(
            controller: controller, version: 2, cgroups: WorkerCgroups(base: base, hostPID: hostPID, logger: logger))
        try cgroup.probe()
        return cgroup
    }

    /// The controller's v1 hierarchy, with our directory in it.
    static func v1(_ controller: Controller, hostPID: pid_t, logger: Logger) throws(LimitError) -> LimitCgroup {
        let base = try located(
            CgroupLocation.v1Directory(controller: controller.rawValue, mountinfo: mountinfo(), cgroups: ownCgroups()))
        let cgroup = LimitCgroup(
            controller: controller, version: 1, cgroups: WorkerCgroups(base: base, hostPID: hostPID, logger: logger))
        try cgroup.probe()
        return cgroup
    }

    /// Tries the limit file out on an empty cgroup (written with "no limit"), then removes what
    /// hosts that are gone left behind, after killing what runs in it.
    private func probe() throws(LimitError) {
        do {
            try cgroups.probe { probe throws(FreezeError) in
                if version == 2 { try enableController(in: cgroups.parent) }
                guard KernelFile.exists("\(probe)/\(limitFile)") else {
                    throw FreezeError("\(probe) has no \(limitFile)")
                }
                try KernelFile.write(version == 1 && controller == .memory ? "-1" : "max", to: "\(probe)/\(limitFile)")
            }
        } catch {
            throw LimitError(error.description)
        }
        cgroups.removeStaleParents()
    }

    /// Puts `pid` in its own cgroup with `value` as its limit.
    func apply(_ value: UInt64, to pid: pid_t) throws(LimitError) {
        do {
            try cgroups.adopt(pid: pid)
            // The parent may be new (it goes with the last worker): v2 needs the controller
            // enabled in it again before the child has the limit file.
            if version == 2 { try enableController(in: cgroups.parent) }
            try KernelFile.write("\(value)", to: "\(cgroups.directory(of: pid))/\(limitFile)")
        } catch {
            cgroups.release(pid: pid)
            throw LimitError("cannot limit \(controller.rawValue) of process \(pid): \(error)")
        }
    }

    /// How often the worker's cgroup hit its limit: OOM kills for memory, refused forks for
    /// pids: the last counter of the table, or 0 when another is 0. A counter that cannot be read
    /// (the cgroup is gone, the kernel too old) counts as 0.
    func hits(of pid: pid_t) -> UInt64 {
        var last: UInt64 = 0
        for counter in counters {
            last = Self.read(counter, in: cgroups.directory(of: pid))
            guard last > 0 else { return 0 }
        }
        return last
    }

    private static func read(_ counter: (file: String, key: String?), in directory: String) -> UInt64 {
        guard let text = try? KernelFile.read("\(directory)/\(counter.file)") else { return 0 }
        guard let key = counter.key else {
            return UInt64(text.split(whereSeparator: \.isWhitespace).first ?? "") ?? 0
        }
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ")
            if fields.count == 2, fields[0] == key, let count = UInt64(fields[1]) { return count }
        }
        return 0
    }

    func release(pid: pid_t) { cgroups.release(pid: pid) }

    /// v2 hands a controller to children only when the parent's cgroup.subtree_control names it;
    /// the parent in turn gets it from ours. Writing a controller that is enabled already is fine.
    private func enableController(in parent: String) throws(FreezeError) {
        let name = controller.rawValue
        if !Self.offers(parent, name) {
            let base = cgroups.base
            guard Self.offers(base, name) else {
                throw FreezeError("our cgroup \(base) has no \(name) controller (cgroup.controllers)")
            }
            try KernelFile.write("+\(name)", to: "\(base)/cgroup.subtree_control")
        }
        try KernelFile.write("+\(name)", to: "\(parent)/cgroup.subtree_control")
    }

    private static func offers(_ cgroup: String, _ controller: String) -> Bool {
        ((try? KernelFile.read("\(cgroup)/cgroup.controllers")) ?? "").split(whereSeparator: \.isWhitespace)
            .contains { $0 == controller }
    }

    static func mountinfo() throws(LimitError) -> String {
        do { return try KernelFile.read("/proc/self/mountinfo") } catch { throw LimitError(error.description) }
    }

    static func ownCgroups() throws(LimitError) -> String {
        do { return try KernelFile.read("/proc/self/cgroup") } catch { throw LimitError(error.description) }
    }

    static func located(_ result: Result<String, FreezeError>) throws(LimitError) -> String {
        switch result {
        case .success(let directory): directory
        case .failure(let error): throw LimitError(error.description)
        }
    }
}
