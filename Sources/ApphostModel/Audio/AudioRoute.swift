/// Where a session's sound goes (audio.h's `enum apphost_audio_output`).
public enum AudioOutput: String, Sendable, Codable, CaseIterable, CustomStringConvertible {
    case none, speaker, headphones, bluetooth
    case lineOut = "line-out"

    public var description: String { rawValue }
}

/// Where a session's sound comes from (audio.h's `enum apphost_audio_input`).
public enum AudioInput: String, Sendable, Codable, CaseIterable, CustomStringConvertible {
    case none
    case builtInMic = "built-in-mic"
    case headsetMic = "headset-mic"
    case bluetooth
    case lineIn = "line-in"

    public var description: String { rawValue }
}

/// A session's route: its output and its input (CONTRACT C10).
public struct AudioRoute: Sendable, Hashable, Codable, CustomStringConvertible {
    public var output: AudioOutput
    public var input: AudioInput

    public init(output: AudioOutput, input: AudioInput) {
        self.output = output
        self.input = input
    }

    public static let none = AudioRoute(output: .none, input: .none)

    /// "headphones/headset-mic".
    public var description: String { "\(output)/\(input)" }
}

/// Why a session's route changed (CONTRACT C10; audio.h's
/// `enum apphost_audio_route_change_reason`).
public enum AudioRouteChangeReason: String, Sendable, Codable, CaseIterable, CustomStringConvertible {
    /// A device was plugged in and the session now uses it.
    case newDeviceAvailable
    /// The device the session used went away: a playing guest should pause.
    case oldDeviceUnavailable
    /// The guest's new category routes it differently.
    case categoryChange
    /// The guest's output override took effect or ended.
    case override

    public var description: String { rawValue }
}

/// A guest's override of its output (`enum apphost_audio_output_override`): playAndRecord only.
public enum AudioOutputOverride: String, Sendable, Codable, CaseIterable, CustomStringConvertible {
    case none, speaker

    public var description: String { rawValue }
}

/// A device the operator plugs into the host or unplugs (`ctl audio route plug|unplug`). Each
/// gives an output, an input, or both; the newest plugged in takes over (C10).
public enum AudioDevice: String, Sendable, Codable, CaseIterable, CustomStringConvertible {
    /// The built-in speaker: plugged in when the host starts.
    case speaker
    /// The built-in microphone: plugged in when the host starts.
    case builtInMic = "built-in-mic"
    /// Wired headphones with a microphone: an output and an input.
    case headphones
    /// A bluetooth headset: an output and an input.
    case bluetooth
    case lineOut = "line-out"
    case lineIn = "line-in"

    public var description: String { rawValue }

    /// What it gives as an output, if anything.
    public var output: AudioOutput? {
        switch self {
        case .speaker: .speaker
        case .headphones: .headphones
        case .bluetooth: .bluetooth
        case .lineOut: .lineOut
        case .builtInMic, .lineIn: nil
        }
    }

    /// What it gives as an input, if anything.
    public var input: AudioInput? {
        switch self {
        case .builtInMic: .builtInMic
        case .headphones: .headsetMic
        case .bluetooth: .bluetooth
        case .lineIn: .lineIn
        case .speaker, .lineOut: nil
        }
    }
}

/// The host's audio format: what guests render and the host mixes, one period at a time.
public struct AudioFormat: Sendable, Hashable, Codable {
    public var sampleRate: Int
    public var periodFrames: Int
    public var channelCount: Int

    public init(sampleRate: Int, periodFrames: Int, channelCount: Int) {
        self.sampleRate = sampleRate
        self.periodFrames = periodFrames
        self.channelCount = channelCount
    }

    /// 48 kHz, 10 ms periods, stereo.
    public static let standard = AudioFormat(sampleRate: 48_000, periodFrames: 480, channelCount: 2)
}
