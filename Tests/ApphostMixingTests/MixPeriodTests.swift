import ApphostMixing
import XCTest

/// mix_period: the sum of the sessions' periods times their gains, clipped (C13; the gains are
/// those of C8, C9 and C12).
final class MixPeriodTests: XCTestCase {
    private let frames = 4
    private let channels = 2
    private var samples: Int { frames * channels }

    /// Mixes `sources` (nil: not ready) with `gains` into a period that held garbage before.
    private func mix(_ sources: [[Float]?], _ gains: [Float]) -> (out: [Float], clipped: UInt32) {
        var out = [Float](repeating: 0.75, count: samples)
        let pointers = sources.map { source -> UnsafeMutablePointer<Float>? in
            guard let source else { return nil }
            let pointer = UnsafeMutablePointer<Float>.allocate(capacity: source.count)
            pointer.initialize(from: source, count: source.count)
            return pointer
        }
        defer { pointers.forEach { $0?.deallocate() } }
        let constant = pointers.map { $0.map { UnsafePointer($0) } }
        let clipped = constant.withUnsafeBufferPointer { sourceList in
            gains.withUnsafeBufferPointer { gainList in
                mix_period(
                    &out, sourceList.baseAddress, gainList.baseAddress, sources.count, UInt32(frames),
                    UInt32(channels))
            }
        }
        return (out, clipped)
    }

    private func constant(_ value: Float) -> [Float] { [Float](repeating: value, count: samples) }

    // C12: each session counts times its own computed gain.
    func testSumsSourcesTimesTheirGains() {
        let ramp = (0..<samples).map { Float($0) / 100 }
        let (out, clipped) = mix([constant(0.25), ramp, constant(0.5)], [1, 0.5, 0.1])
        for (index, sample) in out.enumerated() {
            XCTAssertEqual(sample, 0.25 + Float(index) / 100 * 0.5 + 0.05, accuracy: 1e-6, "sample \(index)")
        }
        XCTAssertEqual(clipped, 0)
    }

    // The sum is clipped to [-1, 1] and every clipped sample counted; 1.0 itself is not clipped.
    func testClipsToFullScaleAndCountsClippedSamples() {
        var loud = constant(0.8)
        loud[1] = -0.8
        loud[2] = 0.5
        let (out, clipped) = mix([loud, loud], [1, 1])
        XCTAssertEqual(out[0], 1)
        XCTAssertEqual(out[1], -1)
        XCTAssertEqual(out[2], 1)
        XCTAssertEqual(clipped, UInt32(samples) - 1, "every sample but the one at exactly 1.0")
    }

    // C13: a session not ready this period is silence, and the others sound as they would alone.
    func testNullSourceIsSilence() {
        let (out, clipped) = mix([nil, constant(0.3), nil], [1, 1, 1])
        XCTAssertEqual(out, constant(0.3))
        XCTAssertEqual(clipped, 0)
        XCTAssertEqual(mix([nil, nil], [1, 1]).out, constant(0), "what out held before is gone")
        XCTAssertEqual(mix([], []).out, constant(0), "no session: silence")
    }

    // A muted session (gain 0, C9) is not read at all, so even a NaN in it does not reach the
    // mix; a NaN a guest does let through is one clipped sample of silence, not a poisoned mix.
    func testMutedSourceIsNotReadAndNaNBecomesClippedSilence() {
        var garbage = constant(0.2)
        garbage[3] = .nan
        let muted = mix([garbage, constant(0.1)], [0, 1])
        XCTAssertEqual(muted.out, constant(0.1))
        XCTAssertEqual(muted.clipped, 0)

        let heard = mix([garbage, constant(0.1)], [1, 1])
        XCTAssertEqual(heard.out[3], 0)
        XCTAssertEqual(heard.out[0], 0.3, accuracy: 1e-6)
        XCTAssertEqual(heard.clipped, 1)
    }

    /// mix_sanitize of `input`: the copy it made and its count.
    private func sanitize(_ input: [Float]) -> (out: [Float], bad: UInt32) {
        var out = [Float](repeating: 0.75, count: input.count)
        let bad = mix_sanitize(&out, input, input.count)
        return (out, bad)
    }

    // CONTRACT X7: a guest's period is copied as it is when every sample is a number within
    // MIX_SAMPLE_LIMIT (+24 dBFS), past full scale included (clipped in the mix, as any loud
    // sound); a period with a NaN, an infinity or a sample beyond the limit is silence, all of
    // it, and the bad samples are counted.
    func testX7SanitizeSilencesAPeriodWithSamplesThatAreNotNumbers() {
        var loud = constant(0.5)
        loud[1] = 2
        loud[2] = -MIX_SAMPLE_LIMIT
        loud[3] = MIX_SAMPLE_LIMIT
        XCTAssertEqual(sanitize(loud).out, loud)
        XCTAssertEqual(sanitize(loud).bad, 0)
        let clipped = mix([loud], [1])
        XCTAssertEqual(Array(clipped.out[0..<4]), [0.5, 1, -1, 1], "past full scale: clipped, not silenced")

        for poison in [Float.nan, .infinity, -.infinity, 1e30, -1e30, MIX_SAMPLE_LIMIT.nextUp, .signalingNaN] {
            var period = constant(0.5)
            period[5] = poison
            let (out, bad) = sanitize(period)
            XCTAssertEqual(out, constant(0), "\(poison): the whole period is silence")
            XCTAssertEqual(bad, 1, "\(poison)")
        }
        var garbage = constant(.nan)
        garbage[0] = 0.1
        XCTAssertEqual(sanitize(garbage).bad, UInt32(samples) - 1, "every bad sample counted")
        XCTAssertEqual(sanitize(garbage).out, constant(0))
    }
}
