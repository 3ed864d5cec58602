import ApphostMixing
import Foundation
import Glibc

/// Wake-to-render latency of a session region (issue 5 of 8, C13): the host side asks a renderer
/// process for period N (`mix_region_request`: the period published, the eventfd written) and
/// spins on `mix_region_rendered` until the renderer's `mix_region_done` for N is visible: the
/// renderer's wake (ppoll on the eventfd), its render of 480 stereo frames of a sine
/// (Plugins/Fixtures/region_renderer.c, as the region tests spawn it) and the completion's way
/// back. Measured from before the request to the first load that sees N, on the host's own
/// clock (CLOCK_MONOTONIC): no clock of the other process is trusted, and the spin adds at most
/// one load of a cache line the other side has just written (some 100 ns).
///
/// Beside it in the same run, interleaved round by round, the bare wakes of another process
/// measured the same way (Benchmarks/Support/wake_pingpong.c): the host publishes a round in a
/// shared page and wakes the partner by FUTEX_WAKE (the partner sleeping in FUTEX_WAIT) or by an
/// eventfd (the partner in ppoll, as the region's renderer), and spins until the partner's
/// answer is visible: one wake and its answer, nothing rendered. And the classic futex ping-pong,
/// where the host sleeps in FUTEX_WAIT for the answer too: half its round trip.
///
/// Every round is preceded by a 1 ms pause (not the 10 ms of a real period, to keep the run
/// short), so that the other side is asleep when woken, as a renderer is between periods.
struct RegionBenchmark {
    let renderer: String
    let library: String
    let partner: String

    static let frames: UInt32 = 480  // 10 ms at 48 kHz
    static let channels: UInt32 = 2
    static let pause: useconds_t = 1_000
    /// A round not answered within this is lost (the other side died or is stuck), not measured.
    static let timeout = 1_000_000_000.0

    struct Result {
        let region: Samples
        let futex: Samples
        let eventfd: Samples
        /// Half of each sleeping futex round trip.
        let futexHalfRoundTrip: Samples
        /// Rounds of any kind not answered within `timeout`.
        let lost: Int
        /// Periods seen rendered that `mix_region_collect` then refused (it should take every one).
        let xruns: UInt64
    }

    func run(iterations: Int) throws -> Result {
        let wake = try WakeLibrary(path: library)
        var children: [pid_t] = []
        defer {
            for child in children {
                kill(child, SIGKILL)
                var status: Int32 = 0
                waitpid(child, &status, 0)
            }
        }

        var error = [CChar](repeating: 0, count: Int(MIX_REGION_ERROR_BYTES))
        guard let region = mix_region_create(Self.frames, Self.channels, 2, &error, error.count) else {
            throw BenchmarkFailure(
                "mix_region_create: \(error.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })")
        }
        defer { mix_region_close(region) }
        let memfd = mix_region_memfd(region)
        let wakeFD = mix_region_wake_fd(region)
        children.append(
            try Self.spawn(
                renderer, fds: [memfd, wakeFD], arguments: ["\(memfd)", "\(wakeFD)", "1000", "0.5", "48000"]))

        var futexFD: Int32 = -1
        var eventfdPageFD: Int32 = -1
        guard let futexPage = wake.page(&futexFD), let eventfdPage = wake.page(&eventfdPageFD) else {
            throw BenchmarkFailure("cannot make a shared page: \(String(cString: strerror(errno)))")
        }
        let partnerEventfd = wake.eventfd()
        guard partnerEventfd >= 0 else { throw BenchmarkFailure("eventfd failed") }
        defer {
            munmap(futexPage, 4096)
            munmap(eventfdPage, 4096)
            close(futexFD)
            close(eventfdPageFD)
            close(partnerEventfd)
        }
        children.append(try Self.spawn(partner, fds: [futexFD], arguments: ["\(futexFD)", "futex"]))
        children.append(
            try Self.spawn(
                partner, fds: [eventfdPageFD, partnerEventfd],
                arguments: ["\(eventfdPageFD)", "eventfd", "\(partnerEventfd)"]))

        var period: UInt64 = 0
        var futexRound: UInt32 = 0
        var eventfdRound: UInt32 = 0
        var lost = 0
        var xruns: UInt64 = 0

        func regionRound() -> Double? {
            period += 1
            let asked = period
            let took = Self.spin(
                { _ = mix_region_request(region, asked) }, until: { mix_region_rendered(region) == asked })
            // Outside the measure: the period is there for the mixer, no xrun.
            if took != nil && mix_region_collect(region, asked) == nil { xruns += 1 }
            return took
        }
        func futexRound_() -> Double? {
            futexRound += 1
            let round = futexRound
            return Self.spin({ wake.futexKick(futexPage, round) }, until: { wake.answer(futexPage) == round })
        }
        func eventfdRound_() -> Double? {
            eventfdRound += 1
            let round = eventfdRound
            return Self.spin(
                { wake.eventfdKick(eventfdPage, partnerEventfd, round) }, until: { wake.answer(eventfdPage) == round })
        }
        func sleepingFutexRound() -> Double? {
            futexRound += 1
            let round = futexRound
            let start = monotonicNanoseconds()
            wake.futexKick(futexPage, round)
            guard wake.futexAwait(futexPage, round) == 1 else { return nil }
            return (monotonicNanoseconds() - start) / 2
        }

        // The first round of each waits for its process to start (mapping, dynamic linking).
        for first in [regionRound, futexRound_, eventfdRound_] {
            let deadline = monotonicNanoseconds() + 10 * Self.timeout
            while first() == nil {
                guard monotonicNanoseconds() < deadline else { throw BenchmarkFailure("a partner did not start") }
            }
        }

        let kinds = [regionRound, futexRound_, eventfdRound_, sleepingFutexRound]
        var durations: [[Double]] = Array(repeating: [], count: kinds.count)
        // 100 rounds of each unmeasured, then `iterations` of each, the kinds in turn round by
        // round, so that a noisy stretch of the machine falls on all of them alike.
        for step in 0..<(100 + iterations) * kinds.count {
            usleep(Self.pause)
            let kind = step % kinds.count
            guard let duration = kinds[kind]() else {
                lost += 1
                continue
            }
            if step >= 100 * kinds.count { durations[kind].append(duration) }
        }
        return Result(
            region: Samples(durations[0]), futex: Samples(durations[1]), eventfd: Samples(durations[2]),
            futexHalfRoundTrip: Samples(durations[3]), lost: lost, xruns: xruns)
    }

    /// Runs `kick`, then spins until `seen`: nanoseconds from before the kick to the first `seen`,
    /// nil after `timeout`.
    private static func spin(_ kick: () -> Void, until seen: () -> Bool) -> Double? {
        let start = monotonicNanoseconds()
        kick()
        while !seen() {
            if monotonicNanoseconds() - start > timeout { return nil }
        }
        return monotonicNanoseconds() - start
    }

    /// posix_spawn of `path`, the `fds` inherited as they are (their FD_CLOEXEC cleared in the
    /// child only, by dup2 onto themselves), as the region tests spawn the renderer.
    static func spawn(_ path: String, fds: [Int32], arguments: [String]) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for fd in fds { posix_spawn_file_actions_adddup2(&actions, fd, fd) }
        var argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, path, &actions, nil, &argv, environ)
        guard result == 0 else { throw BenchmarkFailure("posix_spawn \(path): \(String(cString: strerror(result)))") }
        return pid
    }
}

/// The host's side of Benchmarks/Support/wake_pingpong.c, built by GuestBuilds, through dlsym.
private struct WakeLibrary {
    let page: @convention(c) (UnsafeMutablePointer<Int32>) -> UnsafeMutableRawPointer?
    let eventfd: @convention(c) () -> Int32
    let futexKick: @convention(c) (UnsafeMutableRawPointer, UInt32) -> Void
    let eventfdKick: @convention(c) (UnsafeMutableRawPointer, Int32, UInt32) -> Void
    let answer: @convention(c) (UnsafeRawPointer) -> UInt32
    let futexAwait: @convention(c) (UnsafeMutableRawPointer, UInt32) -> Int32

    init(path: String) throws {
        guard let library = dlopen(path, RTLD_NOW) else {
            throw BenchmarkFailure("cannot load \(path): \(String(cString: dlerror()))")
        }
        func symbol<F>(_ name: String, as type: F.Type) throws -> F {
            guard let address = dlsym(library, name) else { throw BenchmarkFailure("\(path) has no \(name)") }
            return unsafeBitCast(address, to: type)
        }
        page = try symbol("apphost_bench_wake_page", as: type(of: page))
        eventfd = try symbol("apphost_bench_wake_eventfd", as: type(of: eventfd))
        futexKick = try symbol("apphost_bench_futex_kick", as: type(of: futexKick))
        eventfdKick = try symbol("apphost_bench_eventfd_kick", as: type(of: eventfdKick))
        answer = try symbol("apphost_bench_answer", as: type(of: answer))
        futexAwait = try symbol("apphost_bench_futex_await", as: type(of: futexAwait))
    }
}

/// The region benchmark and its baselines, printed as the others are.
func runRegionBenchmark(iterations: Int, guests: GuestBuilds) throws {
    let (library, partner) = try guests.wakePingPong()
    let result = try RegionBenchmark(renderer: try guests.regionRenderer(), library: library, partner: partner)
        .run(iterations: iterations)
    Report.print(
        "wake-to-render, session region, 10 ms period", result.region, target: "p99 within 2x of the futex wake")
    Report.print("bare futex wake, two processes", result.futex)
    Report.print("bare eventfd wake, two processes", result.eventfd)
    Report.print("bare futex ping-pong, half a round trip", result.futexHalfRoundTrip)
    Report.ratio(
        "region wake-to-render / bare futex (p99)",
        result.region.percentile(99) / result.futex.percentile(99), target: "<= 2")
    Report.ratio(
        "region wake-to-render / bare eventfd (p99)",
        result.region.percentile(99) / result.eventfd.percentile(99), target: "reported")
    if result.lost > 0 || result.xruns > 0 {
        print("  rounds lost (no answer within 1 s): \(result.lost), region xruns: \(result.xruns)")
    }
}
