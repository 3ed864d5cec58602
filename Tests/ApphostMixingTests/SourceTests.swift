import ApphostALSA
import ApphostMixing
import ApphostSoundTesting
import Foundation
import XCTest

/// The input sources (--audio-input silence|tone:HZ|wav:PATH|alsa:DEVICE), what record sessions
/// receive as the host's captured input beside the guests' PCM the host mixes (C13): each gives
/// exactly the frames asked for, measured with mix_level and with sox.
final class SourceTests: XCTestCase {
    private var scratch: URL!
    private var sources: [UnsafeMutablePointer<mix_source>] = []

    override func setUpWithError() throws {
        _ = try Sox.path()
        scratch = FileManager.default.temporaryDirectory
            .appendingPathComponent("apphost-source-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        for source in sources { mix_source_close(source, nil, 0) }
        sources = []
        if let scratch { try? FileManager.default.removeItem(at: scratch) }
    }

    private func file(_ name: String) -> String { scratch.appendingPathComponent(name).path }

    /// Keeps `source` to close at tear-down, or fails the test with the opening's error.
    private func kept(_ source: UnsafeMutablePointer<mix_source>?, _ error: [CChar]) throws
        -> UnsafeMutablePointer<mix_source>
    {
        guard let source else { throw Sox.Failure(description: "cannot open the source: \(CText.of(error))") }
        sources.append(source)
        return source
    }

    private func tone(_ frequency: Double, _ amplitude: Double) throws -> UnsafeMutablePointer<mix_source> {
        var error = [CChar](repeating: 0, count: 256)
        return try kept(mix_tone_source_open(48_000, 2, frequency, amplitude, &error, error.count), error)
    }

    private func wav(_ path: String, channels: UInt32 = 2) throws -> UnsafeMutablePointer<mix_source> {
        var error = [CChar](repeating: 0, count: 256)
        return try kept(mix_wav_source_open(path, 48_000, channels, &error, error.count), error)
    }

    /// `total` frames read from `source` in reads of `sizes` frames, taken in turn.
    private func read(
        _ source: UnsafeMutablePointer<mix_source>, _ total: Int, in sizes: [Int] = [Signals.periodFrames]
    ) -> [Float] {
        let channels = Int(source.pointee.stream.channels)
        var samples = [Float](repeating: .nan, count: total * channels)
        var done = 0
        var turn = 0
        while done < total {
            let frames = min(sizes[turn % sizes.count], total - done)
            let read = samples.withUnsafeMutableBufferPointer {
                mix_source_read(source, $0.baseAddress! + done * channels, UInt32(frames))
            }
            XCTAssertTrue(read, String(cString: mix_source_error(source)))
            done += frames
            turn += 1
        }
        return samples
    }

    private static func level(_ samples: [Float]) -> mix_level {
        samples.withUnsafeBufferPointer { mix_level_measure($0.baseAddress, $0.count) }
    }

    /// The samples of one channel of interleaved frames.
    private static func channel(_ samples: [Float], _ channel: Int, of channels: Int = 2) -> [Float] {
        stride(from: channel, to: samples.count, by: channels).map { samples[$0] }
    }

    /// Upward zero crossings: a sine's whole cycles.
    private static func risingCrossings(_ samples: [Float]) -> Int {
        zip(samples, samples.dropFirst()).filter { $0 < 0 && $1 >= 0 }.count
    }

    func testSilenceIsZeros() throws {
        let source = try kept(mix_silence_source_open(48_000, 2), [])
        let samples = read(source, 4800)
        XCTAssertEqual(samples, [Float](repeating: 0, count: 9600))
        XCTAssertEqual(source.pointee.stream.frames, 4800)
        XCTAssertEqual(String(cString: mix_source_error(source)), "")
    }

    // A second of a 440 Hz tone at amplitude 0.5: RMS 0.5/√2 (-9.03 dBFS) to 0.01 dB by the
    // mixer's own meter, peak 0.5, 440 cycles by its zero crossings, and 440 Hz as sox hears it
    // in the WAV file the WAV sink makes of it.
    func testToneLevelAndFrequency() throws {
        let source = try tone(440, 0.5)
        let samples = read(source, 48_000)
        let level = Self.level(samples)
        print("tone: RMS \(mix_level_rms_dbfs(level)) dB, peak \(mix_level_peak_dbfs(level)) dB")
        XCTAssertEqual(mix_level_rms_dbfs(level), Signals.dB(0.5 / 2.0.squareRoot()), accuracy: 0.01)
        XCTAssertEqual(Double(level.peak), 0.5, accuracy: 0.0001)
        XCTAssertEqual(Self.channel(samples, 0), Self.channel(samples, 1), "the same sample on every channel")
        XCTAssertEqual(Double(Self.risingCrossings(Self.channel(samples, 0))), 440, accuracy: 1)

        let path = file("tone.wav")
        var error = [CChar](repeating: 0, count: 256)
        let sink = try XCTUnwrap(mix_wav_sink_open(path, 48_000, 2, 10, &error, error.count), CText.of(error))
        XCTAssertTrue(samples.withUnsafeBufferPointer { mix_sink_write(sink, $0.baseAddress, 48_000) })
        XCTAssertTrue(mix_sink_close(sink, &error, error.count), CText.of(error))
        let frequency = try Sox.roughFrequency(of: path)
        print("sox: rough frequency \(frequency) Hz")
        XCTAssertEqual(frequency, 440, accuracy: 2)
        XCTAssertEqual(try Sox.stats(of: path).rmsDB, mix_level_rms_dbfs(level), accuracy: 0.01)
    }

    // Reads of odd sizes make the same sine, sample for sample, as one long read: the phase carries
    // over between reads. Both are the math's sine, to float precision.
    func testToneIsPhaseContinuousAcrossReads() throws {
        let whole = read(try tone(1000, 0.8), 48_000, in: [48_000])
        let pieces = read(try tone(1000, 0.8), 48_000, in: [1, 7, 479, 480, 481, 13, 1024])
        XCTAssertEqual(pieces, whole)
        let math = Signals.sine(frequency: 1000, amplitude: 0.8, firstFrame: 0, frames: 48_000)
        let largest = zip(whole, math).map { abs($0 - $1) }.max() ?? .infinity
        XCTAssertLessThan(largest, 1e-5)
    }

    // A frequency the rate cannot carry, or an amplitude past full scale: no source, one line.
    func testToneRefusesWhatItCannotPlay() {
        var error = [CChar](repeating: 0, count: 256)
        for frequency in [0, -1, 24_000, 30_000, .nan] as [Double] {
            XCTAssertNil(mix_tone_source_open(48_000, 2, frequency, 0.5, &error, error.count), "\(frequency) Hz")
            XCTAssertTrue(CText.of(error).hasSuffix("the frequency must be above 0 and below 24000 Hz, half the rate"))
        }
        XCTAssertNil(mix_tone_source_open(48_000, 2, 30_000, 0.5, &error, error.count))
        XCTAssertEqual(CText.of(error), "tone:30000: the frequency must be above 0 and below 24000 Hz, half the rate")
        for amplitude in [-0.1, 1.5, .nan] as [Double] {
            XCTAssertNil(mix_tone_source_open(48_000, 2, 440, amplitude, &error, error.count), "\(amplitude)")
        }
        XCTAssertNil(mix_tone_source_open(48_000, 2, 440, 1.5, &error, error.count))
        XCTAssertEqual(CText.of(error), "tone:440: the amplitude 1.5 is outside 0 to 1")
        XCTAssertNoThrow(try tone(440, 0), "silence is an amplitude too")
        XCTAssertNoThrow(try tone(440, 1), "and full scale")
    }

    // The file sox makes, read as sox reads it: the level of every sample within 0.05 dB of sox's
    // stats, the mono file on both channels.
    func testWavSourceReadsWhatSoxWrote() throws {
        let path = file("in.wav")
        try Sox.make(["-n", "-r", "48000", "-c", "1", "-b", "16", path, "synth", "0.5", "sine", "440", "vol", "0.5"])
        let source = try wav(path)
        let samples = read(source, 24_000)
        let level = Self.level(samples)
        let stats = try Sox.stats(of: path)
        print(
            "wav source: RMS \(mix_level_rms_dbfs(level)) dB (sox \(stats.rmsDB)), peak \(mix_level_peak_dbfs(level)) dB (sox \(stats.peakDB))"
        )
        XCTAssertEqual(mix_level_rms_dbfs(level), stats.rmsDB, accuracy: 0.05)
        XCTAssertEqual(mix_level_peak_dbfs(level), stats.peakDB, accuracy: 0.05)
        XCTAssertEqual(mix_level_rms_dbfs(level), Signals.dB(0.5 / 2.0.squareRoot()), accuracy: 0.05)
        XCTAssertEqual(Self.channel(samples, 0), Self.channel(samples, 1), "the mono file on both channels")
        XCTAssertEqual(source.pointee.stream.frames, 24_000)
    }

    // The other formats it takes, each as sox writes them (24 and 32-bit PCM and float32 are
    // WAVE_FORMAT_EXTENSIBLE with a fact chunk from sox), stereo taken as it is.
    func testWavSourceTakesEachFormat() throws {
        for (name, format) in [
            ("pcm24", ["-b", "24"]), ("pcm32", ["-b", "32"]), ("float", ["-e", "floating-point", "-b", "32"]),
        ] {
            let path = file("\(name).wav")
            try Sox.make(
                ["-n", "-r", "48000", "-c", "2"] + format + [
                    path, "synth", "0.5", "sine", "440", "sine", "1000", "vol", "0.5",
                ])
            let samples = read(try wav(path), 24_000)
            let level = Self.level(samples)
            let stats = try Sox.stats(of: path)
            XCTAssertEqual(mix_level_rms_dbfs(level), stats.rmsDB, accuracy: 0.05, name)
            XCTAssertEqual(mix_level_peak_dbfs(level), stats.peakDB, accuracy: 0.05, name)
            XCTAssertEqual(
                Double(Self.risingCrossings(Self.channel(samples, 0))), 220, accuracy: 1, "\(name): left is 440 Hz")
            XCTAssertEqual(
                Double(Self.risingCrossings(Self.channel(samples, 1))), 500, accuracy: 1, "\(name): right is 1 kHz")
        }
    }

    // At its end the file starts again: 1.5 times its length, in periods, is the file and then its
    // first half once more.
    func testWavSourceLoopsAtItsEnd() throws {
        let path = file("loop.wav")
        try Sox.make(["-n", "-r", "48000", "-c", "1", "-b", "16", path, "synth", "0.5", "sine", "440", "vol", "0.5"])
        let samples = read(try wav(path), 36_000)
        XCTAssertEqual(Array(samples[48_000..<72_000]), Array(samples[0..<24_000]))
        XCTAssertFalse(samples.contains { $0.isNaN }, "every frame filled")
        XCTAssertGreaterThan(Self.level(Array(samples[48_000..<72_000])).peak, 0.4, "the sine, not silence")
    }

    // What it refuses, each with no source and one line naming the file: another rate (no
    // resampling), a channel count that is neither 1 nor the host's, a cut file, a file that is
    // not WAV, no file.
    func testWavSourceRefusalsSayWhy() throws {
        let rate = file("44k.wav")
        try Sox.make(["-n", "-r", "44100", "-c", "1", "-b", "16", rate, "synth", "0.1", "sine", "440"])
        let three = file("three.wav")
        try Sox.make(["-n", "-r", "48000", "-c", "3", "-b", "16", three, "synth", "0.1", "sine", "440"])
        let cut = file("cut.wav")
        let whole = file("whole.wav")
        try Sox.make(["-n", "-r", "48000", "-c", "1", "-b", "16", whole, "synth", "0.5", "sine", "440"])
        try Data(try Data(contentsOf: URL(fileURLWithPath: whole)).prefix(20_044)).write(to: URL(fileURLWithPath: cut))
        let text = file("text.wav")
        try Data("not a sound at all, only text that is long enough\n".utf8).write(to: URL(fileURLWithPath: text))
        let missing = file("missing.wav")

        let expected = [
            (rate, "wav:\(rate): the file is at 44100 Hz, not 48000 Hz (no resampling)"),
            (three, "wav:\(three): the file has 3 channels, not 2 (or 1, which feeds every channel)"),
            (cut, "wav:\(cut): truncated: its \"data\" chunk claims 48000 bytes, the file has 20000"),
            (text, "wav:\(text): not a WAV file (no RIFF WAVE header)"),
            (missing, "wav:\(missing): cannot open: No such file or directory"),
        ]
        for (path, message) in expected {
            var error = [CChar](repeating: 0, count: 512)
            XCTAssertNil(mix_wav_source_open(path, 48_000, 2, &error, error.count), path)
            XCTAssertEqual(CText.of(error), message)
            XCTAssertFalse(CText.of(error).contains("\n"))
        }
    }

    // The ALSA source on `null`, which captures silence (alsa-lib's null device says it read each
    // frame but writes none: the source's own silence it is): ten periods read, none failed, every
    // frame filled with it; what it counted is printed (null never runs short, so none).
    func testAlsaSourceOnNullReadsTenPeriods() throws {
        var error = [CChar](repeating: 0, count: 256)
        let source = try kept(mix_alsa_source_open("null", 48_000, 2, 480, &error, error.count), error)
        let samples = read(source, 4800)
        XCTAssertEqual(source.pointee.stream.frames, 4800)
        XCTAssertEqual(samples, [Float](repeating: 0, count: 9600), "every frame filled, with silence")
        print(
            "alsa:null capture: \(mix_alsa_source_underruns(source)) underruns, \(mix_alsa_source_overruns(source)) overruns"
        )
        XCTAssertEqual(String(cString: mix_source_error(source)), "")
        sources.removeAll { $0 == source }
        var closeError = [CChar](repeating: 0, count: 256)
        XCTAssertTrue(mix_source_close(source, &closeError, closeError.count), CText.of(closeError))
    }

    func testAlsaSourceUnknownDeviceSaysWhy() {
        var error = [CChar](repeating: 0, count: 256)
        XCTAssertNil(mix_alsa_source_open("nope", 48_000, 2, 480, &error, error.count))
        XCTAssertEqual(CText.of(error), "alsa:nope: cannot open for capture: No such file or directory")
    }

    // As the sink's (AlsaSinkTests): a format the device refuses, said in the source's own words.
    func testAlsaSourceRefusedFormatSaysWhy() {
        var error = [CChar](repeating: 0, count: 256)
        XCTAssertNil(mix_alsa_source_open("null", 48_000, 0, 480, &error, error.count))
        XCTAssertEqual(
            CText.of(error), "alsa:null: cannot capture 0 channels of float samples at 48000 Hz: Invalid argument")
    }
}
