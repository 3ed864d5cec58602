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
