import Glibc

/// What the kernel has counted for a worker's own cgroup (`…/worker-<pid>`, made by
/// `WorkerCgroups`): CPU time and memory of the worker and of every process its guest started,
/// which /proc/<pid> of the worker alone does not show. Read for the host's metrics (CONTRACT O2).
///
/// | | cgroup v2 | cgroup v1 |
/// | --- | --- | --- |
/// | CPU | cpu.stat `usage_usec` (always there) | cpuacct.usage (ns), in the cpuacct hierarchy |
/// | memory | memory.current (with the memory controller) | memory.usage_in_bytes, in the memory hierarchy |
///
/// A worker is in its own cgroup only in the hierarchies its host uses for it: the freezer's
/// (v2, or the v1 freezer hierarchy, which counts neither) and those of its limits (the memory
/// or pids controller). What none of its own cgroups counts is nil: the caller reads /proc then.
package struct WorkerCgroupUsage: Sendable, Equatable {
    /// User and system CPU time, in seconds.
    package var cpuSeconds: Double?
    /// Memory charged to the cgroup, page cache and kernel memory included, in bytes.
    package var memoryBytes: UInt64?

    package init(cpuSeconds: Double? = nil, memoryBytes: UInt64? = nil) {
        self.cpuSeconds = cpuSeconds
        self.memoryBytes = memoryBytes
    }
}

/// Finds a worker's own cgroups (from /proc/<pid>/cgroup and where the hierarchies are mounted)
/// and reads what they counted.
package struct WorkerCgroupReader: Sendable {
    /// The cgroup and cgroup2 mounts, read once: a host's hierarchies do not move while it runs.
    let mounts: [CgroupLocation.Mount]
    /// A file's text, nil when it cannot be read (gone, or absent in this hierarchy).
    let readFile: @Sendable (String) -> String?

    /// Mounts from `mountinfo` (this process's by default); `readFile` reads /proc and cgroupfs.
    package init(
        mountinfo: String? = nil,
        readFile: @escaping @Sendable (String) -> String? = { try? KernelFile.read($0) }
    ) {
        let text = mountinfo ?? readFile("/proc/self/mountinfo") ?? ""
        mounts = CgroupLocation.parseMountinfo(text).filter { $0.fileSystem == "cgroup2" || $0.fileSystem == "cgroup" }
        self.readFile = readFile
    }

    /// What `pid`'s own cgroups counted; both nil when it has none (or is gone).
    package func usage(of pid: pid_t) -> WorkerCgroupUsage {
        guard !mounts.isEmpty, let text = readFile("/proc/\(pid)/cgroup") else { return WorkerCgroupUsage() }
        return usage(of: pid, cgroups: text)
    }

    /// `pid`'s memberships (its /proc/<pid>/cgroup), read while it ran: once it has exited, that
    /// file is gone or names the root cgroups, while its own cgroups still hold what they counted
    /// until they are removed.
    package func cgroups(of pid: pid_t) -> String? {
        mounts.isEmpty ? nil : readFile("/proc/\(pid)/cgroup")
    }

    /// What the cgroups of `pid` named in `text` (its /proc/<pid>/cgroup) counted.
    package func usage(of pid: pid_t, cgroups text: String) -> WorkerCgroupUsage {
        // Only a cgroup made for this worker: one it shares with the host would count the host.
        let own = CgroupLocation.parseCgroups(text).filter {
            $0.path.split(separator: "/").last.map(String.init) == WorkerCgroups.childName(of: pid)
        }
        var usage = WorkerCgroupUsage()
        for membership in own {
            if membership.hierarchyID == 0 && membership.controllers.isEmpty {
                guard let directory = directory(of: membership.path, fileSystem: "cgroup2", controller: nil) else {
                    continue
                }
                usage.cpuSeconds =
                    usage.cpuSeconds
                    ?? readFile("\(directory)/cpu.stat").flatMap { Self.field("usage_usec", of: $0) }.map {
                        Double($0) / 1e6
                    }
                usage.memoryBytes =
                    usage.memoryBytes ?? readFile("\(directory)/memory.current").flatMap(Self.number)
            } else {
                if membership.controllers.contains("cpuacct"), usage.cpuSeconds == nil,
                    let directory = directory(of: membership.path, fileSystem: "cgroup", controller: "cpuacct")
                {
                    usage.cpuSeconds = readFile("\(directory)/cpuacct.usage").flatMap(Self.number).map {
                        Double($0) / 1e9
                    }
                }
                if membership.controllers.contains("memory"), usage.memoryBytes == nil,
                    let directory = directory(of: membership.path, fileSystem: "cgroup", controller: "memory")
                {
                    usage.memoryBytes = readFile("\(directory)/memory.usage_in_bytes").flatMap(Self.number)
                }
            }
        }
        return usage
    }

    private func directory(of path: String, fileSystem: String, controller: String?) -> String? {
        let mounts = mounts.filter { mount in
            mount.fileSystem == fileSystem && controller.map { mount.superOptions.contains($0) } ?? true
        }
        return try? CgroupLocation.directory(of: path, in: mounts, hierarchy: fileSystem).get()
    }

    /// A file holding one number ("123\n").
    static func number(_ text: String) -> UInt64? {
        let words = text.split(whereSeparator: \.isWhitespace)
        return words.count == 1 ? UInt64(words[0]) : nil
    }

    /// The value of `key` in a flat keyed file (cpu.stat: "usage_usec 123\nuser_usec 100\n…").
    static func field(_ key: String, of text: String) -> UInt64? {
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: " ")
            if parts.count == 2, parts[0] == key { return UInt64(parts[1]) }
        }
        return nil
    }
}
