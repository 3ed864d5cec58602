import ApphostALSA
import ApphostMixing
import XCTest

/// The ALSA sink (--audio-output alsa:DEVICE) on alsa-lib's `null` device, which every machine has,
/// sound card or not: the mix (C13) goes to a device without the mixer ever waiting on it.
final class AlsaSinkTests: XCTestCase {
    // C13: a second of periods, 480 stereo frames each, all taken; `null` has room for every one,
    // so none is dropped and it never underruns. It closes cleanly, dropping rather than draining.
    func testNullDeviceTakesAHundredPeriodsAndClosesCleanly() throws {
        var error = [CChar](repeating: 0, count: 256)
        guard let sink = mix_alsa_sink_open("null", 48_000, 2, 480, &error, error.count) else {
            return XCTFail("cannot open alsa:null: \(CText.of(error))")
        }
        for period in 0..<100 {
            let tone = Signals.sine(frequency: 1000, amplitude: 0.5, firstFrame: period * 480)
            XCTAssertTrue(
                tone.withUnsafeBufferPointer { mix_sink_write(sink, $0.baseAddress, 480) },
                String(cString: mix_sink_error(sink)))
        }
        XCTAssertEqual(sink.pointee.stream.frames, 48_000)
        XCTAssertEqual(String(cString: mix_sink_error(sink)), "")
        print("alsa:null: \(mix_alsa_sink_underruns(sink)) underruns, \(mix_alsa_sink_overflows(sink)) overflows")
        XCTAssertEqual(mix_alsa_sink_overflows(sink), 0)
        XCTAssertEqual(mix_alsa_sink_underruns(sink), 0)
        var closeError = [CChar](repeating: 0x7F, count: 16)
        XCTAssertTrue(mix_sink_close(sink, &closeError, closeError.count))
        XCTAssertEqual(closeError[0], 0x7F, "no failure, nothing written into the error buffer")
    }

    // A device ALSA does not know: no sink, and one line naming it.
    func testUnknownDeviceSaysWhy() {
        var error = [CChar](repeating: 0, count: 256)
        XCTAssertNil(mix_alsa_sink_open("nope", 48_000, 2, 480, &error, error.count))
        XCTAssertEqual(CText.of(error), "alsa:nope: cannot open for playback: No such file or directory")
        XCTAssertNil(mix_alsa_sink_open("nope", 48_000, 2, 480, nil, 0), "no error buffer is fine too")
    }

    // A device that opens but refuses the format: no sink, and one line saying what it refused. The
    // sink and the source set the device up through one function (mix_alsa.c): each names its own
    // direction ("play" here, "capture" in SourceTests).
    func testRefusedFormatSaysWhy() {
        var error = [CChar](repeating: 0, count: 256)
        XCTAssertNil(mix_alsa_sink_open("null", 48_000, 0, 480, &error, error.count))
        XCTAssertEqual(
            CText.of(error), "alsa:null: cannot play 0 channels of float samples at 48000 Hz: Invalid argument")
        XCTAssertNil(mix_alsa_sink_open("null", 0, 2, 480, &error, error.count))
        XCTAssertEqual(CText.of(error), "alsa:null: cannot play 2 channels of float samples at 0 Hz: Invalid argument")
    }

    // An opened sink leaves an empty error behind, whatever the buffer held before.
    func testOpeningEmptiesTheErrorBuffer() throws {
        var error = [CChar](repeating: 0x7F, count: 16)
        let sink = try XCTUnwrap(mix_alsa_sink_open("null", 48_000, 2, 480, &error, error.count))
        XCTAssertEqual(error[0], 0)
        XCTAssertTrue(mix_sink_close(sink, nil, 0))
    }
}
