import Foundation

/// A host's worker processes as /proc shows them: children of the host named
/// "apphost-worker", told apart by the guest library each has mapped.
enum WorkerProcesses {
    /// The pid of the worker of `host` that has mapped a file named `library`, or nil.
    static func pid(ofHost host: pid_t, mapping library: String) -> pid_t? {
        let pids = (try? FileManager.default.contentsOfDirectory(atPath: "/proc"))?.compactMap { pid_t($0) } ?? []
        return pids.first { pid in
            guard read("/proc/\(pid)/comm")?.trimmingCharacters(in: .newlines) == "apphost-worker",
                let stat = read("/proc/\(pid)/stat"), parentPID(stat) == host
            else { return false }
            return read("/proc/\(pid)/maps")?.contains("/" + library) == true
        }
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

    private static func parentPID(_ stat: String) -> pid_t? {
        statFields(stat).flatMap { $0.count > 1 ? pid_t($0[1]) : nil }
    }

    private static func read(_ path: String) -> String? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }
}
