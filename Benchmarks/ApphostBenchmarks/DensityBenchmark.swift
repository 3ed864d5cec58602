import ApphostControl
import ApphostLimits
import Foundation

// Density (issue 19): one `apphost launch` of thousands of copies of sdk/examples/minimal.c,
// each with an id of its own, as an operator starts them; most are suspended a second after they
// launch (B6). Beside the same host with 10, for what should not depend on how many run.

/// What one host of `count` guests gave.
struct DensityFigures {
    var asked: Int
    var launched = 0
    var launchSeconds = 0.0
    /// The first refusal the host printed, if it could not launch them all.
    var refusal: String?
    var residentKiB = 0
    /// Share of one core the host used over the idle window.
    var idleCPU = 0.0
    var threads = 0
    var psNanoseconds = Samples([])
    var psBytes = 0
    var switchNanoseconds = Samples([])
    var resumeNanoseconds = Samples([])
    var stopSeconds = 0.0
}

struct DensityBenchmark {
    let apphost: String
    let guestPaths: [String]
    let directory: URL

    func run(name: String) throws -> DensityFigures {
        let dataDirectory = directory.appendingPathComponent(name)
        var figures = DensityFigures(asked: guestPaths.count)
        let start = monotonicNanoseconds()
        let host = try BuiltHost(apphost: apphost, dataDirectory: dataDirectory, arguments: guestPaths)
        defer { host.stop() }
        let socketPath = dataDirectory.appendingPathComponent("control.sock").path
        let ps = Array(#"{"command":"ps"}"#.utf8) + [10]

        // Launched: every guest running, or refused (the host says so on stderr, one line each).
        let deadline = monotonicNanoseconds() + 900e9
        var suspended = 0
        while true {
            usleep(500_000)
            let refused = Self.refusals(in: host.log)
            if let reply = try? ControlSocket(path: socketPath).reply(to: ps) {
                figures.launched = Self.count(#""phase":"running""#, in: reply)
                suspended = Self.count(#""suspension":"#, in: reply)
                if figures.launched + refused.count >= guestPaths.count {
                    figures.launchSeconds = (monotonicNanoseconds() - start) / 1e9
                    figures.refusal = refused.first
                    break
                }
            }
            guard monotonicNanoseconds() < deadline else {
                throw BenchmarkFailure("\(name): not all launched within 900 s (see \(host.log.path))")
            }
        }
        // Idle: all but the foreground guest suspended (a second after each went to background).
        let idleDeadline = monotonicNanoseconds() + 120e9
        while suspended < figures.launched - 1, monotonicNanoseconds() < idleDeadline {
            usleep(500_000)
            if let reply = try? ControlSocket(path: socketPath).reply(to: ps) {
                suspended = Self.count(#""suspension":"#, in: reply)
            }
        }
        sleep(2)
        let pid = host.process.processIdentifier
        let before = ProcessTimes.cpuTicks(pid)
        let window = 5.0
        usleep(UInt32(window * 1e6))
        figures.idleCPU = Double(ProcessTimes.cpuTicks(pid) - before) / Double(sysconf(Int32(_SC_CLK_TCK))) / window
        figures.residentKiB = ProcessMemory(pid: pid).rssKiB
        figures.threads = ProcessTimes.threads(pid)

        let socket = try ControlSocket(path: socketPath)
        var psTimes: [Double] = []
        for _ in 0..<5 {
            let begin = monotonicNanoseconds()
            guard let length = socket.roundTrip(ps) else { throw BenchmarkFailure("\(name): ps failed") }
            psTimes.append(monotonicNanoseconds() - begin)
            figures.psBytes = length
        }
        figures.psNanoseconds = Samples(psTimes)

        // A switch between two guests back and forth: each stays running, as the other comes back
        // within the second it would take to be suspended.
        let switches = [Self.id(0), Self.id(1)].map { Array(#"{"command":"switch","guest":"\#($0)"}"#.utf8) + [10] }
        var switchTimes: [Double] = []
        for index in 0..<220 {
            let begin = monotonicNanoseconds()
            guard let reply = socket.reply(to: switches[index % 2]), ControlReply.succeeded(reply) else {
                throw BenchmarkFailure("\(name): a switch failed (see \(host.log.path))")
            }
            if index >= 20 { switchTimes.append(monotonicNanoseconds() - begin) }
        }
        figures.switchNanoseconds = Samples(switchTimes)

        // Resume of suspended guests, one request after the other (each answered once thawed).
        var resumeTimes: [Double] = []
        for index in 2..<min(102, figures.launched) {
            let request = Array(#"{"command":"resume","guest":"\#(Self.id(index))"}"#.utf8) + [10]
            let begin = monotonicNanoseconds()
            guard let reply = socket.reply(to: request), ControlReply.succeeded(reply) else {
                throw BenchmarkFailure("\(name): resume of \(Self.id(index)) failed (see \(host.log.path))")
            }
            resumeTimes.append(monotonicNanoseconds() - begin)
        }
        figures.resumeNanoseconds = Samples(resumeTimes)

        let stopping = monotonicNanoseconds()
        host.stop()
        figures.stopSeconds = (monotonicNanoseconds() - stopping) / 1e9
        return figures
    }

    /// The id of copy `index`: as long as minimal.c's own, so that the copy is the same library
    /// with one string changed.
    static func id(_ index: Int) -> String { String(format: "org.example.m%06d", index) }

    /// `count` copies of the built minimal guest in `directory`, each with its id replaced: as
    /// many compilations of minimal.c would take some 40 s a thousand here.
    static func copies(of minimal: String, count: Int, into directory: URL) throws -> [String] {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let library = try Data(contentsOf: URL(fileURLWithPath: minimal))
        let original = Data("org.example.minimal".utf8)
        guard let range = library.range(of: original), library[range.upperBound...].range(of: original) == nil else {
            throw BenchmarkFailure("\(minimal) does not hold its id once")
        }
        return try (0..<count).map { index in
            var copy = library
            copy.replaceSubrange(range, with: Data(id(index).utf8))
            let path = directory.appendingPathComponent("m\(index).so")
            try copy.write(to: path)
            return path.path
        }
    }

    /// The host's one-line refusals of a launch, from its log.
    private static func refusals(in log: URL) -> [String] {
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").filter { $0.contains("worker process failed") }.map(String.init)
    }

    private static func count(_ needle: String, in text: String) -> Int {
        text.components(separatedBy: needle).count - 1
    }
}

/// What /proc says of a process's time and threads.
enum ProcessTimes {
    /// User and system time, in clock ticks.
    static func cpuTicks(_ pid: pid_t) -> Int {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let end = stat.lastIndex(of: ")")
        else { return 0 }
        // After the name: state is field 3, utime 14 and stime 15.
        let fields = stat[stat.index(after: end)...].split(separator: " ")
        return (Int(fields[11]) ?? 0) + (Int(fields[12]) ?? 0)
    }

    static func threads(_ pid: pid_t) -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task").count) ?? 0
    }
}

/// `apphost-benchmarks [guests] density`: the host of many beside the host of 10.
func runDensityBenchmark(count requested: Int?, guests: GuestBuilds, scratch: URL) throws {
    // As many as this host's descriptor limit holds (and a few more, to show the refusal), up to
    // 10,000: four descriptors a guest, and the reserve the host keeps.
    var limit = rlimit()
    getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    let soft = Int(min(limit.rlim_max, rlim_t(Int32.max)))
    let capacity = (soft - HostDescriptorLimit.reserve(of: soft)) / HostDescriptorLimit.perGuest
    let count = requested ?? min(10_000, capacity + 20)
    print("density: \(count) guests asked; the open-files limit \(soft) holds about \(capacity)")
    let paths = try DensityBenchmark.copies(
        of: guests.minimal, count: count, into: scratch.appendingPathComponent("density-guests"))
    let apphost = try apphostExecutable()
    let few = try DensityBenchmark(apphost: apphost, guestPaths: Array(paths.prefix(10)), directory: scratch)
        .run(name: "density-10")
    let many = try DensityBenchmark(apphost: apphost, guestPaths: paths, directory: scratch).run(name: "density-many")
    for (label, figures) in [("\(many.asked) asked", many), ("10", few)] {
        print(
            String(
                format: "%@: launched %d in %.1f s; idle host RSS %.1f MB, CPU %.2f%% of a core, %d threads",
                label, figures.launched, figures.launchSeconds, Double(figures.residentKiB) / 1024,
                figures.idleCPU * 100, figures.threads))
    }
    if let refusal = many.refusal { print("  the first refusal: \(refusal)") }
    Report.print("ps, \(many.launched) guests (\(many.psBytes / 1024) KiB)", many.psNanoseconds)
    Report.print("ps, 10 guests (\(few.psBytes / 1024) KiB)", few.psNanoseconds)
    Report.print("switch, \(many.launched) loaded", many.switchNanoseconds)
    Report.print("switch, 10 loaded", few.switchNanoseconds)
    Report.ratio(
        "switch: \(many.launched) / 10 loaded (median)", many.switchNanoseconds.median / few.switchNanoseconds.median,
        target: "<= 2")
    Report.ratio(
        "switch: \(many.launched) / 10 loaded (p99)",
        many.switchNanoseconds.percentile(99) / few.switchNanoseconds.percentile(99), target: "reported")
    Report.print("resume, each of 100 of \(many.launched)", many.resumeNanoseconds)
    Report.print("resume, each of 8 of 10", few.resumeNanoseconds)
    print(
        String(
            format: "SIGTERM to exit: %.2f s with %d guests, %.2f s with 10", many.stopSeconds, many.launched,
            few.stopSeconds))
}
