import ApphostMixing
import XCTest

/// The null sink (--audio-output null): the mixer runs, paced by the host's clock, with no output.
final class NullSinkTests: XCTestCase {
    func testTakesEverythingAndWritesNothing() throws {
        let sink = try XCTUnwrap(mix_null_sink_open(48_000, 2))
        let tone = Signals.sine(frequency: 1000, amplitude: 0.5, firstFrame: 0)
        for _ in 0..<100 {
            XCTAssertTrue(tone.withUnsafeBufferPointer { mix_sink_write(sink, $0.baseAddress, 480) })
        }
        XCTAssertEqual(sink.pointee.stream.frames, 48_000)
        XCTAssertEqual(String(cString: mix_sink_error(sink)), "")
        var error = [CChar](repeating: 0x7F, count: 16)
        XCTAssertTrue(mix_sink_close(sink, &error, error.count))
        XCTAssertEqual(error[0], 0x7F, "no failure, nothing written into the error buffer")
        XCTAssertTrue(mix_sink_close(nil, nil, 0), "closing no sink is fine")
    }
}
