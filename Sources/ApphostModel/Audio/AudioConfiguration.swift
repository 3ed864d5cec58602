/// A session's category, mode and options, set together in one call (CONTRACT C1, C3, C4), and
/// what they make of it beside other sessions (C2).
public struct AudioConfiguration: Sendable, Hashable, Codable, CustomStringConvertible {
    public var category: AudioCategory
    public var mode: AudioMode
    /// As given, with what duckOthers and interruptSpokenAudioAndMixWithOthers imply added.
    public var options: AudioOptions

    /// Every session's until its guest sets one (C1).
    public static let initial = AudioConfiguration(unchecked: .soloAmbient, mode: .default, options: [])

    private init(unchecked category: AudioCategory, mode: AudioMode, options: AudioOptions) {
        self.category = category
        self.mode = mode
        self.options = options
    }

    /// The configuration, or why the combination is refused (C3, C4): nothing of a session
    /// changes when it is.
    public init(category: AudioCategory, mode: AudioMode = .default, options: AudioOptions = [])
        throws(AudioConfigurationError)
    {
        guard AudioOptions.all.isSuperset(of: options) else {
            throw AudioConfigurationError("unknown audio options \(options.rawValue & ~AudioOptions.all.rawValue)")
        }
        guard mode.allows(category) else {
            throw AudioConfigurationError("the \(mode) mode is not for the \(category) category")
        }
        var options = options
        if !options.isDisjoint(with: [.duckOthers, .interruptSpokenAudioAndMixWithOthers]) {
            options.insert(.mixWithOthers)
        }
        if options.contains(.mixWithOthers), category != .playback, category != .playAndRecord {
            throw AudioConfigurationError("\(options) is only for the playback and playAndRecord categories")
        }
        if options.contains(.defaultToSpeaker), category != .playAndRecord {
            throw AudioConfigurationError("defaultToSpeaker is only for the playAndRecord category")
        }
        self.init(unchecked: category, mode: mode, options: options)
    }

    /// C2: plays along with other sessions rather than interrupting them.
    public var mixes: Bool { category == .ambient || options.contains(.mixWithOthers) }

    /// C8: lowers the other audible sessions while active.
    public var ducksOthers: Bool { options.contains(.duckOthers) }

    /// C4: pauses spoken audio while active: ducking does, and so does the option that says so.
    public var pausesSpokenAudio: Bool {
        !options.isDisjoint(with: [.duckOthers, .interruptSpokenAudioAndMixWithOthers])
    }

    /// C4: spoken audio is paused, never ducked.
    public var isSpokenAudio: Bool { mode == .spokenAudio }

    /// "playback/spokenAudio/mixWithOthers", as events and `ctl audio` show it.
    public var description: String { "\(category)/\(mode)/\(options)" }
}

/// Why a category, mode and options cannot go together (C3, C4); `description` is one line.
public struct AudioConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
