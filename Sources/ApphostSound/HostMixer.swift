import ApphostALSA
import ApphostMixing
import ApphostModel
import ApphostVocabulary
import Glibc
import Synchronization

/// The host's mixer (CONTRACT C13): ApphostMixing's engine (a real-time thread that collects each
/// mixed session's period from its region, mixes them with their gains into the sink and asks
/// again), with the sink and source the operator chose, behind the core's `AudioMixer`.
///
/// The engine's table is changed from one thread at a time: the host queue, under `state`'s lock,
/// which the meters take too (never the mixer thread, which reads atomics and publishes its
/// meters through seqlocks).
public final class HostMixer: AudioMixer, Sendable {
    public let configuration: MixerConfiguration
    // The engine and source are C handles, used only under `state`'s lock or by the engine itself.
    private nonisolated(unsafe) let engine: OpaquePointer
    private nonisolated(unsafe) let source: UnsafeMutablePointer<mix_source>
    private let state = Mutex<State>(State())

    private struct State {
        /// The engine's slot of each guest's stream.
        var slots: [String: Int32] = [:]
        var stopped = false
    }

    /// Opens the sink and the source, and starts the mixer thread. Throws one line when either
    /// cannot be opened (a WAV file's directory missing, an ALSA device unknown) or the thread
    /// cannot start.
    public init(_ configuration: MixerConfiguration) throws(AudioMixerError) {
        self.configuration = configuration
        let format = configuration.format
        let rate = UInt32(clamping: format.sampleRate)
        let channels = UInt32(clamping: format.channelCount)
        let frames = UInt32(clamping: format.periodFrames)
        var error = [CChar](repeating: 0, count: Int(MIX_ENGINE_ERROR_BYTES))
        func failure(_ error: [CChar]) -> AudioMixerError {
            AudioMixerError(String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        let sink: OpaquePointer? =
            switch configuration.output {
            case .null: mix_null_sink_open(rate, channels).map { OpaquePointer($0) }
            // A header every 10 periods: a killed host leaves a file that holds all but 0.1 s.
            case .wav(let path):
                mix_wav_sink_open(path, rate, channels, 10, &error, error.count).map { OpaquePointer($0) }
            case .alsa(let device):
                mix_alsa_sink_open(device, rate, channels, frames, &error, error.count).map { OpaquePointer($0) }
            }
        guard let sink else {
            if error[0] == 0 { throw AudioMixerError("\(configuration.output): out of memory") }
            throw failure(error)
        }
        let opened: UnsafeMutablePointer<mix_source>? =
            switch configuration.input {
            case .silence: mix_silence_source_open(rate, channels)
            case .tone(let hertz):
                mix_tone_source_open(rate, channels, hertz, MIX_TONE_DEFAULT_AMPLITUDE, &error, error.count)
            case .wav(let path): mix_wav_source_open(path, rate, channels, &error, error.count)
            case .alsa(let device): mix_alsa_source_open(device, rate, channels, frames, &error, error.count)
            }
        guard let opened else {
            mix_sink_close(UnsafeMutablePointer(sink), nil, 0)
            if error[0] == 0 { throw AudioMixerError("\(configuration.input): out of memory") }
            throw failure(error)
        }
        var engineConfiguration = mix_engine_config()
        engineConfiguration.sample_rate = rate
        engineConfiguration.channels = channels
        engineConfiguration.period_frames = frames
        engineConfiguration.clock = configuration.freeClock ? MIX_CLOCK_FREE : MIX_CLOCK_REAL
        engineConfiguration.capacity = UInt32(clamping: configuration.capacity)
        engineConfiguration.sink = UnsafeMutablePointer(sink)
        engineConfiguration.read_input = mix_source_read
        engineConfiguration.input = opened
        engineConfiguration.cycles = configuration.periods ?? 0
        // The engine owns the sink from here, even when it fails.
        guard let engine = mix_engine_create(&engineConfiguration, &error, error.count) else {
            mix_source_close(opened, nil, 0)
            throw failure(error)
        }
        guard mix_engine_start(engine, &error, error.count) else {
            mix_engine_destroy(engine)
            mix_source_close(opened, nil, 0)
            throw failure(error)
        }
        self.engine = engine
        self.source = opened
    }

    deinit {
        mix_engine_destroy(engine)
        mix_source_close(source, nil, 0)
    }

    public func openStream(for guest: String) throws(AudioMixerError) -> any AudioStream {
        let format = configuration.format
        var error = [CChar](repeating: 0, count: Int(MIX_REGION_ERROR_BYTES))
        let result: Result<RegionStream, AudioMixerError> = state.withLock { state in
            guard !state.stopped else { return .failure(AudioMixerError("the mixer has stopped")) }
            if let slot = state.slots.removeValue(forKey: guest) { mix_engine_remove(engine, slot) }
            guard
                let region = mix_region_create(
                    UInt32(clamping: format.periodFrames), UInt32(clamping: format.channelCount), 2, &error,
                    error.count)
            else {
                return .failure(
                    AudioMixerError(
                        String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)))
            }
            let memory = fcntl(mix_region_memfd(region), F_DUPFD_CLOEXEC, 0)
            let wake = fcntl(mix_region_wake_fd(region), F_DUPFD_CLOEXEC, 0)
            guard memory >= 0, wake >= 0 else {
                let reason = String(cString: strerror(errno))
                if memory >= 0 { close(memory) }
                if wake >= 0 { close(wake) }
                mix_region_close(region)
                return .failure(AudioMixerError("audio region: dup: \(reason)"))
            }
            let stream = RegionStream(memoryDescriptor: memory, wakeDescriptor: wake)
            let slot = mix_engine_add(engine, region)
            guard slot >= 0 else {
                mix_region_close(region)
                return .failure(
                    AudioMixerError("the mixer's table is full (\(configuration.capacity) streams)"))
            }
            state.slots[guest] = slot
            return .success(stream)
        }
        return try result.get()
    }

    public func setMix(of guest: String, _ mix: AudioMix) -> UInt64? {
        state.withLock { state in
            guard let slot = state.slots[guest] else { return nil }
            return mix_engine_set(engine, slot, mix.mixed, Float(mix.gain), mix.recordsInput)
        }
    }

    public func closeStream(for guest: String) {
        state.withLock { state in
            guard let slot = state.slots.removeValue(forKey: guest) else { return }
            mix_engine_remove(engine, slot)
            _ = mix_engine_reap(engine)
        }
    }

    public func meters() -> AudioMeters {
        state.withLock { state in
            // Regions the mixer let go since a stream closed go now.
            _ = mix_engine_reap(engine)
            var output = mix_output_meter()
            mix_engine_output_meter(engine, &output)
            var sessions: [String: AudioSessionMeter] = [:]
            for (guest, slot) in state.slots {
                var meter = mix_session_meter()
                guard mix_engine_session_meter(engine, slot, &meter) else { continue }
                sessions[guest] = AudioSessionMeter(
                    level: AudioLevelReading(peakDBFS: meter.peak_dbfs, rmsDBFS: meter.rms_dbfs),
                    framesRendered: meter.frames_rendered, xruns: meter.xruns, badSamples: meter.bad_samples)
            }
            var error = [CChar](repeating: 0, count: Int(MIX_ENGINE_ERROR_BYTES))
            let failed = mix_engine_failed(engine, &error, error.count)
            let format = configuration.format
            return AudioMeters(
                output: AudioOutputMeter(
                    sink: configuration.output.description, source: configuration.input.description,
                    clock: configuration.freeClock ? "free" : "real", realtime: mix_engine_realtime(engine),
                    level: AudioLevelReading(peakDBFS: output.peak_dbfs, rmsDBFS: output.rms_dbfs),
                    periods: output.cycles, overruns: output.overruns, clippedSamples: output.clipped_samples,
                    latencyMilliseconds: Double(format.periodFrames) * 1000 / Double(format.sampleRate),
                    lateMaxMilliseconds: Double(output.max_late_ns) / 1e6, cpuSeconds: Double(output.cpu_ns) / 1e9,
                    failure: failed
                        ? String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                        : nil),
                sessions: sessions)
        }
    }

    /// Stops the mixer thread and finishes the sink (a WAV file's sizes), once, as the host shuts
    /// down: nil, or the sink's failure in one line. Streams opened later fail.
    public func stop() -> String? {
        state.withLock { state in
            guard !state.stopped else { return nil }
            state.stopped = true
            var error = [CChar](repeating: 0, count: Int(MIX_ENGINE_ERROR_BYTES))
            guard !mix_engine_stop(engine, &error, error.count) else { return nil }
            return String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }
}
