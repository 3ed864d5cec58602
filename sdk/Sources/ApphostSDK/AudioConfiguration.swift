import CApphost

/// What an audio session is for (CONTRACT C2): the C ABI's `enum apphost_audio_category`, what
/// `AVAudioSession.Category` is to an iOS app. A struct rather than an enum because a later minor
/// version of the ABI may add values: switch over it with a `default`.
///
/// | category | silenced by the silence switch | mixes with others | plays in background | interrupts others that do not mix |
/// | --- | --- | --- | --- | --- |
/// | ``ambient`` | yes | always | no | no |
/// | ``soloAmbient`` | yes | no | no | yes |
/// | ``playback`` | no | with ``AudioSessionOptions/mixWithOthers`` | yes | unless it mixes |
/// | ``record`` | no | no | yes | yes |
/// | ``playAndRecord`` | no | with ``AudioSessionOptions/mixWithOthers`` | yes | unless it mixes |
public struct AudioCategory: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// Sound that goes along with others, such as a game's.
    public static let ambient = AudioCategory(rawValue: Int32(APPHOST_AUDIO_CATEGORY_AMBIENT.rawValue))
    /// Every session's category until the guest sets one (CONTRACT C1).
    public static let soloAmbient = AudioCategory(rawValue: Int32(APPHOST_AUDIO_CATEGORY_SOLO_AMBIENT.rawValue))
    /// Sound that is the point, such as music or a podcast.
    public static let playback = AudioCategory(rawValue: Int32(APPHOST_AUDIO_CATEGORY_PLAYBACK.rawValue))
    /// Recording only: the session has no output.
    public static let record = AudioCategory(rawValue: Int32(APPHOST_AUDIO_CATEGORY_RECORD.rawValue))
    /// Both, as a call does.
    public static let playAndRecord = AudioCategory(
        rawValue: Int32(APPHOST_AUDIO_CATEGORY_PLAY_AND_RECORD.rawValue))

    public var description: String {
        switch self {
        case .ambient: "ambient"
        case .soloAmbient: "soloAmbient"
        case .playback: "playback"
        case .record: "record"
        case .playAndRecord: "playAndRecord"
        default: "audioCategory(\(rawValue))"
        }
    }
}

/// What the sound is, within its category (CONTRACT C4): the C ABI's `enum apphost_audio_mode`.
/// An extensible struct, as ``AudioCategory``.
public struct AudioMode: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// Any category.
    public static let `default` = AudioMode(rawValue: Int32(APPHOST_AUDIO_MODE_DEFAULT.rawValue))
    /// ``AudioCategory/playback`` only. Speech, such as a podcast: a session that ducks others
    /// (or says ``AudioSessionOptions/interruptSpokenAudioAndMixWithOthers``) interrupts it
    /// instead of lowering it, since speech under speech cannot be followed.
    public static let spokenAudio = AudioMode(rawValue: Int32(APPHOST_AUDIO_MODE_SPOKEN_AUDIO.rawValue))
    /// ``AudioCategory/playback`` only.
    public static let moviePlayback = AudioMode(rawValue: Int32(APPHOST_AUDIO_MODE_MOVIE_PLAYBACK.rawValue))
    /// ``AudioCategory/playAndRecord`` only.
    public static let voiceChat = AudioMode(rawValue: Int32(APPHOST_AUDIO_MODE_VOICE_CHAT.rawValue))
    /// ``AudioCategory/playAndRecord`` only.
    public static let videoChat = AudioMode(rawValue: Int32(APPHOST_AUDIO_MODE_VIDEO_CHAT.rawValue))

    public var description: String {
        switch self {
        case .default: "default"
        case .spokenAudio: "spokenAudio"
        case .moviePlayback: "moviePlayback"
        case .voiceChat: "voiceChat"
        case .videoChat: "videoChat"
        default: "audioMode(\(rawValue))"
        }
    }
}

/// How a session goes along with the others (CONTRACT C3): the C ABI's `enum
/// apphost_audio_option` bits. ``AudioSession/setCategory(_:mode:options:)`` refuses a
/// combination the table does not allow with ``ApphostError/invalidCombination``.
public struct AudioSessionOptions: OptionSet, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// ``AudioCategory/playback`` and ``AudioCategory/playAndRecord`` only: plays along with the
    /// other sessions instead of interrupting those that do not mix.
    public static let mixWithOthers = AudioSessionOptions(rawValue: APPHOST_AUDIO_OPTION_MIX_WITH_OTHERS.rawValue)
    /// Lowers every other audible session by 20 dB while this one is active (CONTRACT C8);
    /// implies ``mixWithOthers``.
    public static let duckOthers = AudioSessionOptions(rawValue: APPHOST_AUDIO_OPTION_DUCK_OTHERS.rawValue)
    /// Interrupts the other sessions of mode ``AudioMode/spokenAudio`` and mixes with the rest;
    /// implies ``mixWithOthers``.
    public static let interruptSpokenAudioAndMixWithOthers = AudioSessionOptions(
        rawValue: APPHOST_AUDIO_OPTION_INTERRUPT_SPOKEN_AUDIO_AND_MIX_WITH_OTHERS.rawValue)
    /// ``AudioCategory/playAndRecord`` only: plays from the speaker rather than the receiver.
    /// This host has no receiver, so it changes no route.
    public static let defaultToSpeaker = AudioSessionOptions(rawValue: APPHOST_AUDIO_OPTION_DEFAULT_TO_SPEAKER.rawValue)

    public var description: String {
        let names: [(AudioSessionOptions, String)] = [
            (.mixWithOthers, "mixWithOthers"), (.duckOthers, "duckOthers"),
            (.interruptSpokenAudioAndMixWithOthers, "interruptSpokenAudioAndMixWithOthers"),
            (.defaultToSpeaker, "defaultToSpeaker"),
        ]
        var parts = names.filter { contains($0.0) }.map(\.1)
        let unknown = subtracting(names.reduce(into: AudioSessionOptions()) { $0.formUnion($1.0) })
        if !unknown.isEmpty { parts.append("0x" + String(unknown.rawValue, radix: 16)) }
        return "[" + parts.joined(separator: ", ") + "]"
    }
}
