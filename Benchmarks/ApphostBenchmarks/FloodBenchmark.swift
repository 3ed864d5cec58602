import Foundation

// A guest that flaps its audio session (Plugins/Fixtures/audio_flapping_guest.c: activate,
// deactivate, in a tight loop on a thread of its own) beside the C sample, against a host with
// the C sample alone, in each isolation mode, with `--worker-nice 0` and no automatic suspension
// (a suspended worker is frozen, and floods no more) (CONTRACT X2, X7): the built
// apphost's RSS over `seconds`, the CPU it used, `apphost ctl ps`'s latency sampled every 250 ms
// (as an operator runs it, a process each time, killed after 10 s), and how long SIGTERM took.

struct FloodFigures {
    var rssStartKiB = 0
    var rssEndKiB = 0
    var rssMostKiB = 0
    /// `ctl ps` round trips that answered, in nanoseconds, and those killed after 10 s.
    var ps: [Double] = []
    var psTimeouts = 0
    /// The host's user and system time over the window, as a share of one core.
    var cpuShare = 0.0
    /// Seconds from SIGTERM to exit, and the status; nil when it had not exited after 10 s.
    var exit: (seconds: Double, status: Int32)?
    /// When the host said the guest was throttled, and when it was terminated, from its launch.
    var throttledAt: Double?
    var stoppedAt: Double?

    var rssGrowthKiBPerSecond: Double = 0
}

struct FloodBenchmark {
    let apphost: String
    let guests: [String]
    let isolation: String
    let dataDirectory: URL
    let seconds: Int

    func run() throws -> FloodFigures {
        try FileManager.default.createDirectory(at: dataDirectory, withIntermediateDirectories: true)
        let events = dataDirectory.appendingPathComponent("events.jsonl")
        _ = FileManager.default.createFile(atPath: events.path, contents: nil)
        let log = dataDirectory.appendingPathComponent("host.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: apphost)
        process.arguments =
            [
                "launch", "--json", "--isolation", isolation, "--worker-nice", "0", "--suspend-delay", "3600",
                "--data-dir", dataDirectory.path,
            ]
            + guests
        process.standardOutput = try FileHandle(forWritingTo: events)
        process.standardError = try FileHandle(forWritingTo: log)
        let launched = monotonicNanoseconds()
        try process.run()
        let pid = process.processIdentifier
        defer { if process.isRunning { kill(pid, SIGKILL) } }

        // Until the host answers at all (a flooded host may not, which is what is measured).
        let readyBy = monotonicNanoseconds() + 10e9
        while monotonicNanoseconds() < readyBy, ps().latency == nil { Thread.sleep(forTimeInterval: 0.05) }

        var figures = FloodFigures()
        figures.rssStartKiB = ProcessMemory(pid: pid).rssKiB
        let cpuStart = Self.cpuTicks(pid)
        let start = monotonicNanoseconds()
        let end = start + Double(seconds) * 1e9
        while monotonicNanoseconds() < end {
            let sampled = monotonicNanoseconds()
            let answer = ps()
            if let latency = answer.latency {
                figures.ps.append(latency)
            } else if answer.timedOut {
                figures.psTimeouts += 1
            }
            figures.rssMostKiB = max(figures.rssMostKiB, ProcessMemory(pid: pid).rssKiB)
            let next = sampled + 0.25e9
            if next > monotonicNanoseconds() { Thread.sleep(forTimeInterval: (next - monotonicNanoseconds()) / 1e9) }
        }
        let elapsed = (monotonicNanoseconds() - start) / 1e9
        figures.rssEndKiB = ProcessMemory(pid: pid).rssKiB
        figures.rssMostKiB = max(figures.rssMostKiB, figures.rssEndKiB)
        figures.rssGrowthKiBPerSecond = Double(figures.rssEndKiB - figures.rssStartKiB) / elapsed
        figures.cpuShare = Double(Self.cpuTicks(pid) - cpuStart) / Double(sysconf(Int32(_SC_CLK_TCK))) / elapsed

        let stopping = monotonicNanoseconds()
        kill(pid, SIGTERM)
        while process.isRunning && monotonicNanoseconds() < stopping + 10e9 { Thread.sleep(forTimeInterval: 0.01) }
        if !process.isRunning {
            figures.exit = ((monotonicNanoseconds() - stopping) / 1e9, process.terminationStatus)
        }
        (figures.throttledAt, figures.stoppedAt) = Self.floodEvents(in: events, launched: launched)
        return figures
    }

    /// One `apphost ctl ps`: its latency, or whether it was killed after 10 s.
    private func ps() -> (latency: Double?, timedOut: Bool) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: apphost)
        process.arguments = ["ctl", "ps", "--data-dir", dataDirectory.path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        let start = monotonicNanoseconds()
        guard (try? process.run()) != nil else { return (nil, false) }
        let deadline = start + 10e9
        while process.isRunning && monotonicNanoseconds() < deadline { usleep(1_000) }
        guard !process.isRunning else {
            process.terminate()
            process.waitUntilExit()
            return (nil, true)
        }
        return process.terminationStatus == 0 ? (monotonicNanoseconds() - start, false) : (nil, false)
    }

    /// utime + stime of `pid`, in clock ticks (/proc/<pid>/stat, fields 14 and 15).
    private static func cpuTicks(_ pid: pid_t) -> Int {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return 0 }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // After the name: state is field 3, so utime (14) and stime (15) are at 11 and 12.
        guard fields.count > 12, let user = Int(fields[11]), let system = Int(fields[12]) else { return 0 }
        return user + system
    }

    /// When the first `throttled` and `terminated (flooding)` events came, in seconds from the
    /// launch (the events carry wall-clock times: the first event's marks the launch).
    private static func floodEvents(in file: URL, launched: Double) -> (Double?, Double?) {
        guard let handle = try? FileHandle(forReadingFrom: file) else { return (nil, nil) }
        defer { try? handle.close() }
        var first: Date?
        var throttled: Date?
        var stopped: Date?
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        // Only the lines that matter are decoded: a flood writes many.
        var partial = Data()
        while let chunk = try? handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            partial.append(chunk)
            while let newline = partial.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: partial[partial.startIndex..<newline], as: UTF8.self)
                partial.removeSubrange(partial.startIndex...newline)
                let time = { () -> Date? in
                    guard let range = line.range(of: #""time":"([^"]+)""#, options: .regularExpression) else {
                        return nil
                    }
                    return formatter.date(from: String(line[range].dropFirst(8).dropLast()))
                }
                if first == nil { first = time() }
                if throttled == nil, line.contains(#""event":"throttled""#) { throttled = time() }
                if stopped == nil, line.contains(#""event":"terminated""#), line.contains(#""reason":"flooding""#) {
                    stopped = time()
                }
            }
        }
        guard let first else { return (nil, nil) }
        return (throttled.map { $0.timeIntervalSince(first) }, stopped.map { $0.timeIntervalSince(first) })
    }
}

func runFloodBenchmark(seconds: Int, guests: GuestBuilds, scratch: URL) throws {
    let apphost = try apphostExecutable()
    let flapping = try guests.audioFlapping()
    for isolation in ["process", "none"] {
        for (name, paths) in [
            ("idle host (the C sample)", [guests.sample]), ("flapping guest beside it", [guests.sample, flapping]),
        ] {
            let directory = scratch.appendingPathComponent("flood-\(isolation)-\(paths.count)")
            let figures = try FloodBenchmark(
                apphost: apphost, guests: paths, isolation: isolation, dataDirectory: directory, seconds: seconds
            ).run()
            print("--isolation \(isolation), \(name), --worker-nice 0, \(seconds) s:")
            print(
                String(
                    format: "  host RSS %.1f -> %.1f MiB (most %.1f), %+.0f KiB/s; host CPU %.0f%% of a core",
                    Double(figures.rssStartKiB) / 1024, Double(figures.rssEndKiB) / 1024,
                    Double(figures.rssMostKiB) / 1024, figures.rssGrowthKiBPerSecond, figures.cpuShare * 100))
            if figures.ps.isEmpty {
                print("  ctl ps: no answer (\(figures.psTimeouts) killed after 10 s)")
            } else {
                Report.print("  ctl ps (a process each, every 250 ms)", Samples(figures.ps))
                if figures.psTimeouts > 0 { print("  ctl ps: \(figures.psTimeouts) killed after 10 s") }
            }
            let exit = figures.exit.map { String(format: "exit %d after %.2f s", $0.status, $0.seconds) }
            print("  SIGTERM: \(exit ?? "still running after 10 s, killed")")
            if paths.count > 1 {
                let at = { (time: Double?) in time.map { String(format: "%.1f s", $0) } ?? "never" }
                print("  throttled at \(at(figures.throttledAt)), terminated (flooding) at \(at(figures.stoppedAt))")
            }
        }
    }
    print("target: RSS flat, ctl ps under 100 ms (p99) with the flapping guest, as beside the idle host")
}
