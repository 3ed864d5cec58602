import ApphostMixing
import XCTest

/// mix_level: peak and RMS in linear and dBFS, over a period and over a span of periods.
final class LevelTests: XCTestCase {
    private func measure(_ samples: [Float]) -> mix_level {
        samples.withUnsafeBufferPointer { mix_level_measure($0.baseAddress, $0.count) }
    }

    // A full-scale sine: peak 1.0 is 0 dBFS and its RMS 1/sqrt(2) is -3.01 dBFS (sox's convention).
    func testFullScaleSine() {
        // One second of 1 kHz at 48 kHz: 48 samples a cycle, the peak sample exactly on the crest.
        let sine = Signals.sine(frequency: 1000, amplitude: 1, firstFrame: 0, frames: 48_000)
        let level = measure(sine)
        XCTAssertEqual(level.samples, UInt64(sine.count))
        XCTAssertEqual(level.peak, 1, accuracy: 1e-6)
        XCTAssertEqual(mix_level_peak_dbfs(level), 0, accuracy: 0.001)
        XCTAssertEqual(mix_level_rms(level), 1 / 2.0.squareRoot(), accuracy: 1e-6)
        XCTAssertEqual(mix_level_rms_dbfs(level), -3.0103, accuracy: 0.001)
    }

    func testHalfScaleSineIsSixDecibelsLower() {
        let level = measure(Signals.sine(frequency: 1000, amplitude: 0.5, firstFrame: 0, frames: 4_800))
        XCTAssertEqual(mix_level_peak_dbfs(level), -6.0206, accuracy: 0.001)
        XCTAssertEqual(mix_level_rms_dbfs(level), -9.0309, accuracy: 0.001)
    }

    // Silence has no -inf: it reads as the documented floor, as does a period not rendered (NULL).
    func testSilenceReadsAsTheFloor() {
        let silence = measure([Float](repeating: 0, count: 960))
        XCTAssertEqual(silence.peak, 0)
        XCTAssertEqual(mix_level_rms(silence), 0)
        XCTAssertEqual(mix_level_peak_dbfs(silence), MIX_LEVEL_FLOOR_DBFS)
        XCTAssertEqual(mix_level_rms_dbfs(silence), MIX_LEVEL_FLOOR_DBFS)
        XCTAssertEqual(MIX_LEVEL_FLOOR_DBFS, -120)

        let missing = mix_level_measure(nil, 960)
        XCTAssertEqual(missing.samples, 960)
        XCTAssertEqual(mix_level_rms_dbfs(missing), MIX_LEVEL_FLOOR_DBFS)
        XCTAssertEqual(mix_level_rms(mix_level_measure(nil, 0)), 0, "no samples: 0, not a NaN")
        XCTAssertEqual(mix_level_dbfs(1e-7), MIX_LEVEL_FLOOR_DBFS)
        XCTAssertEqual(mix_level_dbfs(-1), MIX_LEVEL_FLOOR_DBFS)
        XCTAssertEqual(mix_level_dbfs(.nan), MIX_LEVEL_FLOOR_DBFS)
    }

    // Periods measured apart add up to what the whole measures.
    func testPeriodsAddUpToTheWhole() {
        let whole = Signals.sine(frequency: 440, amplitude: 0.7, firstFrame: 0, frames: 4_800)
        var total = mix_level()
        for start in stride(from: 0, to: whole.count, by: 960) {
            mix_level_add(&total, measure(Array(whole[start..<start + 960])))
        }
        let measured = measure(whole)
        XCTAssertEqual(total.samples, measured.samples)
        XCTAssertEqual(total.peak, measured.peak)
        XCTAssertEqual(mix_level_rms(total), mix_level_rms(measured), accuracy: 1e-9)
    }

    // The window shows the last whole span (a second, for ctl audio), never a half-measured one.
    func testWindowKeepsTheLastWholeSpan() {
        var window = mix_level_window()
        // A span of 5 periods of 960 samples.
        mix_level_window_init(&window, 4_800)
        let loud = measure([Float](repeating: 0.5, count: 960))
        let quiet = measure([Float](repeating: 0.05, count: 960))
        for _ in 0..<4 { mix_level_window_add(&window, loud) }
        XCTAssertEqual(window.spans, 0)
        XCTAssertEqual(window.last.samples, 0, "no whole span yet")
        mix_level_window_add(&window, loud)
        XCTAssertEqual(window.spans, 1)
        XCTAssertEqual(window.last.samples, 4_800)
        XCTAssertEqual(mix_level_rms(window.last), 0.5, accuracy: 1e-6)
        XCTAssertEqual(window.current.samples, 0)

        // The next span, quiet, shows only once it is whole: the loud one until then.
        for _ in 0..<4 { mix_level_window_add(&window, quiet) }
        XCTAssertEqual(mix_level_rms(window.last), 0.5, accuracy: 1e-6)
        mix_level_window_add(&window, quiet)
        XCTAssertEqual(window.spans, 2)
        XCTAssertEqual(window.last.peak, 0.05, accuracy: 1e-7)
        XCTAssertEqual(mix_level_rms_dbfs(window.last), Signals.dB(0.05), accuracy: 0.001)
    }
}
