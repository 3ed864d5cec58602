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

/// The host's own process as every Prometheus client library reports its process (the Go and
/// Python clients' `process_*` metrics): CPU time, memory, descriptors and start time, from
/// /proc/self and getrlimit. swift-prometheus 2 has no such collector.
struct HostProcessUsage: Equatable {
    var cpuSeconds: Double
    var residentBytes: UInt64
    var virtualBytes: UInt64
    /// Since the Unix epoch.
    var startTimeSeconds: Double
    var openDescriptors: Int
    /// RLIMIT_NOFILE's soft limit; nil when unlimited.
    var maximumDescriptors: UInt64?

    /// Nil when /proc/self cannot be read as expected.
    static func read() -> HostProcessUsage? {
        guard let stat = try? String(contentsOfFile: "/proc/self/stat", encoding: .utf8),
            let system = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
            let fields = statFields(stat), let bootTime = bootTime(system)
        else { return nil }
        let perSecond = Double(sysconf(Int32(_SC_CLK_TCK)))
        let pageSize = UInt64(sysconf(Int32(_SC_PAGESIZE)))
        var limit = rlimit()
        let maximum: UInt64? =
            getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 && limit.rlim_cur != rlim_t.max
            ? UInt64(limit.rlim_cur) : nil
        return HostProcessUsage(
            cpuSeconds: Double(fields.cpuTicks) / perSecond, residentBytes: fields.residentPages * pageSize,
            virtualBytes: fields.virtualBytes,
            startTimeSeconds: Double(bootTime) + Double(fields.startTicks) / perSecond,
            openDescriptors: openDescriptors(), maximumDescriptors: maximum)
    }

    /// From a stat line: utime + stime (fields 14 and 15), starttime (22, in clock ticks since
    /// boot), vsize (23, bytes) and rss (24, pages); counted after the last ")", as
    /// `ProcessUsage.cpuTicks` does.
    static func statFields(
        _ stat: String
    ) -> (cpuTicks: UInt64, startTicks: UInt64, virtualBytes: UInt64, residentPages: UInt64)? {
        guard let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 21, let user = UInt64(fields[11]), let system = UInt64(fields[12]),
            let start = UInt64(fields[19]), let virtual = UInt64(fields[20]), let resident = Int64(fields[21])
        else { return nil }
        return (user + system, start, virtual, UInt64(max(0, resident)))
    }

    /// `btime` of /proc/stat: when the machine booted, in seconds since the epoch.
    static func bootTime(_ system: String) -> UInt64? {
        for line in system.split(separator: "\n") where line.hasPrefix("btime ") {
            return UInt64(line.dropFirst(6).trimmingCharacters(in: .whitespaces))
        }
        return nil
    }

    /// The entries of /proc/self/fd, the descriptor that reads it included, as the Go client counts.
    static func openDescriptors() -> Int {
        guard let directory = opendir("/proc/self/fd") else { return 0 }
        defer { closedir(directory) }
        var count = 0
        while let entry = readdir(directory) {
            let dot = withUnsafeBytes(of: entry.pointee.d_name) { $0.first == UInt8(ascii: ".") }
            if !dot { count += 1 }
        }
        return count
    }
}
