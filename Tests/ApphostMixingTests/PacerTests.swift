import ApphostMixing
import Foundation
import XCTest

/// The period clock: free mode runs at once; real mode keeps absolute 10 ms deadlines, records how
/// late each wake was and counts the periods an overrunning mixer missed. No tight timing: a
/// loaded CI machine may be late, which the pacer must report, not hide.
final class PacerTests: XCTestCase {
    private static func monotonicNanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }

    // --audio-clock free: 10,000 periods (100 s of sound) go by at once, none late or missed.
    func testFreeModeRunsPeriodsImmediately() {
        var pacer = mix_pacer()
        mix_pacer_init(&pacer, MIX_CLOCK_FREE, 48_000, 480)
        mix_pacer_start(&pacer)
        let started = Date()
        var tick = mix_tick()
        for period in 0..<10_000 {
            mix_pacer_wait(&pacer, &tick)
            XCTAssertEqual(tick.period, UInt64(period))
            XCTAssertEqual(tick.late_ns, 0)
            XCTAssertEqual(tick.missed, 0)
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 5, "free mode must not sleep")
        XCTAssertEqual(pacer.ticks, 10_000)
        XCTAssertEqual(pacer.missed, 0)
    }

    // 50 periods of 10 ms after period 0: period 50 is due 0.5 s after the start, and no wake
    // comes before its deadline; every wake's lateness is recorded.
    func testRealModeKeepsAbsoluteDeadlines() {
        var pacer = mix_pacer()
        mix_pacer_init(&pacer, MIX_CLOCK_REAL, 48_000, 480)
        mix_pacer_start(&pacer)
        var tick = mix_tick()
        var lateness: [UInt64] = []
        repeat {
            mix_pacer_wait(&pacer, &tick)
            let elapsed = Self.monotonicNanoseconds() - pacer.start_ns
            XCTAssertGreaterThanOrEqual(elapsed, tick.period * 10_000_000, "woke before period \(tick.period)")
            lateness.append(tick.late_ns)
        } while tick.period < 50
        let elapsed = Double(Self.monotonicNanoseconds() - pacer.start_ns) / 1e9
        print(
            "pacer: 50 periods in \(elapsed) s, \(pacer.ticks) ticks, \(pacer.missed) missed, "
                + "late max \(pacer.late_max_ns) ns, mean \(pacer.late_total_ns / pacer.ticks) ns")
        XCTAssertEqual(tick.period, 50)
        XCTAssertGreaterThanOrEqual(elapsed, 0.5)
        XCTAssertLessThan(elapsed, 2.0)
        XCTAssertEqual(pacer.ticks + pacer.missed, 51, "every period either ticked or was missed")
        XCTAssertEqual(pacer.late_total_ns, lateness.reduce(0, +))
        XCTAssertEqual(pacer.late_max_ns, lateness.max())
        XCTAssertGreaterThan(pacer.late_total_ns, 0, "a wake after a sleep is never exactly on time")
    }

    // A mixer that overran (45 ms of work in a 10 ms period) has missed periods 1 to 3: the pacer
    // counts them and skips to the period under way rather than rush through them.
    func testOverrunIsCountedAsMissedPeriods() {
        var pacer = mix_pacer()
        mix_pacer_init(&pacer, MIX_CLOCK_REAL, 48_000, 480)
        mix_pacer_start(&pacer)
        var tick = mix_tick()
        mix_pacer_wait(&pacer, &tick)
        XCTAssertEqual(tick.period, 0)
        usleep(45_000)
        mix_pacer_wait(&pacer, &tick)
        XCTAssertGreaterThanOrEqual(tick.missed, 3)
        XCTAssertEqual(tick.period, 1 + tick.missed)
        XCTAssertGreaterThanOrEqual(tick.late_ns, 35_000_000, "period 1 was due at 10 ms")
        XCTAssertEqual(pacer.missed, tick.missed)
        // The next one is on time again: the period after the one under way.
        let current = tick.period
        mix_pacer_wait(&pacer, &tick)
        XCTAssertEqual(tick.period, current + 1)
    }

    // Deadlines from the start, in exact frames: 44.1 kHz periods of 512 frames are not whole
    // nanoseconds, and an hour of them must not drift; nor a century overflow.
    func testPeriodStartsAreExact() {
        var pacer = mix_pacer()
        mix_pacer_init(&pacer, MIX_CLOCK_REAL, 44_100, 512)
        XCTAssertEqual(mix_pacer_period_start_ns(&pacer, 1), 11_609_977)
        // 44,100 periods of 512 frames are exactly 512 s.
        XCTAssertEqual(mix_pacer_period_start_ns(&pacer, 44_100), 512_000_000_000)
        mix_pacer_init(&pacer, MIX_CLOCK_REAL, 48_000, 480)
        // 100 years of 10 ms periods.
        let periods: UInt64 = 100 * 365 * 24 * 3600 * 100
        XCTAssertEqual(mix_pacer_period_start_ns(&pacer, periods), periods * 10_000_000)
    }
}
