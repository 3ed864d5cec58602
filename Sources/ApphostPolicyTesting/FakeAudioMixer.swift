import ApphostModel
import ApphostVocabulary

/// A mixer that mixes nothing and writes down what the core told it, as lines such as
/// "open music", "music: mixed 0.1", "music: silent", "close music"; its meters are what the test
/// sets. Each `setMix` answers the next period, counting from 1.
public final class FakeAudioMixer: AudioMixer, @unchecked Sendable {
    // Used on the host executor only, as the core uses its mixer.
    public private(set) var log: [String] = []
    /// Makes `openStream` fail, as a full table would.
    public var refusesStreams = false
    public var meterReading = AudioMeters(
        output: AudioOutputMeter(
            sink: "null", source: "silence", clock: "real", realtime: false, level: .silence, periods: 0,
            overruns: 0, clippedSamples: 0, latencyMilliseconds: 10, lateMaxMilliseconds: 0, cpuSeconds: 0,
            failure: nil),
        sessions: [:])
    private var nextPeriod: UInt64 = 1
    private var open: Set<String> = []

    public init() {}

    /// A stream whose descriptors are none: the fake guests never map it.
    private final class Stream: AudioStream {
        let memoryDescriptor: Int32 = -1
        let wakeDescriptor: Int32 = -1
    }

    public func openStream(for guest: String) throws(AudioMixerError) -> any AudioStream {
        log.append("open \(guest)")
        if refusesStreams { throw AudioMixerError("the mixer's table is full") }
        open.insert(guest)
        return Stream()
    }

    public func setMix(of guest: String, _ mix: AudioMix) -> UInt64? {
        guard open.contains(guest) else { return nil }
        let gain = (mix.gain * 1000).rounded() / 1000
        log.append(mix.mixed ? "\(guest): mixed \(gain)" + (mix.recordsInput ? " +input" : "") : "\(guest): silent")
        defer { nextPeriod += 1 }
        return nextPeriod
    }

    public func closeStream(for guest: String) {
        log.append("close \(guest)")
        open.remove(guest)
    }

    public func meters() -> AudioMeters { meterReading }
}
