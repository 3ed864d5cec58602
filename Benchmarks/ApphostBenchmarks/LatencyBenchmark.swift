import ApphostMixing
import Foundation
import Glibc

/// Output latency, as configured and as measured (issue 5 of 8, C13). Configured, it is one
/// period (mix_region.h: a period asked for at deadline N is mixed at N + 1): 10 ms at 48 kHz
/// with 480 frames. Measured here: the engine (`mix_engine_create`, real clock, 48 kHz stereo,
/// 480 frames) runs in this process with one session whose guest side is a process of its own
/// (Benchmarks/Support/latency_probe.c), which stamps each period it renders with its number and
/// the CLOCK_MONOTONIC time it finished; the engine's sink, from the same file, notes when each
/// period is written and the stamp it holds. Per period mixed:
///
/// - render finished -> written: from the stamp to the sink's write that holds that period;
/// - asked -> written: from the deadline at which the engine asked for the period to that write.
///   The engine does not publish its start, from which its deadlines are counted (start + k
///   periods); it is taken as the earliest write less its cycles' periods, which is later than
///   the true start by the quickest wake-to-write of the run (some microseconds), so these
///   figures may read that much short. A write's deadline is the latest start + k periods before
///   it (the pacer lets a period go within its period, even after overruns).
///
/// The first second is not measured (the renderer starts, maps the region, and its first periods
/// are xruns).
struct LatencyBenchmark {
    let renderer: String
    let library: String

    static let rate: UInt32 = 48_000
    static let channels: UInt32 = 2
    static let frames: UInt32 = 480
    static var periodNanoseconds: UInt64 { UInt64(frames) * 1_000_000_000 / UInt64(rate) }
    static let warmUpCycles = 100

    struct Result {
        let renderedToWritten: Samples
        let askedToWritten: Samples
        let configuredMilliseconds: Double
        /// Cycles measured, and those whose write did not hold the period due (silence: an xrun).
        let cycles: Int
        let unstamped: Int
        let overruns: UInt64
        let xruns: UInt64
        let realtime: Bool
    }

    func run(seconds: Int) throws -> Result {
        guard let handle = dlopen(library, RTLD_NOW) else {
            throw BenchmarkFailure("cannot load \(library): \(String(cString: dlerror()))")
        }
        guard let symbol = dlsym(handle, "apphost_bench_stamp_sink_open") else {
            throw BenchmarkFailure("\(library) has no apphost_bench_stamp_sink_open")
        }
        typealias Open =
            @convention(c) (
                UInt32, UInt32, UnsafeMutablePointer<UInt64>, UnsafeMutablePointer<UInt64>,
                UnsafeMutablePointer<UInt64>,
                UInt64, UnsafeMutablePointer<UInt64>
            ) -> UnsafeMutablePointer<mix_sink>?
        let openSink = unsafeBitCast(symbol, to: Open.self)

        // Room for the run and a second or two more than asked.
        let capacity = (seconds + 3) * Int(Self.rate / Self.frames)
        let written = UnsafeMutablePointer<UInt64>.allocate(capacity: capacity)
        let rendered = UnsafeMutablePointer<UInt64>.allocate(capacity: capacity)
        let periods = UnsafeMutablePointer<UInt64>.allocate(capacity: capacity)
        let count = UnsafeMutablePointer<UInt64>.allocate(capacity: 1)
        defer {
            written.deallocate()
            rendered.deallocate()
            periods.deallocate()
            count.deallocate()
        }
        guard let sink = openSink(Self.rate, Self.channels, written, rendered, periods, UInt64(capacity), count) else {
            throw BenchmarkFailure("cannot open the stamping sink")
        }

        var error = [CChar](repeating: 0, count: Int(MIX_ENGINE_ERROR_BYTES))
        var configuration = mix_engine_config()
        configuration.sample_rate = Self.rate
        configuration.channels = Self.channels
        configuration.period_frames = Self.frames
        configuration.clock = MIX_CLOCK_REAL
        configuration.capacity = 4
        configuration.sink = sink
        guard let engine = mix_engine_create(&configuration, &error, error.count) else {
            throw BenchmarkFailure("mix_engine_create: \(text(error))")
        }
        defer { mix_engine_destroy(engine) }
        guard let region = mix_region_create(Self.frames, Self.channels, 2, &error, error.count) else {
            throw BenchmarkFailure("mix_region_create: \(text(error))")
        }
        let memfd = mix_region_memfd(region)
        let wakeFD = mix_region_wake_fd(region)
        let child = try RegionBenchmark.spawn(renderer, fds: [memfd, wakeFD], arguments: ["\(memfd)", "\(wakeFD)"])
        defer {
            kill(child, SIGKILL)
            var status: Int32 = 0
            waitpid(child, &status, 0)
        }
        let slot = mix_engine_add(engine, region)
        guard slot >= 0 else {
            mix_region_close(region)
            throw BenchmarkFailure("mix_engine_add refused the region")
        }
        _ = mix_engine_set(engine, slot, true, 1, false)
        guard mix_engine_start(engine, &error, error.count) else {
            throw BenchmarkFailure("mix_engine_start: \(text(error))")
        }
        let realtime = mix_engine_realtime(engine)
        Thread.sleep(forTimeInterval: Double(seconds) + Double(Self.warmUpCycles) / 100)
        guard mix_engine_stop(engine, &error, error.count) else {
            throw BenchmarkFailure("mix_engine_stop: \(text(error))")
        }
        var output = mix_output_meter()
        mix_engine_output_meter(engine, &output)
        var meter = mix_session_meter()
        _ = mix_engine_session_meter(engine, slot, &meter)

        let cycles = Int(count.pointee)
        let period = Self.periodNanoseconds
        guard cycles > Self.warmUpCycles + 1 else { throw BenchmarkFailure("the engine wrote \(cycles) periods") }
        // The engine's start, as late as the quickest write after its deadline.
        let start = (0..<cycles).map { written[$0] - UInt64($0) * period }.min()!
        func deadline(_ time: UInt64) -> UInt64 { start + (time - start) / period * period }

        var renderedToWritten: [Double] = []
        var askedToWritten: [Double] = []
        var unstamped = 0
        for cycle in (Self.warmUpCycles + 1)..<cycles {
            // Cycle c's write holds period c - 1, stamped c (its number plus one).
            guard periods[cycle] == UInt64(cycle), rendered[cycle] != 0 else {
                unstamped += 1
                continue
            }
            renderedToWritten.append(Double(written[cycle]) - Double(rendered[cycle]))
            askedToWritten.append(Double(written[cycle] - deadline(written[cycle - 1])))
        }
        return Result(
            renderedToWritten: Samples(renderedToWritten), askedToWritten: Samples(askedToWritten),
            configuredMilliseconds: Double(period) / 1e6, cycles: cycles - Self.warmUpCycles - 1,
            unstamped: unstamped, overruns: output.overruns, xruns: meter.xruns, realtime: realtime)
    }
}

private func text(_ error: [CChar]) -> String {
    error.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
}

/// The latency benchmark, printed as the others are.
func runLatencyBenchmark(seconds: Int, guests: GuestBuilds) throws {
    let (library, renderer) = try guests.latencyProbe()
    let result = try LatencyBenchmark(renderer: renderer, library: library).run(seconds: seconds)
    print(
        String(
            format: "output latency, configured:                  %.2f ms (one period)", result.configuredMilliseconds))
    Report.print("render finished -> sink write, 10 ms period", result.renderedToWritten, target: "reported")
    Report.print("deadline it was asked at -> sink write", result.askedToWritten, target: "reported, beside 10 ms")
    print(
        "  \(result.cycles) periods measured, \(result.unstamped) not holding their render, engine overruns "
            + "\(result.overruns), session xruns \(result.xruns) (the first second's included), mixer "
            + (result.realtime ? "real-time" : "not real-time"))
}
