import CApphost

/// Where a session's sound goes: the C ABI's `enum apphost_audio_output`. The host has a
/// speaker until the operator unplugs it; the newest device plugged in takes over (CONTRACT
/// C10). An extensible struct, as ``AudioCategory``.
public struct AudioOutput: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// No output: the session is silent wherever it plays.
    public static let none = AudioOutput(rawValue: Int32(APPHOST_AUDIO_OUTPUT_NONE.rawValue))
    public static let speaker = AudioOutput(rawValue: Int32(APPHOST_AUDIO_OUTPUT_SPEAKER.rawValue))
    public static let headphones = AudioOutput(rawValue: Int32(APPHOST_AUDIO_OUTPUT_HEADPHONES.rawValue))
    public static let bluetooth = AudioOutput(rawValue: Int32(APPHOST_AUDIO_OUTPUT_BLUETOOTH.rawValue))
    public static let lineOut = AudioOutput(rawValue: Int32(APPHOST_AUDIO_OUTPUT_LINE_OUT.rawValue))

    public var description: String {
        switch self {
        case .none: "none"
        case .speaker: "speaker"
        case .headphones: "headphones"
        case .bluetooth: "bluetooth"
        case .lineOut: "lineOut"
        default: "audioOutput(\(rawValue))"
        }
    }
}

/// Where a session's sound comes from, for ``AudioCategory/record`` and
/// ``AudioCategory/playAndRecord``: the C ABI's `enum apphost_audio_input`.
public struct AudioInput: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    public static let none = AudioInput(rawValue: Int32(APPHOST_AUDIO_INPUT_NONE.rawValue))
    public static let builtInMic = AudioInput(rawValue: Int32(APPHOST_AUDIO_INPUT_BUILT_IN_MIC.rawValue))
    /// The microphone of wired headphones.
    public static let headsetMic = AudioInput(rawValue: Int32(APPHOST_AUDIO_INPUT_HEADSET_MIC.rawValue))
    public static let bluetooth = AudioInput(rawValue: Int32(APPHOST_AUDIO_INPUT_BLUETOOTH.rawValue))
    public static let lineIn = AudioInput(rawValue: Int32(APPHOST_AUDIO_INPUT_LINE_IN.rawValue))

    public var description: String {
        switch self {
        case .none: "none"
        case .builtInMic: "builtInMic"
        case .headsetMic: "headsetMic"
        case .bluetooth: "bluetooth"
        case .lineIn: "lineIn"
        default: "audioInput(\(rawValue))"
        }
    }
}

/// A session's route: where its sound goes and comes from (`apphost_audio_route_t`).
public struct AudioRoute: Sendable, Hashable, CustomStringConvertible {
    public var output: AudioOutput
    public var input: AudioInput

    public init(output: AudioOutput, input: AudioInput = .none) {
        self.output = output
        self.input = input
    }

    /// A route the host passed, or no route for a NULL pointer or one too small to hold both
    /// members (a broken host).
    init(_ route: UnsafePointer<apphost_audio_route_t>?) {
        guard let route,
            Int(route.pointee.struct_size) >= MemoryLayout<apphost_audio_route_t>.offset(of: \.input)! + 4
        else {
            self.init(output: .none)
            return
        }
        self.init(output: AudioOutput(rawValue: route.pointee.output), input: AudioInput(rawValue: route.pointee.input))
    }

    /// "headphones", or "headphones + headsetMic" with an input.
    public var description: String { input == .none ? "\(output)" : "\(output) + \(input)" }
}

/// Where ``AudioSession/overrideOutput(_:)`` sends a ``AudioCategory/playAndRecord`` session's
/// sound: the C ABI's `enum apphost_audio_output_override`.
public struct AudioOutputOverride: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// The route the devices give.
    public static let none = AudioOutputOverride(rawValue: Int32(APPHOST_AUDIO_OVERRIDE_NONE.rawValue))
    /// The speaker, whatever else is plugged in.
    public static let speaker = AudioOutputOverride(rawValue: Int32(APPHOST_AUDIO_OVERRIDE_SPEAKER.rawValue))

    public var description: String {
        switch self {
        case .none: "none"
        case .speaker: "speaker"
        default: "audioOutputOverride(\(rawValue))"
        }
    }
}
