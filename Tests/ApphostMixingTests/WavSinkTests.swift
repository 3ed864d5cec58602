import ApphostMixing
import ApphostSoundTesting
import Foundation
import XCTest

/// The WAV sink, read back with sox: what the mix renders is what the math says (C13), a killed
/// writer leaves a file sox reads, and failures say what went wrong in one line.
final class WavSinkTests: XCTestCase {
    private var scratch: URL!
    private var sinks: [UnsafeMutablePointer<mix_sink>] = []

    override func setUpWithError() throws {
        _ = try Sox.path()
        scratch = FileManager.default.temporaryDirectory
            .appendingPathComponent("apphost-mixing-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        for sink in sinks { mix_sink_close(sink, nil, 0) }
        sinks = []
        if let scratch { try? FileManager.default.removeItem(at: scratch) }
    }

    private func file(_ name: String) -> String { scratch.appendingPathComponent(name).path }

    /// A WAV sink at `path`, 48 kHz stereo, closed at tear-down unless the test closes it (then
    /// the test removes it from `sinks`).
    private func open(_ path: String, headerEvery: UInt32 = 10) throws -> UnsafeMutablePointer<mix_sink> {
        var error = [CChar](repeating: 0, count: 256)
        guard let sink = mix_wav_sink_open(path, 48_000, 2, headerEvery, &error, error.count) else {
            throw Sox.Failure(description: "cannot open the sink: \(CText.of(error))")
        }
        sinks.append(sink)
        return sink
    }

    private func close(_ sink: UnsafeMutablePointer<mix_sink>) -> (closed: Bool, error: String) {
        sinks.removeAll { $0 == sink }
        var error = [CChar](repeating: 0, count: 256)
        let closed = mix_sink_close(sink, &error, error.count)
        return (closed, CText.of(error))
    }

    private func write(_ sink: UnsafeMutablePointer<mix_sink>, _ samples: [Float]) -> Bool {
        samples.withUnsafeBufferPointer { mix_sink_write(sink, $0.baseAddress, UInt32($0.count / 2)) }
    }

    /// Renders `periods` periods of the sources (each a period generator and its gain) through
    /// mix_period into `sink`; returns the mix's own level of all of it.
    private func render(
        _ periods: Int, into sink: UnsafeMutablePointer<mix_sink>, _ sources: [(gain: Float, signal: (Int) -> [Float])]
    ) -> mix_level {
        var out = [Float](repeating: 0, count: Signals.periodFrames * Signals.channels)
        var level = mix_level()
        for period in 0..<periods {
            let firstFrame = period * Signals.periodFrames
            let buffers = sources.map { $0.signal(firstFrame) }
            let gains = sources.map(\.gain)
            let clipped = withPointers(buffers) { pointers in
                mix_period(&out, pointers, gains, buffers.count, UInt32(Signals.periodFrames), UInt32(Signals.channels))
            }
            XCTAssertEqual(clipped, 0)
            mix_level_add(&level, out.withUnsafeBufferPointer { mix_level_measure($0.baseAddress, $0.count) })
            XCTAssertTrue(write(sink, out), String(cString: mix_sink_error(sink)))
        }
        return level
    }

    private func withPointers<R>(_ buffers: [[Float]], _ body: (UnsafePointer<UnsafePointer<Float>?>) -> R) -> R {
        let copies = buffers.map { buffer -> UnsafeMutablePointer<Float> in
            let copy = UnsafeMutablePointer<Float>.allocate(capacity: buffer.count)
            copy.initialize(from: buffer, count: buffer.count)
            return copy
        }
        defer { copies.forEach { $0.deallocate() } }
        let pointers: [UnsafePointer<Float>?] = copies.map { UnsafePointer($0) }
        return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
    }

    private static func tone(_ frequency: Double, _ amplitude: Double) -> (Int) -> [Float] {
        { Signals.sine(frequency: frequency, amplitude: amplitude, firstFrame: $0) }
    }

    // C13, C12: 2 s of a 1 kHz sine at amplitude 0.5 with a full-scale 440 Hz sine at gain 0.1.
    // Uncorrelated over whole cycles, their powers add: RMS = sqrt(0.5²/2 + 0.1²/2) = -8.86 dBFS;
    // the peak is at most 0.5 + 0.1 = 0.6, -4.44 dBFS. sox measures the file within 0.5 dB of the
    // math, and within 0.05 dB of the mixer's own meter.
    func testMixOfTwoSessionsMeasuredBySox() throws {
        let path = file("mix.wav")
        let sink = try open(path)
        let level = render(200, into: sink, [(1, Self.tone(1000, 0.5)), (0.1, Self.tone(440, 1))])
        let (closed, error) = close(sink)
        XCTAssertTrue(closed, error)

        let info = try Sox.info(of: path)
        XCTAssertTrue(info.contains("32-bit Floating Point PCM"), info)
        XCTAssertTrue(info.contains("Channels       : 2"), info)
        XCTAssertTrue(info.contains("Sample Rate    : 48000"), info)
        XCTAssertEqual(try Sox.frames(of: path), 96_000)

        let stats = try Sox.stats(of: path)
        let expectedRMS = Signals.dB((0.5 * 0.5 / 2 + 0.1 * 0.1 / 2).squareRoot())
        let expectedPeak = Signals.dB(0.6)
        print("sox: RMS \(stats.rmsDB) dB (math \(expectedRMS)), peak \(stats.peakDB) dB (math \(expectedPeak))")
        XCTAssertEqual(stats.lengthSeconds, 2, accuracy: 0.0005)
        XCTAssertEqual(stats.rmsDB, expectedRMS, accuracy: 0.5)
        XCTAssertEqual(stats.peakDB, expectedPeak, accuracy: 0.5)
        XCTAssertLessThanOrEqual(stats.peakDB, expectedPeak + 0.01)
        XCTAssertEqual(stats.rmsDB, mix_level_rms_dbfs(level), accuracy: 0.05)
        XCTAssertEqual(stats.peakDB, mix_level_peak_dbfs(level), accuracy: 0.05)
    }

    // C8's factor as sox hears it: a full-scale tone at gain 0.1 is 20 dB below full scale.
    func testGainOfATenthIsTwentyDecibelsDown() throws {
        let path = file("ducked.wav")
        let sink = try open(path)
        _ = render(100, into: sink, [(0.1, Self.tone(1000, 1)), (1, { _ in [Float](repeating: 0, count: 960) })])
        XCTAssertTrue(close(sink).closed)
        let stats = try Sox.stats(of: path)
        print("sox: RMS \(stats.rmsDB) dB (math -23.01), peak \(stats.peakDB) dB (math -20)")
        XCTAssertEqual(stats.peakDB, -20, accuracy: 0.5)
        XCTAssertEqual(stats.rmsDB, -3.0103 - 20, accuracy: 0.5)
    }

    // A host killed mid-render never closes its sink: the file, as it is then, is read by sox
    // with every period up to the header's last update (each write here; every 10th write for the
    // other file, which then shows 30 of its 37 periods). Closing makes the header whole.
    func testUnclosedFileIsReadableWithThePeriodsWrittenSoFar() throws {
        let everyWrite = file("killed-1.wav")
        let everyTenth = file("killed-10.wav")
        let sinkEveryWrite = try open(everyWrite, headerEvery: 1)
        let sinkEveryTenth = try open(everyTenth, headerEvery: 10)
        _ = render(37, into: sinkEveryWrite, [(1, Self.tone(1000, 0.5))])
        _ = render(37, into: sinkEveryTenth, [(1, Self.tone(1000, 0.5))])

        XCTAssertEqual(try Sox.frames(of: everyWrite), 37 * 480)
        XCTAssertEqual(try Sox.frames(of: everyTenth), 30 * 480)
        let stats = try Sox.stats(of: everyWrite)
        print("sox, unclosed: \(stats.lengthSeconds) s, RMS \(stats.rmsDB) dB, peak \(stats.peakDB) dB")
        XCTAssertEqual(stats.lengthSeconds, 0.37, accuracy: 0.0005)
        XCTAssertEqual(stats.rmsDB, -9.03, accuracy: 0.5)
        XCTAssertEqual(try Sox.stats(of: everyTenth).lengthSeconds, 0.30, accuracy: 0.0005)

        XCTAssertTrue(close(sinkEveryTenth).closed)
        XCTAssertEqual(try Sox.frames(of: everyTenth), 37 * 480)
    }

    // The opening failures, each one line naming the file: no such directory, a full disk.
    func testOpenFailuresSayWhy() {
        var error = [CChar](repeating: 0, count: 256)
        let missing = file("no-such-directory/out.wav")
        XCTAssertNil(mix_wav_sink_open(missing, 48_000, 2, 10, &error, error.count))
        XCTAssertEqual(CText.of(error), "wav:\(missing): cannot create: No such file or directory")

        XCTAssertNil(mix_wav_sink_open("/dev/full", 48_000, 2, 10, &error, error.count))
        XCTAssertEqual(CText.of(error), "wav:/dev/full: cannot write: No space left on device")

        // Cut to the caller's buffer; no buffer at all is fine too.
        var small = [CChar](repeating: 0x7F, count: 8)
        XCTAssertNil(mix_wav_sink_open("/dev/full", 48_000, 2, 10, &small, small.count))
        XCTAssertEqual(CText.of(small), "wav:/de")
        XCTAssertNil(mix_wav_sink_open("/dev/full", 48_000, 2, 10, nil, 0))
    }

    // A write that fails (the file may grow no more: RLIMIT_FSIZE, as a quota would) fails the
    // sink with one line, every later write too, and close says it again; what was written
    // before stays readable.
    func testWriteFailureFailsTheSinkAndKeepsWhatWasWritten() throws {
        let path = file("limited.wav")
        let sink = try open(path)
        let periodBytes = 480 * 2 * 4
        let previousHandler = signal(SIGXFSZ, SIG_IGN)
        var previousLimit = rlimit()
        getrlimit(Int32(RLIMIT_FSIZE.rawValue), &previousLimit)
        var limit = previousLimit
        limit.rlim_cur = rlim_t(Int(MIX_WAV_HEADER_BYTES) + 10 * periodBytes)
        XCTAssertEqual(setrlimit(Int32(RLIMIT_FSIZE.rawValue), &limit), 0)
        let tone = Signals.sine(frequency: 1000, amplitude: 0.5, firstFrame: 0)
        var results: [Bool] = []
        for _ in 0..<12 { results.append(write(sink, tone)) }
        setrlimit(Int32(RLIMIT_FSIZE.rawValue), &previousLimit)
        signal(SIGXFSZ, previousHandler)

        XCTAssertEqual(results, Array(repeating: true, count: 10) + [false, false])
        let expected = "wav:\(path): cannot write: File too large"
        XCTAssertEqual(String(cString: mix_sink_error(sink)), expected)
        XCTAssertEqual(sink.pointee.stream.frames, 10 * 480)
        let (closed, error) = close(sink)
        XCTAssertFalse(closed)
        XCTAssertEqual(error, expected)
        XCTAssertEqual(try Sox.frames(of: path), 10 * 480)
    }
}
