import Glibc

/// What /proc/<pid>/stat (or /proc/<pid>/task/<tid>/stat) says about a process or thread: its
/// scheduling state and the CPU time it has used. For a process the times cover all its threads.
package struct ProcessStat: Equatable {
    /// "R" running, "S" sleeping, "D" waiting on I/O, "T" stopped by a signal, "t" stopped by a
    /// tracer, "Z" zombie, "X" dead...
    var state: Character
    /// utime and stime, in clock ticks (sysconf(_SC_CLK_TCK)).
    var userTicks: UInt64
    var systemTicks: UInt64

    var cpuTicks: UInt64 { userTicks + systemTicks }

    /// A stopped thread: stopped by SIGSTOP, or by a tracer, which stops it just as well.
    var isStopped: Bool { state == "T" || state == "t" }

    /// Gone but perhaps not yet reaped: it will never run again.
    package var hasExited: Bool { state == "Z" || state == "X" || state == "x" }

    /// The stat of process `pid`, or nil when there is no such process.
    package static func of(pid: pid_t) -> ProcessStat? {
        (try? KernelFile.read("/proc/\(pid)/stat")).flatMap(parse)
    }

    /// The stat of every thread of `pid` still listed; empty when there is no such process.
    static func threads(of pid: pid_t) -> [ProcessStat] {
        KernelFile.entries("/proc/\(pid)/task").compactMap { tid in
            (try? KernelFile.read("/proc/\(pid)/task/\(tid)/stat")).flatMap(parse)
        }
    }

    /// `pid (comm) state ppid ...`: comm may hold spaces and parentheses, so the fields start
    /// after the last ')'. utime and stime are fields 14 and 15, counting from 1.
    static func parse(_ text: String) -> ProcessStat? {
        guard let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let state = fields[0].first, let user = UInt64(fields[11]),
            let system = UInt64(fields[12])
        else { return nil }
        return ProcessStat(state: state, userTicks: user, systemTicks: system)
    }
}
