import Foundation
import Glibc

/// What a process has cost so far: its CPU time (user and system) from /proc/<pid>/stat and its
/// resident memory from /proc/<pid>/statm.
struct ProcessUsage: Equatable {
    var cpuSeconds: Double
    var residentBytes: UInt64

    /// Nil when the process is gone or its files do not read as expected.
    static func read(pid: Int32) -> ProcessUsage? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let statm = try? String(contentsOfFile: "/proc/\(pid)/statm", encoding: .utf8),
            let ticks = cpuTicks(stat: stat),
            let pages = residentPages(statm: statm)
        else { return nil }
        let perSecond = Double(sysconf(Int32(_SC_CLK_TCK)))
        let pageSize = UInt64(sysconf(Int32(_SC_PAGESIZE)))
        return ProcessUsage(cpuSeconds: Double(ticks) / perSecond, residentBytes: pages * pageSize)
    }

    /// utime + stime, fields 14 and 15 of the stat line; counted after "(comm)", which may hold
    /// spaces and parentheses, so from its last ")": there field 3 (the state) comes first.
    static func cpuTicks(stat: String) -> UInt64? {
        guard let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = UInt64(fields[11]), let system = UInt64(fields[12]) else { return nil }
        return user + system
    }

    /// The second field of statm: resident pages.
    static func residentPages(statm: String) -> UInt64? {
        let fields = statm.split(whereSeparator: \.isWhitespace)
        return fields.count > 1 ? UInt64(fields[1]) : nil
    }
}
