import ApphostMixing
import ApphostSoundTesting
import Foundation
import XCTest

/// The mixer (mix_engine.h): a thread that collects every mixed session's period from its region,
/// mixes them with their gains into a sink and asks for the next, measured in the WAV it writes
/// with sox and sample by sample (C13), with the gains the host sets (C8, C9, C12), never held up
/// by a stopped or dead guest (C14).
final class EngineTests: XCTestCase {
    private static let frames = UInt32(Signals.periodFrames)
    private static let channels = UInt32(Signals.channels)
    private static let samples = Signals.periodFrames * Signals.channels

    private var scratch: URL!
    private var engines: [OpaquePointer] = []

    override func setUpWithError() throws {
        _ = try Sox.path()
        scratch = FileManager.default.temporaryDirectory
            .appendingPathComponent("apphost-engine-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        for engine in engines { mix_engine_destroy(engine) }
        engines = []
        if let scratch { try? FileManager.default.removeItem(at: scratch) }
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private static func text(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private func file(_ name: String) -> String { scratch.appendingPathComponent(name).path }

    /// An engine at 48 kHz stereo, 480-frame periods, writing to a WAV at `wav` (or the null sink),
    /// destroyed at tear-down.
    private func makeEngine(
        clock: mix_clock, wav: String? = nil, sink: UnsafeMutablePointer<mix_sink>? = nil, capacity: UInt32 = 4,
        cycles: UInt64 = 0, configure: (inout mix_engine_config) -> Void = { _ in }
    ) throws -> OpaquePointer {
        var error = [CChar](repeating: 0, count: Int(MIX_ENGINE_ERROR_BYTES))
        var config = mix_engine_config()
        config.sample_rate = UInt32(Signals.sampleRate)
        config.channels = Self.channels
        config.period_frames = Self.frames
        config.clock = clock
        config.capacity = capacity
        config.cycles = cycles
        if let sink {
            config.sink = sink
        } else if let wav {
            guard let sink = mix_wav_sink_open(wav, config.sample_rate, Self.channels, 10, &error, error.count) else {
                throw Failure(description: "wav sink: \(Self.text(error))")
            }
            config.sink = sink
        } else {
            config.sink = mix_null_sink_open(config.sample_rate, Self.channels)
        }
        configure(&config)
        guard let engine = mix_engine_create(&config, &error, error.count) else {
            throw Failure(description: "engine: \(Self.text(error))")
        }
        engines.append(engine)
        return engine
    }

    private func start(_ engine: OpaquePointer) throws {
        var error = [CChar](repeating: 0, count: Int(MIX_ENGINE_ERROR_BYTES))
        guard mix_engine_start(engine, &error, error.count) else {
            throw Failure(description: "start: \(Self.text(error))")
        }
    }

    /// Stops the engine (its sink closed); the sink's error, or nil.
    @discardableResult
    private func stop(_ engine: OpaquePointer) -> String? {
        var error = [CChar](repeating: 0, count: Int(MIX_ENGINE_ERROR_BYTES))
        return mix_engine_stop(engine, &error, error.count) ? nil : Self.text(error)
    }

    private static func createRegion(frames: UInt32 = frames, channels: UInt32 = channels) throws -> OpaquePointer {
        var error = [CChar](repeating: 0, count: Int(MIX_REGION_ERROR_BYTES))
        guard let region = mix_region_create(frames, channels, 2, &error, error.count) else {
            throw Failure(description: Self.text(error))
        }
        return region
    }

    private static func output(_ engine: OpaquePointer) -> mix_output_meter {
        var meter = mix_output_meter()
        mix_engine_output_meter(engine, &meter)
        return meter
    }

    private static func session(_ engine: OpaquePointer, _ slot: Int32) -> mix_session_meter {
        var meter = mix_session_meter()
        XCTAssertTrue(mix_engine_session_meter(engine, slot, &meter), "slot \(slot) in use")
        return meter
    }

    /// Polls `condition` every millisecond for up to `seconds`; whether it held.
    private static func eventually(_ seconds: TimeInterval = 20, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while !condition() {
            if Date() > deadline { return false }
            usleep(1000)
        }
        return true
    }

    /// The WAV's samples: the float32 data after the sink's 58-byte header.
    private static func samples(of path: String) throws -> [Float] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let body = data.dropFirst(Int(MIX_WAV_HEADER_BYTES))
        return body.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }

    /// Period `period` of a WAV's samples.
    private static func period(_ samples: [Float], _ period: Int) -> ArraySlice<Float> {
        samples[(period * Self.samples)..<((period + 1) * Self.samples)]
    }

    /// The guest side of a region on a thread of its own, as a worker's renderer: maps the host's
    /// region on its own fds and renders, for every period asked, that period of a sine (or, as
    /// `loopback`, the input the host captured for it), until paused or stopped.
    final class Renderer: @unchecked Sendable {
        let region: OpaquePointer
        let frequency: Double
        let amplitude: Double
        let loopback: Bool
        /// Put into one sample of every period it renders (a NaN, say), the rest being the sine.
        let poison: Float?
        private let lock = NSLock()
        private var paused = false
        private var quit = false
        private let ended = DispatchSemaphore(value: 0)

        init(
            host: OpaquePointer, frequency: Double = 440, amplitude: Double = 0.5, loopback: Bool = false,
            poison: Float? = nil
        ) throws {
            var error = [CChar](repeating: 0, count: Int(MIX_REGION_ERROR_BYTES))
            guard
                let region = mix_region_map(
                    dup(mix_region_memfd(host)), dup(mix_region_wake_fd(host)), &error, error.count)
            else { throw Failure(description: "map: \(EngineTests.text(error))") }
            self.region = region
            self.frequency = frequency
            self.amplitude = amplitude
            self.loopback = loopback
            self.poison = poison
            Thread { self.run() }.start()
        }

        /// Paused, it still wakes for each request but completes none: a hung guest.
        func pause(_ value: Bool) {
            lock.lock()
            paused = value
            lock.unlock()
        }

        private func state() -> (paused: Bool, quit: Bool) {
            lock.lock()
            defer { lock.unlock() }
            return (paused, quit)
        }

        private func run() {
            while !state().quit {
                let period = mix_region_wait(region, 50_000_000)
                if period == MIX_REGION_NONE || state().paused { continue }
                let buffer = mix_region_buffer(region, period)!
                if loopback {
                    let input = mix_region_input(region, period)!
                    for index in 0..<EngineTests.samples { buffer[index] = input[index] }
                } else {
                    let tone = Signals.sine(
                        frequency: frequency, amplitude: amplitude, firstFrame: Int(period) * Signals.periodFrames)
                    for index in 0..<EngineTests.samples { buffer[index] = tone[index] }
                }
                if let poison { buffer[Int(period) % EngineTests.samples] = poison }
                mix_region_done(region, period)
            }
            ended.signal()
        }

        /// Ends the thread and closes this side's mapping.
        func stop() {
            lock.lock()
            quit = true
            lock.unlock()
            mix_region_interrupt(region)
            XCTAssertEqual(ended.wait(timeout: .now() + 10), .success, "the renderer thread ended")
            mix_region_close(region)
        }
    }

    /// Asserts that period `period` of the WAV is period `period - 1` of the tone, sample for sample
    /// (one period of latency), times `gain`.
    private static func assertTone(
        _ samples: [Float], period: Int, frequency: Double = 440, amplitude: Double = 0.5, gain: Float = 1,
        line: UInt = #line
    ) {
        let expected = Signals.sine(
            frequency: frequency, amplitude: amplitude, firstFrame: (period - 1) * Signals.periodFrames)
        let actual = Self.period(samples, period)
        for (index, sample) in zip(expected.indices, actual) where sample != expected[index] * gain {
            return XCTFail("period \(period) sample \(index): \(sample), not \(expected[index] * gain)", line: line)
        }
    }

    // C13: one session's 440 Hz tone at 0.5 (-6.02 dBFS peak, -9.03 RMS) through the free clock for
    // 200 cycles: the WAV holds 200 periods, silence first (one period of latency), then every
    // period the guest rendered, sample for sample, at the tone's level; no xrun.
    func testFreeClockMixesEveryRenderedPeriodIntoTheSink() throws {
        let path = file("tone.wav")
        let engine = try makeEngine(clock: MIX_CLOCK_FREE, wav: path, cycles: 200)
        let region = try Self.createRegion()
        let guest = try Renderer(host: region)
        defer { guest.stop() }
        let slot = mix_engine_add(engine, region)
        XCTAssertGreaterThanOrEqual(slot, 0)
        XCTAssertEqual(mix_engine_set(engine, slot, true, 1, false), 0, "set before the start: from cycle 0")
        try start(engine)
        XCTAssertTrue(Self.eventually { Self.output(engine).finished == 1 }, "200 cycles done")
        let meter = Self.session(engine, slot)
        XCTAssertNil(stop(engine))

        XCTAssertEqual(meter.xruns, 0)
        XCTAssertEqual(mix_region_xruns(region), 0)
        XCTAssertEqual(meter.periods_collected, 199, "cycles 1 to 199 collect periods 0 to 198")
        XCTAssertEqual(Self.output(engine).cycles, 200)
        XCTAssertEqual(try Sox.frames(of: path), 200 * Signals.periodFrames)
        let stats = try Sox.stats(of: path, effects: ["trim", "\(Signals.periodFrames)s"])
        XCTAssertEqual(stats.peakDB, -6.02, accuracy: 0.1)
        XCTAssertEqual(stats.rmsDB, -9.03, accuracy: 0.1)
        let samples = try Self.samples(of: path)
        XCTAssertEqual(samples.count, 200 * Self.samples)
        XCTAssertTrue(Self.period(samples, 0).allSatisfy { $0 == 0 }, "cycle 0 has nothing to collect")
        for period in 1..<200 { Self.assertTone(samples, period: period) }
    }

    // C8, C12: two sessions at once, 440 Hz at gain 1 and 3 kHz at gain 0.1 (ducked, -20 dB), each
    // rendered at 0.5: in the WAV, each tone's band (sox sinc) is at its level times its gain, the
    // second 20 dB below the first; the session meters say the same, as mixed.
    func testGainsScaleEachSessionInTheMix() throws {
        let path = file("gains.wav")
        let engine = try makeEngine(clock: MIX_CLOCK_FREE, wav: path, cycles: 200)
        let loudRegion = try Self.createRegion()
        let duckedRegion = try Self.createRegion()
        let loud = try Renderer(host: loudRegion, frequency: 440)
        defer { loud.stop() }
        let ducked = try Renderer(host: duckedRegion, frequency: 3000)
        defer { ducked.stop() }
        let loudSlot = mix_engine_add(engine, loudRegion)
        let duckedSlot = mix_engine_add(engine, duckedRegion)
        XCTAssertNotEqual(loudSlot, duckedSlot)
        mix_engine_set(engine, loudSlot, true, 1, false)
        mix_engine_set(engine, duckedSlot, true, 0.1, false)
        try start(engine)
        XCTAssertTrue(Self.eventually { Self.output(engine).finished == 1 })
        let loudMeter = Self.session(engine, loudSlot)
        let duckedMeter = Self.session(engine, duckedSlot)
        XCTAssertNil(stop(engine))

        XCTAssertEqual(loudMeter.xruns + duckedMeter.xruns, 0)
        let loudBand = try Sox.stats(of: path, effects: ["sinc", "-t", "100", "300-600", "trim", "0.1", "-0.1"])
        let duckedBand = try Sox.stats(of: path, effects: ["sinc", "-t", "100", "2500-3500", "trim", "0.1", "-0.1"])
        XCTAssertEqual(loudBand.rmsDB, -9.03, accuracy: 0.5)
        XCTAssertEqual(duckedBand.rmsDB, -29.03, accuracy: 0.5)
        XCTAssertEqual(loudBand.rmsDB - duckedBand.rmsDB, 20, accuracy: 0.5, "ducked 20 dB below")
        // The last whole span is cycles 100 to 199: every one holds both tones.
        XCTAssertEqual(loudMeter.rms_dbfs, -9.03, accuracy: 0.05)
        XCTAssertEqual(duckedMeter.rms_dbfs, -29.03, accuracy: 0.05)
        XCTAssertEqual(duckedMeter.peak_dbfs, -26.02, accuracy: 0.05)
    }

    // C9, C13: the period mix_engine_set returns is exact: with the free clock racing along, a
    // session silenced (gain 0, still driven) from another thread is silent in the WAV from frame
    // P * period_frames on, its tone back from the period the next set returns, and unmixed (an
    // interruption) silent again from the period that set returns: not one sample of it after.
    func testSetReturnsThePeriodFromWhichTheChangeIsInTheSink() throws {
        let path = file("exact.wav")
        let engine = try makeEngine(clock: MIX_CLOCK_FREE, wav: path)
        let region = try Self.createRegion()
        let guest = try Renderer(host: region)
        defer { guest.stop() }
        let slot = mix_engine_add(engine, region)
        mix_engine_set(engine, slot, true, 1, false)
        try start(engine)
        XCTAssertTrue(Self.eventually { Self.output(engine).cycles >= 100 })
        let silenced = Int(mix_engine_set(engine, slot, true, 0, false))
        XCTAssertTrue(Self.eventually { Self.output(engine).cycles >= silenced + 50 })
        let collectedWhileSilenced = Self.session(engine, slot).periods_collected
        let restored = Int(mix_engine_set(engine, slot, true, 1, false))
        XCTAssertTrue(Self.eventually { Self.output(engine).cycles >= restored + 50 })
        let unmixed = Int(mix_engine_set(engine, slot, false, 1, false))
        XCTAssertTrue(Self.eventually { Self.output(engine).cycles >= unmixed + 20 })
        let meter = Self.session(engine, slot)
        XCTAssertNil(stop(engine))
        let cycles = Int(Self.output(engine).cycles)
        print("engine: silenced at \(silenced), restored at \(restored), unmixed at \(unmixed) of \(cycles) cycles")

        XCTAssertEqual(meter.xruns, 0)
        XCTAssertGreaterThan(collectedWhileSilenced, UInt64(silenced), "a silenced session is still driven")
        let samples = try Self.samples(of: path)
        XCTAssertEqual(samples.count, cycles * Self.samples)
        for period in 1..<(silenced - 1) { Self.assertTone(samples, period: period) }
        for period in silenced..<(restored - 1) {
            XCTAssertTrue(Self.period(samples, period).allSatisfy { $0 == 0 }, "period \(period) silenced")
        }
        for period in restored..<(unmixed - 1) { Self.assertTone(samples, period: period) }
        let silentFrom = unmixed * Self.samples
        if let sound = samples[silentFrom...].firstIndex(where: { $0 != 0 }) {
            XCTFail("sound at frame \(sound / Self.samples * Signals.periodFrames), after period \(unmixed)")
        }
    }

    // C14: under the real clock, a guest process stopped with SIGSTOP costs the mix only its own
    // silence: the mixer keeps its pace, the stopped session counts an xrun for every period, a
    // healthy session's tone stays in the WAV at its level; continued, its xruns stop; killed, they
    // count again, and nothing hangs.
    func testStoppedAndKilledGuestProcessesCostOnlyTheirOwnSilence() throws {
        let renderer = try RegionTests.buildRenderer()
        defer { unlink(renderer) }
        let path = file("frozen.wav")
        let engine = try makeEngine(clock: MIX_CLOCK_REAL, wav: path)
        let processRegion = try Self.createRegion()
        let healthyRegion = try Self.createRegion()
        var child = try RegionTests.spawn(
            renderer, fds: [mix_region_memfd(processRegion), mix_region_wake_fd(processRegion)],
            arguments: [
                "\(mix_region_memfd(processRegion))", "\(mix_region_wake_fd(processRegion))", "440", "0.5", "48000",
            ])
        defer {
            if child != 0 {
                kill(child, SIGKILL)
                var status: Int32 = 0
                waitpid(child, &status, 0)
            }
        }
        let healthy = try Renderer(host: healthyRegion, frequency: 1000, amplitude: 0.25)
        defer { healthy.stop() }
        let stoppable = mix_engine_add(engine, processRegion)
        let steady = mix_engine_add(engine, healthyRegion)
        mix_engine_set(engine, stoppable, true, 1, false)
        mix_engine_set(engine, steady, true, 1, false)
        try start(engine)
        print("engine: real-time thread \(mix_engine_realtime(engine))")
        XCTAssertTrue(
            Self.eventually {
                Self.session(engine, stoppable).periods_collected >= 20
                    && Self.session(engine, steady).periods_collected >= 20
            }, "both sessions render")
        usleep(200_000)

        XCTAssertEqual(kill(child, SIGSTOP), 0)
        var status: Int32 = 0
        XCTAssertEqual(waitpid(child, &status, WUNTRACED), child)
        let stopCycle = Self.output(engine).cycles
        let stoppedBefore = Self.session(engine, stoppable)
        let steadyBefore = Self.session(engine, steady)
        sleep(1)
        let stoppedAfter = Self.session(engine, stoppable)
        let steadyAfter = Self.session(engine, steady)
        let continueCycle = Self.output(engine).cycles
        let elapsed = continueCycle - stopCycle
        print("engine: \(elapsed) cycles in a second stopped, \(stoppedAfter.xruns - stoppedBefore.xruns) xruns")
        XCTAssertGreaterThan(elapsed, 50, "the mixer keeps its pace (100 a second)")
        XCTAssertLessThan(elapsed, 150)
        XCTAssertGreaterThanOrEqual(stoppedAfter.xruns - stoppedBefore.xruns + 3, elapsed, "an xrun a period")
        XCTAssertLessThanOrEqual(stoppedAfter.periods_collected - stoppedBefore.periods_collected, 2)
        XCTAssertLessThanOrEqual(steadyAfter.xruns - steadyBefore.xruns, 3, "the healthy session keeps up")

        XCTAssertEqual(kill(child, SIGCONT), 0)
        usleep(300_000)
        let continued = Self.session(engine, stoppable)
        usleep(500_000)
        let later = Self.session(engine, stoppable)
        XCTAssertLessThanOrEqual(later.xruns - continued.xruns, 3, "continued, it keeps up again")
        XCTAssertGreaterThan(later.periods_collected - continued.periods_collected, 25)

        XCTAssertEqual(kill(child, SIGKILL), 0)
        XCTAssertEqual(waitpid(child, &status, 0), child)
        child = 0
        let killCycle = Self.output(engine).cycles
        let killed = Self.session(engine, stoppable)
        usleep(500_000)
        let dead = Self.session(engine, stoppable)
        let sinceKill = Self.output(engine).cycles - killCycle
        XCTAssertGreaterThan(sinceKill, 25)
        XCTAssertGreaterThanOrEqual(dead.xruns - killed.xruns + 3, sinceKill)
        let stopping = Date()
        XCTAssertNil(stop(engine))
        XCTAssertLessThan(Date().timeIntervalSince(stopping), 2, "stopping waits for no guest")

        // While the process was stopped, the WAV holds the healthy tone alone, at its level.
        let first = Int(stopCycle + 5) * Signals.periodFrames
        let last = Int(continueCycle - 5) * Signals.periodFrames
        let stopped = try Sox.stats(of: path, effects: ["trim", "\(first)s", "=\(last)s"])
        XCTAssertEqual(stopped.peakDB, -12.04, accuracy: 0.1, "the 0.25 tone alone")
        XCTAssertEqual(stopped.rmsDB, -15.05, accuracy: 0.3)
    }

    // C13: the meters, read while the mixer writes them (no torn read: frames always periods
    // times 480), say after a second of a 0.5 tone at gain 0.5 what sox says of the WAV: -15.05 dB
    // RMS as mixed, for the session and the output.
    func testMetersShowTheLevelAsMixedAndCountPeriods() throws {
        let path = file("meters.wav")
        let engine = try makeEngine(clock: MIX_CLOCK_FREE, wav: path, cycles: 300)
        let region = try Self.createRegion()
        let guest = try Renderer(host: region)
        defer { guest.stop() }
        let slot = mix_engine_add(engine, region)
        mix_engine_set(engine, slot, true, 0.5, false)
        var before = mix_session_meter()
        XCTAssertTrue(mix_engine_session_meter(engine, slot, &before))
        XCTAssertEqual(before.rms_dbfs, MIX_LEVEL_FLOOR_DBFS)
        XCTAssertEqual(before.last_cycle, MIX_REGION_NONE)
        try start(engine)
        var reads = 0
        var lastCycles: UInt64 = 0
        let deadline = Date().addingTimeInterval(20)
        while Self.output(engine).finished == 0 && Date() < deadline {
            let meter = Self.session(engine, slot)
            let output = Self.output(engine)
            XCTAssertEqual(meter.frames_rendered, meter.periods_collected * UInt64(Self.frames))
            XCTAssertGreaterThanOrEqual(output.cycles, lastCycles)
            lastCycles = output.cycles
            reads += 1
        }
        let meter = Self.session(engine, slot)
        let output = Self.output(engine)
        XCTAssertNil(stop(engine))
        print("engine: \(reads) meter reads while mixing, mixer CPU \(output.cpu_ns / 1000) µs")

        XCTAssertEqual(meter.periods_collected, 299)
        XCTAssertEqual(meter.frames_rendered, 299 * UInt64(Self.frames))
        XCTAssertEqual(meter.xruns, 0)
        XCTAssertEqual(meter.last_cycle, 299)
        XCTAssertEqual(meter.rms_dbfs, -15.05, accuracy: 0.05)
        XCTAssertEqual(meter.peak_dbfs, -12.04, accuracy: 0.05)
        XCTAssertEqual(output.cycles, 300)
        XCTAssertEqual(output.rms_dbfs, -15.05, accuracy: 0.05)
        XCTAssertEqual(output.peak_dbfs, -12.04, accuracy: 0.05)
        XCTAssertEqual(output.clipped_samples, 0)
        XCTAssertGreaterThan(output.cpu_ns, 0)
        let stats = try Sox.stats(of: path, effects: ["trim", "\(100 * Signals.periodFrames)s"])
        XCTAssertEqual(stats.rmsDB, output.rms_dbfs, accuracy: 0.05)
    }

    // CONTRACT X7: beside a 440 Hz tone, a guest whose every period holds one NaN, +Inf or 1e30
    // (the rest a 3 kHz sine) is its own silence: the WAV is the tone alone, sample for sample,
    // at its level by sox (neither silenced by the NaN nor pinned at full scale by the others);
    // the bad session's meter reads silence, a finite number, and counts its bad samples, one a
    // period; the tone's counts none. A sample past full scale but within the limit is no fault:
    // it is clipped in the mix, as before.
    func testX7SamplesThatAreNotNumbersAreTheirGuestsOwnSilence() throws {
        for poison in [Float.nan, .infinity, -.infinity, 1e30, -(MIX_SAMPLE_LIMIT * 2)] {
            let path = file("poison-\(poison).wav")
            let engine = try makeEngine(clock: MIX_CLOCK_FREE, wav: path, cycles: 200)
            let toneRegion = try Self.createRegion()
            let badRegion = try Self.createRegion()
            let tone = try Renderer(host: toneRegion, frequency: 440)
            defer { tone.stop() }
            let bad = try Renderer(host: badRegion, frequency: 3000, poison: poison)
            defer { bad.stop() }
            let toneSlot = mix_engine_add(engine, toneRegion)
            let badSlot = mix_engine_add(engine, badRegion)
            mix_engine_set(engine, toneSlot, true, 1, false)
            mix_engine_set(engine, badSlot, true, 1, false)
            try start(engine)
            XCTAssertTrue(Self.eventually { Self.output(engine).finished == 1 }, "\(poison): 200 cycles done")
            let toneMeter = Self.session(engine, toneSlot)
            let badMeter = Self.session(engine, badSlot)
            XCTAssertNil(stop(engine))

            let samples = try Self.samples(of: path)
            for period in 1..<200 { Self.assertTone(samples, period: period) }
            let stats = try Sox.stats(of: path, effects: ["trim", "\(Signals.periodFrames)s"])
            XCTAssertEqual(stats.peakDB, -6.02, accuracy: 0.1, "\(poison)")
            XCTAssertEqual(stats.rmsDB, -9.03, accuracy: 0.1, "\(poison)")
            XCTAssertEqual(badMeter.peak_dbfs, MIX_LEVEL_FLOOR_DBFS, "\(poison): silence, and a finite number")
            XCTAssertEqual(badMeter.rms_dbfs, MIX_LEVEL_FLOOR_DBFS, "\(poison)")
            XCTAssertEqual(badMeter.periods_collected, 199, "\(poison): collected, then silenced")
            XCTAssertEqual(badMeter.bad_samples, 199, "\(poison): one a period")
            XCTAssertEqual(toneMeter.bad_samples, 0, "\(poison)")
            XCTAssertEqual(Self.output(engine).clipped_samples, 0, "\(poison): nothing reached the mix to clip")
        }
    }

    /// The input the test's source gives for period `period`: a distinct exact float per sample.
    private static func captured(_ period: UInt64, _ index: Int) -> Float {
        Float((period * UInt64(samples) + UInt64(index)) % (1 << 20)) / Float(1 << 20)
    }

    // C13: the input read once per cycle reaches the sessions that want it, in the slot of the
    // period asked: a guest that plays back its input puts period c's input into cycle c + 1's
    // output; one that does not want input finds silence there.
    func testInputReachesTheSessionsThatWantIt() throws {
        let path = file("input.wav")
        let periods = UnsafeMutablePointer<UInt64>.allocate(capacity: 1)
        periods.initialize(to: 0)
        defer { periods.deallocate() }
        let engine = try makeEngine(clock: MIX_CLOCK_FREE, wav: path, cycles: 100) { config in
            // Not a mix_source: read_input is the test's own, and only it reads `input`.
            config.input = UnsafeMutablePointer<mix_source>(OpaquePointer(periods))
            config.read_input = { input, samples, frames in
                let period = UnsafeMutableRawPointer(input!).assumingMemoryBound(to: UInt64.self)
                for index in 0..<Int(frames) * Int(EngineTests.channels) {
                    samples![index] = EngineTests.captured(period.pointee, index)
                }
                period.pointee += 1
                return true
            }
        }
        let listeningRegion = try Self.createRegion()
        let deafRegion = try Self.createRegion()
        let listening = try Renderer(host: listeningRegion, loopback: true)
        defer { listening.stop() }
        let deaf = try Renderer(host: deafRegion, loopback: true)
        defer { deaf.stop() }
        mix_engine_set(engine, mix_engine_add(engine, listeningRegion), true, 1, true)
        mix_engine_set(engine, mix_engine_add(engine, deafRegion), true, 1, false)
        try start(engine)
        XCTAssertTrue(Self.eventually { Self.output(engine).finished == 1 })
        XCTAssertNil(stop(engine))
        XCTAssertEqual(periods.pointee, 100, "read once per cycle")

        let samples = try Self.samples(of: path)
        XCTAssertEqual(samples.count, 100 * Self.samples)
        for period in 1..<100 {
            for (index, sample) in Self.period(samples, period).enumerated()
            where sample != Self.captured(UInt64(period - 1), index) {
                return XCTFail("period \(period) sample \(index): \(sample)")
            }
        }
    }

    // Removing a session while the mixer runs: its slot is retired within a couple of periods,
    // reaped (its region closed) and used again, over and over, with and without a guest, and the
    // mixer never touches a closed region (it would fault). Before the start, remove frees at once;
    // a full table, or a region of other sizes, is refused and stays the caller's.
    func testRemovedSessionsAreReapedAndTheirSlotsReused() throws {
        let engine = try makeEngine(clock: MIX_CLOCK_REAL, capacity: 2)
        let early = try Self.createRegion()
        let earlySlot = mix_engine_add(engine, early)
        mix_engine_remove(engine, earlySlot)
        XCTAssertEqual(mix_engine_reap(engine), 1, "not started: reaped at once")
        XCTAssertEqual(fcntl(mix_region_memfd(early), F_GETFD), -1, "its region closed")

        let odd = try Self.createRegion(frames: 240)
        XCTAssertEqual(mix_engine_add(engine, odd), -1, "240-frame periods refused")
        mix_region_close(odd)
        let resident = try Self.createRegion()
        let residentGuest = try Renderer(host: resident, frequency: 1000)
        defer { residentGuest.stop() }
        let residentSlot = mix_engine_add(engine, resident)
        mix_engine_set(engine, residentSlot, true, 0.5, false)
        try start(engine)

        var slots = Set<Int32>()
        var slowest: UInt64 = 0
        for round in 0..<12 {
            let region = try Self.createRegion()
            let guest = try round % 2 == 0 ? Renderer(host: region) : nil
            let slot = mix_engine_add(engine, region)
            XCTAssertGreaterThanOrEqual(slot, 0, "round \(round)")
            slots.insert(slot)
            let full = try Self.createRegion()
            XCTAssertEqual(mix_engine_add(engine, full), -1, "the table is full")
            mix_region_close(full)
            mix_engine_set(engine, slot, true, 0.5, round % 3 == 0)
            usleep(30_000)
            let memfd = mix_region_memfd(region)
            let removedAt = Self.output(engine).cycles
            mix_engine_remove(engine, slot)
            var reaped = 0
            XCTAssertTrue(
                Self.eventually(2) {
                    reaped += mix_engine_reap(engine)
                    return reaped == 1
                }, "round \(round): reaped")
            slowest = max(slowest, Self.output(engine).cycles - removedAt)
            XCTAssertEqual(fcntl(memfd, F_GETFD), -1, "round \(round): its region closed")
            var meter = mix_session_meter()
            XCTAssertFalse(mix_engine_session_meter(engine, slot, &meter), "a free slot has no meter")
            guest?.stop()
        }
        XCTAssertEqual(slots, [1 - residentSlot], "the one free slot, used again each round")
        XCTAssertLessThanOrEqual(slowest, 10, "reaped within a few periods (a noisy machine's)")
        print("engine: reaped at most \(slowest) cycles after removal")
        XCTAssertGreaterThan(Self.session(engine, residentSlot).periods_collected, 25, "the resident session mixed on")
        XCTAssertNil(stop(engine))
        mix_engine_remove(engine, residentSlot)
        XCTAssertEqual(mix_engine_reap(engine), 1, "stopped: reaped at once")
    }

    // C13: the real clock paces cycles at 10 ms (100 take about a second: a loose bound, the
    // machine is shared); the free clock with no session mixed advances at real time too, rather
    // than spin writing silence.
    func testRealClockPacesAndAnIdleFreeClockDoesNotSpin() throws {
        let paced = try makeEngine(clock: MIX_CLOCK_REAL, cycles: 100)
        let began = Date()
        try start(paced)
        XCTAssertTrue(Self.eventually(10) { Self.output(paced).finished == 1 })
        let real = Date().timeIntervalSince(began)
        XCTAssertGreaterThan(real, 0.7)
        XCTAssertLessThan(real, 3)
        let meter = Self.output(paced)
        print(
            "engine: 100 real periods in \(real) s, real-time \(mix_engine_realtime(paced)), "
                + "overruns \(meter.overruns), latest wake \(meter.max_late_ns / 1000) µs")
        XCTAssertNil(stop(paced))

        let idle = try makeEngine(clock: MIX_CLOCK_FREE, cycles: 30)
        let idleBegan = Date()
        try start(idle)
        XCTAssertTrue(Self.eventually(10) { Self.output(idle).finished == 1 })
        XCTAssertGreaterThan(Date().timeIntervalSince(idleBegan), 0.2, "30 idle cycles of 10 ms")
        XCTAssertNil(stop(idle))
    }

    // C14 under the free clock: a guest that stops completing periods costs one wait of
    // free_wait_ns, then xruns without waits, and is waited for again once it renders again.
    func testFreeClockWaitsForAHungGuestOnlyOnce() throws {
        let engine = try makeEngine(clock: MIX_CLOCK_FREE, capacity: 2) { $0.free_wait_ns = 100_000_000 }
        let hungRegion = try Self.createRegion()
        let steadyRegion = try Self.createRegion()
        let hung = try Renderer(host: hungRegion)
        defer { hung.stop() }
        let steady = try Renderer(host: steadyRegion)
        defer { steady.stop() }
        let hungSlot = mix_engine_add(engine, hungRegion)
        let steadySlot = mix_engine_add(engine, steadyRegion)
        mix_engine_set(engine, hungSlot, true, 1, false)
        mix_engine_set(engine, steadySlot, true, 1, false)
        try start(engine)
        XCTAssertTrue(Self.eventually { Self.output(engine).cycles >= 50 })
        hung.pause(true)
        let pausedAt = Date()
        let before = Self.output(engine).cycles
        XCTAssertTrue(Self.eventually { Self.output(engine).cycles >= before + 500 }, "keeps mixing")
        let took = Date().timeIntervalSince(pausedAt)
        let xruns = Self.session(engine, hungSlot).xruns
        print("engine: 500 cycles past a hung guest in \(took) s, \(xruns) xruns")
        XCTAssertLessThan(took, 4, "one wait of 100 ms, not one per period (that would be 50 s)")
        XCTAssertGreaterThanOrEqual(xruns, 495)
        XCTAssertEqual(Self.session(engine, steadySlot).xruns, 0)
        hung.pause(false)
        XCTAssertTrue(
            Self.eventually {
                let a = Self.session(engine, hungSlot).xruns
                usleep(100_000)
                return Self.session(engine, hungSlot).xruns == a
            }, "resumed, it keeps up again")
        XCTAssertNil(stop(engine))
    }

    // A sink that fails (a full disk): the engine says so with the sink's line, keeps cycling
    // (sessions are still driven, meters still count) and stop reports it.
    func testASinkFailureIsReportedAndTheMixerKeepsCycling() throws {
        let kind = UnsafeMutablePointer<mix_stream_kind>.allocate(capacity: 1)
        defer { kind.deallocate() }
        kind.initialize(
            to: mix_stream_kind(
                write: { stream, _, _ in stream!.pointee.frames < 10 * 480 }, read: nil,
                finish: { _ in true }))
        let sink = try XCTUnwrap(
            mix_stream_new(MemoryLayout<mix_sink>.size, kind, UInt32(Signals.sampleRate), Self.channels)
        ).assumingMemoryBound(to: mix_sink.self)
        let engine = try makeEngine(clock: MIX_CLOCK_FREE, sink: sink, cycles: 50)
        try start(engine)
        XCTAssertTrue(Self.eventually { Self.output(engine).finished == 1 }, "all 50 cycles")
        var error = [CChar](repeating: 0, count: 256)
        XCTAssertTrue(mix_engine_failed(engine, &error, error.count))
        XCTAssertEqual(Self.text(error), "the sink failed")
        XCTAssertEqual(stop(engine), "the sink failed")
        XCTAssertNil(stop(engine), "once")
    }
}
