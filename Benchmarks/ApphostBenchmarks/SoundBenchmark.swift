import Foundation
import Glibc

/// Many sound sessions at once (issue 5 of 8, C13), driven as an operator drives the host: the
/// built `apphost launch --audio-output null` (next to this executable) with copies of
/// sdk/examples/tone.c, each in a worker of its own (`--isolation process`), read through
/// `apphost ctl audio --json`. Once every session's meter shows frames (all streams open and
/// mixed, so that launch is not measured), two readings `seconds` apart give, over that window:
/// the periods the mixer ran, its overruns, its thread's CPU time as a share of one core, and the
/// xruns of every session. Then every guest is terminated (`ctl terminate`), and once no stream is
/// left, the same mixer thread of the same host is measured over as long a window with no session
/// at all: the baseline, so that the cost per session shows.
struct SoundSessionsBenchmark: AudioReadingBenchmark {
    let apphost: String
    let directory: URL

    /// One window between two readings of `ctl audio --json`.
    struct Window {
        var sessions = 0
        var seconds = 0.0
        var periods: UInt64 = 0
        var overruns: UInt64 = 0
        var cpuSeconds = 0.0
        var xruns: UInt64 = 0
        var realtime = false
        /// Since the host started (the host keeps only the largest): launch included.
        var lateMaxMilliseconds = 0.0

        var cpuPercent: Double { cpuSeconds / seconds * 100 }
    }

    struct Result {
        let withSessions: Window
        let baseline: Window
    }

    func run(tones: [String], periodFrames: Int, seconds: Double) throws -> Result {
        let dataDirectory = directory.appendingPathComponent("sound-\(tones.count)-\(periodFrames)")
        let host = try BuiltHost(
            apphost: apphost, dataDirectory: dataDirectory,
            arguments: [
                "--isolation", "process", "--audio-output", "null", "--audio-rate", "48000", "--audio-channels", "2",
                "--audio-period", "\(periodFrames)",
            ] + tones)
        defer { host.stop() }
        let log = host.log

        // Every stream open and mixed: each session's meter shows frames.
        _ = try waitFor(seconds: 120, "all \(tones.count) sessions to render (see \(log.path))", dataDirectory) {
            $0.sessions.filter { ($0.session.meter?.framesRendered ?? 0) > 0 }.count == tones.count
        }
        let withSessions = try window(seconds: seconds, dataDirectory)

        let ids = try reading(dataDirectory).sessions.map(\.guest)
        for id in ids { try ctl(["terminate", id], dataDirectory) }
        _ = try waitFor(seconds: 60, "every guest to end", dataDirectory) {
            $0.sessions.allSatisfy { $0.session.meter == nil }
        }
        Thread.sleep(forTimeInterval: 1)  // the workers' exits, the host's reaping
        let baseline = try window(seconds: seconds, dataDirectory)
        return Result(withSessions: withSessions, baseline: baseline)
    }

    private func window(seconds: Double, _ dataDirectory: URL) throws -> Window {
        let (first, firstAt) = try timedReading(dataDirectory)
        Thread.sleep(forTimeInterval: seconds)
        let (last, lastAt) = try timedReading(dataDirectory)
        guard let before = first.host?.mixer, let after = last.host?.mixer else {
            throw BenchmarkFailure("ctl audio shows no mixer")
        }
        var window = Window()
        window.seconds = (lastAt - firstAt) / 1e9
        window.periods = after.periods - before.periods
        window.overruns = after.overruns - before.overruns
        window.cpuSeconds = after.cpuSeconds - before.cpuSeconds
        window.realtime = after.realtime
        window.lateMaxMilliseconds = after.lateMaxMilliseconds
        let xrunsBefore = Dictionary(
            first.sessions.compactMap { session in session.session.meter.map { (session.guest, $0.xruns) } },
            uniquingKeysWith: { a, _ in a })
        for session in last.sessions {
            guard let meter = session.session.meter, let earlier = xrunsBefore[session.guest] else { continue }
            window.sessions += 1
            window.xruns += meter.xruns - earlier
        }
        return window
    }

}

/// What the benchmark reads of `ctl audio --json`.
struct AudioReading: Decodable {
    var host: Host?
    var sessions: [Session]

    struct Host: Decodable {
        var mixer: Mixer?
    }

    struct Mixer: Decodable {
        var periods: UInt64
        var overruns: UInt64
        var cpuSeconds: Double
        var realtime: Bool
        var lateMaxMilliseconds: Double
        var latencyMilliseconds: Double
    }

    struct Session: Decodable {
        var guest: String
        var session: Status
    }

    struct Status: Decodable {
        var meter: Meter?
    }

    struct Meter: Decodable {
        var framesRendered: UInt64
        var xruns: UInt64
    }
}

/// The `apphost` executable built beside this one (`swift build -c release` builds both).
func apphostExecutable() throws -> String {
    let path = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        .deletingLastPathComponent().appendingPathComponent("apphost").path
    guard FileManager.default.isExecutableFile(atPath: path) else {
        throw BenchmarkFailure("no apphost beside this benchmark (\(path)): build the whole package")
    }
    return path
}

/// The sound benchmarks: 64 sessions at 480 frames and 16 at 128, each beside the same mixer with
/// none, `seconds` each; the measured output latency over `seconds`; and where wake-to-render is.
func runSoundBenchmarks(seconds: Int, guests: GuestBuilds, scratch: URL) throws {
    let benchmark = SoundSessionsBenchmark(apphost: try apphostExecutable(), directory: scratch)
    // All but the first launch into background: they declare background audio, to be heard there (B9).
    let tones = try guests.tones(64, backgroundAudio: true)

    func describe(_ name: String, _ window: SoundSessionsBenchmark.Window, target: String) {
        print(
            String(
                format:
                    "%-44@ mixer CPU %.2f%% of a core, %llu overruns, %llu xruns in %llu periods (%.1f s)  target: %@",
                name as NSString, window.cpuPercent, window.overruns, window.xruns, window.periods, window.seconds,
                target as NSString))
    }

    let many = try benchmark.run(tones: tones, periodFrames: 480, seconds: Double(seconds))
    describe(
        "\(many.withSessions.sessions) sessions, 480 frames (10 ms), 48 kHz 2 ch", many.withSessions,
        target: "0 xruns, CPU <= 5%")
    describe("  the same mixer, 0 sessions", many.baseline, target: "baseline")
    print(
        String(
            format:
                "  per session: %.3f%% of a core; mixer %@, its latest wake %.2f ms after a deadline (launch included)",
            (many.withSessions.cpuPercent - many.baseline.cpuPercent) / Double(max(many.withSessions.sessions, 1)),
            many.withSessions.realtime ? "real-time" : "not real-time", many.withSessions.lateMaxMilliseconds))

    let short = try benchmark.run(tones: Array(tones.prefix(16)), periodFrames: 128, seconds: Double(seconds))
    let sessionPeriods = Double(short.withSessions.periods) * Double(short.withSessions.sessions)
    describe(
        "\(short.withSessions.sessions) sessions, 128 frames (2.7 ms)", short.withSessions,
        target: "xruns per 10,000 periods reported")
    describe("  the same mixer, 0 sessions", short.baseline, target: "baseline")
    print(
        String(
            format: "  xruns per 10,000 periods: %.2f of the sessions', %.2f of the mixer's; "
                + "its latest wake %.2f ms late (launch included)",
            sessionPeriods > 0 ? Double(short.withSessions.xruns) / sessionPeriods * 10_000 : .nan,
            short.withSessions.periods > 0
                ? Double(short.withSessions.xruns) / Double(short.withSessions.periods) * 10_000 : .nan,
            short.withSessions.lateMaxMilliseconds))
    print("")

    try runLatencyBenchmark(seconds: seconds, guests: guests)
}
