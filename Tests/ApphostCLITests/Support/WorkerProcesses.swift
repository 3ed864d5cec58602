import Foundation

/// A host's worker processes as /proc shows them: children of the host named
/// "apphost-worker", told apart by the guest library each has mapped.
enum WorkerProcesses {
    /// The pid of the worker of `host` that has mapped a file named `library`, or nil.
    static func pid(ofHost host: pid_t, mapping library: String) -> pid_t? {
        processes().first { pid in
            isWorker(pid, ofHost: host) && read("/proc/\(pid)/maps")?.contains("/" + library) == true
        }
    }

    /// Every worker of `host` that has not exited (zombies excluded).
    static func all(ofHost host: pid_t) -> [pid_t] {
        processes().filter { isWorker($0, ofHost: host) && !hasExited($0) }
    }

    /// Every process that has `library` (a path) mapped and has not exited: a guest's worker and
    /// whatever it forked, wherever they went since.
    static func mapping(_ library: String) -> [pid_t] {
        processes().filter { pid in !hasExited(pid) && read("/proc/\(pid)/maps")?.contains(library) == true }
    }

    /// Kills every process that has `library` mapped: what a failing test would leave behind.
    static func killAll(mapping library: String) {
        for pid in mapping(library) { kill(pid, SIGKILL) }
    }

    /// The state letter of a process ("S", "T" for stopped...), nil once it is gone.
    static func state(_ pid: pid_t) -> Character? {
        statFields(read("/proc/\(pid)/stat"))?.first?.first
    }

    /// The directories of the cgroups apphost made that `pid` is in (`.../apphost-<host>/...`),
    /// in every hierarchy: /proc/<pid>/cgroup says where in each, our mountinfo where each is.
    static func apphostCgroups(of pid: pid_t) -> [String] {
        guard let memberships = read("/proc/\(pid)/cgroup"), let mountinfo = read("/proc/self/mountinfo") else {
            return []
        }
        let mounts = mountinfo.split(separator: "\n").compactMap {
            line -> (point: String, type: String, options: [Substring])? in
            let fields = line.split(separator: " ")
            guard let dash = fields.firstIndex(of: "-"), dash >= 5, fields.count > dash + 2, fields[3] == "/" else {
                return nil
            }
            return (String(fields[4]), String(fields[dash + 1]), fields[dash + 3].split(separator: ","))
        }
        return memberships.split(separator: "\n").compactMap { line -> String? in
            let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3, fields[2].contains("/apphost-") else { return nil }
            let controllers = fields[1].split(separator: ",")
            let mount = mounts.first { mount in
                controllers.isEmpty
                    ? mount.type == "cgroup2"
                    : mount.type == "cgroup" && controllers.allSatisfy { mount.options.contains($0) }
            }
            return mount.map { $0.point + fields[2] }
        }
    }

    /// Our own cgroup v2 directory, where a host run by this test makes `apphost-<its pid>`.
    static func ownCgroupV2Directory() -> String? {
        guard let memberships = read("/proc/self/cgroup"), let mountinfo = read("/proc/self/mountinfo"),
            let path = memberships.split(separator: "\n").first(where: { $0.hasPrefix("0::") })?.dropFirst(3),
            let point = mountinfo.split(separator: "\n").lazy.map({ $0.split(separator: " ") }).first(where: {
                $0.count > 4 && $0[3] == "/" && $0.contains("cgroup2")
            })?[4]
        else { return nil }
        return path == "/" ? String(point) : String(point) + path
    }

    /// The nice value of a process's main thread (field 19 of its stat); nil once it is gone.
    static func nice(_ pid: pid_t) -> Int? {
        guard let fields = statFields(read("/proc/\(pid)/stat")), fields.count > 16 else { return nil }
        return Int(fields[16])
    }

    /// utime + stime of the whole process (every thread), in clock ticks; nil once it is gone.
    static func cpuTicks(_ pid: pid_t) -> UInt64? {
        guard let fields = statFields(read("/proc/\(pid)/stat")), fields.count > 12,
            let user = UInt64(fields[11]), let system = UInt64(fields[12])
        else { return nil }
        return user + system
    }

    /// Gone, or a zombie: it will never run again.
    static func hasExited(_ pid: pid_t) -> Bool {
        guard let state = statFields(read("/proc/\(pid)/stat"))?.first else { return true }
        return state == "Z" || state == "X"
    }

    /// The fields after "pid (comm) ": the command may hold spaces and parentheses.
    private static func statFields(_ text: String?) -> [Substring]? {
        guard let text, let close = text.lastIndex(of: ")") else { return nil }
        return text[text.index(after: close)...].split(separator: " ")
    }

    private static func processes() -> [pid_t] {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc"))?.compactMap { pid_t($0) } ?? []
    }

    private static func isWorker(_ pid: pid_t, ofHost host: pid_t) -> Bool {
        read("/proc/\(pid)/comm")?.trimmingCharacters(in: .newlines) == "apphost-worker"
            && parentPID(read("/proc/\(pid)/stat")) == host
    }

    private static func parentPID(_ stat: String?) -> pid_t? {
        statFields(stat).flatMap { $0.count > 1 ? pid_t($0[1]) : nil }
    }

    /// The whole file, read until EOF. /proc files say they are empty, and
    /// `FileManager.contents(atPath:)` returned only the start of a Swift guest's worker's maps
    /// (some 9 KB), without its guest library.
    private static func read(_ path: String) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { Foundation.read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { break }
            if count < 0 {
                if errno == EINTR { continue }
                return nil
            }
            bytes += buffer[..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
