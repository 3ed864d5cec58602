import ApphostModel

/// The host's side of audio, for operators (`apphost ctl audio`).
public struct AudioHostStatus: Sendable, Codable, Equatable {
    /// C12: 0 to 1.
    public var volume: Double
    /// C9.
    public var silenceSwitch: Bool
    /// The operator's call-like interruption is under way (C5, C6).
    public var callInProgress: Bool
    /// The host's output and input, and every plugged device, oldest first (C10).
    public var output: AudioOutput
    public var input: AudioInput
    public var devices: [AudioDevice]
    public var format: AudioFormat
    /// The mixer's output and its meters (C13); nil for a host without a mixer.
    public var mixer: AudioOutputMeter? = nil
}

/// One guest's audio session, for operators.
public struct AudioSessionStatus: Sendable, Codable, Equatable {
    public var category: AudioCategory
    public var mode: AudioMode
    public var options: AudioOptions
    public var active: Bool
    /// The guest says it plays or records now (C7, B9).
    public var rendering: Bool
    /// Why it is interrupted; nil when it is not (C6).
    public var interruption: AudioInterruptionReason?
    /// C8, C9.
    public var ducked: Bool
    public var muted: Bool
    /// The guest's own relative gain (C12), and the factor the host mixes its samples with.
    public var gain: Double
    public var level: Double
    public var route: AudioRoute
    /// How many times it went on playing after its output went away (C10).
    public var nonconformances: Int
    /// Its sound as the mixer takes it: level, frames rendered, xruns (C13); nil until its stream
    /// opens (its first activation, with a guest that implements render).
    public var meter: AudioSessionMeter? = nil
    /// Whether its audio thread runs real-time (SCHED_FIFO); nil until it started.
    public var realtime: Bool? = nil
}

extension HostCore {
    func audioHostStatus(meters: AudioMeters?) -> AudioHostStatus {
        AudioHostStatus(
            volume: audio.volume, silenceSwitch: audio.silenceSwitch, callInProgress: audio.callInProgress,
            output: audioRoutes.output, input: audioRoutes.input, devices: audioRoutes.devices,
            format: audioPolicy.format, mixer: meters?.output)
    }

    /// Nil while the guest does not run: it has no session then.
    func audioStatus(of guest: GuestRecord, meters: AudioMeters?) -> AudioSessionStatus? {
        guard guest.phase != .notRunning else { return nil }
        let session = audio.session(of: guest.id)
        let level = audio.level(of: guest.id)
        return AudioSessionStatus(
            category: session.configuration.category, mode: session.configuration.mode,
            options: session.configuration.options, active: session.active, rendering: session.rendering,
            interruption: session.interruption?.reason, ducked: level.ducked, muted: level.muted, gain: session.gain,
            level: level.gain, route: audioRoutes.route(of: guest.id), nonconformances: guest.audio.nonconformances,
            meter: guest.audio.stream == .open ? meters?.sessions[guest.id] : nil,
            realtime: guest.audio.realtimeRenderer)
    }
}
