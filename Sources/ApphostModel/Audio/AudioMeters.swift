/// How loud a stretch of sound was (CONTRACT C13), as sox's `stats` says it of a file: peak and
/// RMS in dBFS over every channel, full scale 0 dBFS, a full-scale sine's RMS -3.01. Silence reads
/// -120 (the mixer's floor), so that every value is a number JSON can carry: a reading that is
/// not finite (the mixer never gives one) is taken as the floor, or as `ceilingDBFS` for +inf.
public struct AudioLevelReading: Sendable, Codable, Equatable {
    public var peakDBFS: Double
    public var rmsDBFS: Double

    /// Above any level a float sample can have (20 log10 of Float's largest value is 770.6).
    public static let ceilingDBFS = 1000.0

    public init(peakDBFS: Double, rmsDBFS: Double) {
        self.peakDBFS = Self.finite(peakDBFS)
        self.rmsDBFS = Self.finite(rmsDBFS)
    }

    static func finite(_ value: Double) -> Double {
        if value.isFinite { return value }
        return value == .infinity ? ceilingDBFS : -120
    }

    public static let silence = AudioLevelReading(peakDBFS: -120, rmsDBFS: -120)
}

/// One session's sound as the host's mixer took it (C13, C14), for `ctl audio`, `ps --json` and
/// the event stream.
public struct AudioSessionMeter: Sendable, Codable, Equatable {
    /// Over the last whole second the mixer measured, as mixed: the guest's samples times the gain
    /// the host gave them (so a ducked session reads 20 dB lower, a muted one -120).
    public var level: AudioLevelReading
    /// Frames the guest rendered that the mixer took, since its stream opened.
    public var framesRendered: UInt64
    /// Periods the mixer asked for and found not ready at its deadline: each was silence.
    public var xruns: UInt64
    /// Samples the guest rendered that were not numbers (NaN, infinite) or beyond +24 dBFS, since
    /// its stream opened: each period that held one was silence (CONTRACT X7).
    public var badSamples: UInt64

    public init(level: AudioLevelReading, framesRendered: UInt64, xruns: UInt64, badSamples: UInt64 = 0) {
        self.level = level
        self.framesRendered = framesRendered
        self.xruns = xruns
        self.badSamples = badSamples
    }

    enum CodingKeys: String, CodingKey {
        case level, framesRendered, xruns, badSamples
    }

    /// A host before `badSamples` did not send it: none counted.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        level = try container.decode(AudioLevelReading.self, forKey: .level)
        framesRendered = try container.decode(UInt64.self, forKey: .framesRendered)
        xruns = try container.decode(UInt64.self, forKey: .xruns)
        badSamples = try container.decodeIfPresent(UInt64.self, forKey: .badSamples) ?? 0
    }
}

/// The host's output, as its mixer made it (C13).
public struct AudioOutputMeter: Sendable, Codable, Equatable {
    /// Where the mix goes, as given (`null`, `wav:PATH`, `alsa:DEVICE`), and where recording
    /// sessions' input comes from.
    public var sink: String
    public var source: String
    /// `real` (the host's monotonic clock paces the mixer) or `free` (as fast as guests render).
    public var clock: String
    /// Whether the mixer thread got real-time scheduling (SCHED_FIFO); without, it runs as any
    /// thread and may be late under load.
    public var realtime: Bool
    /// Over the last whole second the mixer measured.
    public var level: AudioLevelReading
    /// Periods mixed since the mixer started.
    public var periods: UInt64
    /// Periods the mixer itself missed (it came back after their deadline), and samples it
    /// clipped to full scale.
    public var overruns: UInt64
    public var clippedSamples: UInt64
    /// From a guest's render to the sink, as configured (one period: a period rendered for
    /// deadline N is mixed at N + 1) and the largest lateness of the mixer's wake-ups, which
    /// adds to it.
    public var latencyMilliseconds: Double
    public var lateMaxMilliseconds: Double
    /// The mixer thread's CPU time since it started.
    public var cpuSeconds: Double
    /// Why the sink stopped taking the mix (a full disk, a device gone); nil while it works.
    public var failure: String?

    public init(
        sink: String, source: String, clock: String, realtime: Bool, level: AudioLevelReading, periods: UInt64,
        overruns: UInt64, clippedSamples: UInt64, latencyMilliseconds: Double, lateMaxMilliseconds: Double,
        cpuSeconds: Double, failure: String?
    ) {
        self.sink = sink
        self.source = source
        self.clock = clock
        self.realtime = realtime
        self.level = level
        self.periods = periods
        self.overruns = overruns
        self.clippedSamples = clippedSamples
        self.latencyMilliseconds = latencyMilliseconds
        self.lateMaxMilliseconds = lateMaxMilliseconds
        self.cpuSeconds = cpuSeconds
        self.failure = failure
    }
}

/// Everything the mixer measures, at one moment.
public struct AudioMeters: Sendable, Equatable {
    public var output: AudioOutputMeter
    /// By guest id: the guests with an open stream.
    public var sessions: [String: AudioSessionMeter]

    public init(output: AudioOutputMeter, sessions: [String: AudioSessionMeter]) {
        self.output = output
        self.sessions = sessions
    }
}
