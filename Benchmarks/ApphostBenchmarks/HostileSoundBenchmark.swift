import Foundation
import Glibc

/// Healthy sound sessions beside hostile guests (issue 34, point 9): the built `apphost launch
/// --json --isolation process --audio-output null` (48 kHz, 2 channels, 480 frames: 10 ms) with
/// `healthy` copies of sdk/examples/tone.c, alone, then the same with the seven kinds of
/// Benchmarks/Guests/hostile_guest.c beside them (a render that spins past its period, one that
/// blocks, one that crashes, rendering flapped, the session flapped, a main queue that spins, two
/// threads that spin), windows alternating in one run, each in a fresh host. In each window, once
/// every healthy session's meter shows frames, two readings of `ctl audio --json` `seconds` apart
/// give each healthy session's xruns, the mixer's periods and overruns; the host's `audio-xrun`
/// events (one a second for each session that missed periods) give the most periods a healthy
/// session missed in one second, the dropout; /proc gives the host process's CPU. With `load`,
/// as many busy processes at nice 0 run through every window, alone and beside alike.
struct HostileSoundBenchmark: AudioReadingBenchmark {
    let apphost: String
    let directory: URL
    let healthy: [String]
    let hostile: [(kind: String, path: String)]
    let seconds: Double

    struct Window {
        var beside = false
        var seconds = 0.0
        var periods: UInt64 = 0
        var overruns: UInt64 = 0
        var mixerCPUSeconds = 0.0
        var hostCPUSeconds = 0.0
        /// Each healthy session's xruns over the window.
        var xruns: [UInt64] = []
        /// The most xruns one healthy session had in one of the host's meter seconds.
        var worstSecond: UInt64 = 0
        /// Healthy sessions asked for every period of the window (not suspended, not interrupted).
        var playing = 0
        /// Hostile guests still running at the end of the window.
        var hostileLeft = 0
        /// What the host said of the hostile guests from their launch: `terminated`, `throttled`,
        /// `watchdog` and `audio-demoted` events.
        var hostileEvents: [String] = []
    }

    func window(_ index: Int, beside: Bool) throws -> Window {
        let dataDirectory = directory.appendingPathComponent("hostile-\(index)")
        let events = dataDirectory.appendingPathComponent("events.jsonl")
        let host = try BuiltHost(
            apphost: apphost, dataDirectory: dataDirectory,
            arguments: [
                "--json", "--isolation", "process", "--audio-output", "null", "--audio-rate", "48000",
                "--audio-channels", "2", "--audio-period", "480",
            ] + healthy + (beside ? hostile.map(\.path) : []), events: events)
        defer { host.stop() }
        let healthyIds = Set((0..<healthy.count).map { "bench.tone.\($0)" })

        _ = try waitFor(
            seconds: 120, "all \(healthy.count) healthy sessions to render (see \(host.log.path))", dataDirectory
        ) {
            $0.sessions.filter { healthyIds.contains($0.guest) && ($0.session.meter?.framesRendered ?? 0) > 0 }.count
                == healthyIds.count
        }
        if beside { Thread.sleep(forTimeInterval: 1) }  // the hostile ones started misbehaving too

        let pid = host.process.processIdentifier
        let cpuFrom = Self.cpuTicks(pid)
        let startAt = monotonicNanoseconds()
        let firstAt = Date()
        let first = try reading(dataDirectory)
        Thread.sleep(forTimeInterval: seconds)
        let last = try reading(dataDirectory)
        let lastAt = Date()
        var result = Window()
        result.beside = beside
        result.seconds = (monotonicNanoseconds() - startAt) / 1e9
        result.hostCPUSeconds = Double(Self.cpuTicks(pid) - cpuFrom) / Double(sysconf(Int32(_SC_CLK_TCK)))
        guard let before = first.host?.mixer, let after = last.host?.mixer else {
            throw BenchmarkFailure("ctl audio shows no mixer")
        }
        result.periods = after.periods - before.periods
        result.overruns = after.overruns - before.overruns
        result.mixerCPUSeconds = after.cpuSeconds - before.cpuSeconds
        let earlier = Dictionary(
            first.sessions.compactMap { session in session.session.meter.map { (session.guest, $0) } },
            uniquingKeysWith: { a, _ in a })
        for session in last.sessions where healthyIds.contains(session.guest) {
            guard let meter = session.session.meter, let from = earlier[session.guest] else {
                throw BenchmarkFailure("the healthy session of \(session.guest) stopped (see \(host.log.path))")
            }
            result.xruns.append(meter.xruns - from.xruns)
            // Asked for every period of the window (rendered or missed): it played throughout.
            if (meter.framesRendered - from.framesRendered) / 480 + meter.xruns - from.xruns + 2 >= result.periods {
                result.playing += 1
            }
        }
        result.hostileLeft = last.sessions.filter { $0.guest.hasPrefix("org.apphost.bench.hostile") }.count

        // The events: the meter seconds that ended within the window (by the events' own time,
        // as the host's standard output may reach the file late), and the hostile guests' from
        // their launch.
        host.stop()
        let data = (try? Data(contentsOf: events)) ?? Data()
        let times = ISO8601DateFormatter()
        times.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        for line in data.split(separator: UInt8(ascii: "\n")) {
            guard let event = try? JSONDecoder().decode(EventLine.self, from: Data(line)) else { continue }
            let time = event.time.flatMap { times.date(from: $0) }
            if let time, time > firstAt.addingTimeInterval(1), time <= lastAt, event.event == "audio-xrun",
                let guest = event.guest, healthyIds.contains(guest),
                let count = event.name.flatMap({ UInt64($0) })
            {
                result.worstSecond = max(result.worstSecond, count)
            }
            if let guest = event.guest, guest.hasPrefix("org.apphost.bench.hostile"),
                time.map({ $0 <= lastAt }) ?? true,
                ["terminated", "throttled", "watchdog", "audio-demoted"].contains(event.event)
            {
                let kind = Int(guest.dropFirst("org.apphost.bench.hostile".count)).map { hostile[$0 - 1].kind } ?? guest
                result.hostileEvents.append("\(kind): \(event.event) \(event.reason ?? event.name ?? "")")
            }
        }
        return result
    }

    private struct EventLine: Decodable {
        var event: String
        var time: String?
        var guest: String?
        var name: String?
        var reason: String?
    }

    /// utime + stime of `pid`, in clock ticks (/proc/<pid>/stat, fields 14 and 15).
    static func cpuTicks(_ pid: pid_t) -> Int {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return 0 }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Int(fields[11]), let system = Int(fields[12]) else { return 0 }
        return user + system
    }
}

/// `load` busy processes at nice 0, as `stress --cpu` runs them, until `stop`.
final class CPUBurners {
    private var processes: [Process] = []

    init(_ count: Int) throws {
        for _ in 0..<count {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "while :; do :; done"]
            try process.run()
            processes.append(process)
        }
    }

    func stop() {
        for process in processes where process.isRunning { kill(process.processIdentifier, SIGKILL) }
        for process in processes { process.waitUntilExit() }
        processes = []
    }
}

/// `pairs` pairs of windows, `seconds` each: the healthy sessions alone, then beside the hostile
/// guests, each in a fresh host; with `load` busy processes through all of them.
func runHostileSoundBenchmark(
    seconds: Int, healthy: Int = 20, pairs: Int = 2, load: Int, guests: GuestBuilds, scratch: URL
) throws {
    let benchmark = HostileSoundBenchmark(
        apphost: try apphostExecutable(), directory: scratch, healthy: try guests.tones(healthy, backgroundAudio: true),
        hostile: try guests.hostileGuests(), seconds: Double(seconds))
    var loadText = "no load added"
    if load > 0 { loadText = "\(load) busy processes at nice 0" }
    print(
        "\(healthy) healthy sessions (tone.c, 480 frames: 10 ms), alone and beside \(benchmark.hostile.count) hostile "
            + "guests, \(pairs) pairs of \(seconds) s windows, \(loadText)")
    let burners = try CPUBurners(load)
    defer { burners.stop() }

    var windows: [HostileSoundBenchmark.Window] = []
    for pair in 0..<pairs {
        for beside in [false, true] {
            let window = try benchmark.window(pair * 2 + (beside ? 1 : 0), beside: beside)
            windows.append(window)
            describe(window)
            for line in Set(window.hostileEvents).sorted() { print("    \(line)") }
        }
    }
    let alone = windows.filter { !$0.beside }.flatMap(\.xruns)
    let beside = windows.filter(\.beside).flatMap(\.xruns)
    let aloneMean = Double(alone.reduce(0, +)) / Double(max(alone.count, 1))
    let besideMean = Double(beside.reduce(0, +)) / Double(max(beside.count, 1))
    print(
        String(
            format: "healthy session's xruns, mean over the windows: %.2f alone, %.2f beside (difference %.2f, "
                + "%.2f a minute)  target: difference near 0",
            aloneMean, besideMean, besideMean - aloneMean, (besideMean - aloneMean) * 60 / Double(seconds)))
}

private func describe(_ window: HostileSoundBenchmark.Window) {
    let sorted = window.xruns.sorted()
    let name = window.beside ? "beside hostile" : "alone"
    print(
        String(
            format:
                "  %-15@ %d playing; xruns per healthy session: sum %llu, max %llu, median %llu, min %llu; "
                + "worst second %llu periods (%.0f ms); %llu overruns in %llu periods; "
                + "host CPU %.1f%%, mixer %.2f%% of a core (%.1f s)%@",
            name as NSString, window.playing, sorted.reduce(0, +), sorted.last ?? 0,
            sorted.isEmpty ? 0 : sorted[sorted.count / 2],
            sorted.first ?? 0, window.worstSecond, Double(window.worstSecond) * 10, window.overruns, window.periods,
            window.hostCPUSeconds / window.seconds * 100, window.mixerCPUSeconds / window.seconds * 100,
            window.seconds,
            (window.beside ? "; \(window.hostileLeft) hostile sessions left" : "") as NSString))
}
