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

    public init(
        volume: Double, silenceSwitch: Bool, callInProgress: Bool, output: AudioOutput, input: AudioInput,
        devices: [AudioDevice], format: AudioFormat, mixer: AudioOutputMeter? = nil
    ) {
        self.volume = volume
        self.silenceSwitch = silenceSwitch
        self.callInProgress = callInProgress
        self.output = output
        self.input = input
        self.devices = devices
        self.format = format
        self.mixer = mixer
    }
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

    public init(
        category: AudioCategory, mode: AudioMode, options: AudioOptions, active: Bool, rendering: Bool,
        interruption: AudioInterruptionReason?, ducked: Bool, muted: Bool, gain: Double, level: Double,
        route: AudioRoute, nonconformances: Int, meter: AudioSessionMeter? = nil, realtime: Bool? = nil
    ) {
        self.category = category
        self.mode = mode
        self.options = options
        self.active = active
        self.rendering = rendering
        self.interruption = interruption
        self.ducked = ducked
        self.muted = muted
        self.gain = gain
        self.level = level
        self.route = route
        self.nonconformances = nonconformances
        self.meter = meter
        self.realtime = realtime
    }
}
