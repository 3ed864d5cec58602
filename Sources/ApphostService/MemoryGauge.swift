import Foundation
import Glibc

/// What the host costs in memory, for its memory limit (CONTRACT A4): the proportional set size
/// (PSS) of the host process and of each of its child processes (the guests' workers), so that
/// libraries they share count once. Read from /proc/<pid>/smaps_rollup.
enum MemoryGauge {
    /// Bytes used by this process and its children; processes that vanish meanwhile are skipped.
    static func hostAndWorkersBytes(host: pid_t = getpid()) -> UInt64 {
        ([host] + children(of: host)).reduce(0) { $0 + (proportionalSetBytes(of: $1) ?? 0) }
    }

    static func proportionalSetBytes(of pid: pid_t) -> UInt64? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/smaps_rollup", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("Pss:") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 2, let kib = UInt64(fields[1]) else { return nil }
            return kib * 1024
        }
        return nil
    }

    /// The direct children of `pid`: what each of its threads' `children` file lists (the
    /// kernel's own list), else from every process's stat line, which takes far longer with
    /// thousands of processes.
    static func children(of pid: pid_t) -> [pid_t] {
        let tasks = "/proc/\(pid)/task"
        if let threads = try? FileManager.default.contentsOfDirectory(atPath: tasks),
            FileManager.default.fileExists(atPath: "\(tasks)/\(pid)/children")
        {
            return threads.flatMap { thread in
                ((try? String(contentsOfFile: "\(tasks)/\(thread)/children", encoding: .utf8)) ?? "")
                    .split(separator: " ").compactMap { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            }
        }
        return scannedChildren(of: pid)
    }

    /// The direct children of `pid`, from each process's stat line (field 4 is the parent).
    static func scannedChildren(of pid: pid_t) -> [pid_t] {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [] }
        return entries.compactMap { entry -> pid_t? in
            guard let child = pid_t(entry),
                let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return nil }
            // After "pid (comm)": state, then the parent's pid.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 1 && pid_t(fields[1]) == pid ? child : nil
        }
    }
}
