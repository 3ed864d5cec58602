/// How a session behaves beside others (CONTRACT C3). Raw values will be the C ABI's bits.
public struct AudioOptions: OptionSet, Sendable, Hashable, Codable, CustomStringConvertible {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Plays along with other sessions instead of interrupting them.
    public static let mixWithOthers = AudioOptions(rawValue: 1 << 0)
    /// Lowers every other audible session while active (C8); implies mixWithOthers.
    public static let duckOthers = AudioOptions(rawValue: 1 << 1)
    /// Pauses spoken audio and mixes with the rest; implies mixWithOthers.
    public static let interruptSpokenAudioAndMixWithOthers = AudioOptions(rawValue: 1 << 2)
    /// Plays from the speaker rather than the receiver (playAndRecord only).
    public static let defaultToSpeaker = AudioOptions(rawValue: 1 << 3)

    static let named: [(AudioOptions, String)] = [
        (.mixWithOthers, "mixWithOthers"), (.duckOthers, "duckOthers"),
        (.interruptSpokenAudioAndMixWithOthers, "interruptSpokenAudioAndMixWithOthers"),
        (.defaultToSpeaker, "defaultToSpeaker"),
    ]

    /// Every option a session may name.
    public static let all: AudioOptions = [
        .mixWithOthers, .duckOthers, .interruptSpokenAudioAndMixWithOthers, .defaultToSpeaker,
    ]

    /// The options' names, comma-separated; "none" for no option.
    public var description: String {
        let names = Self.named.filter { contains($0.0) }.map(\.1)
        return names.isEmpty ? "none" : names.joined(separator: ",")
    }

    /// In JSON, the list of names.
    public init(from decoder: any Decoder) throws {
        let names = try decoder.singleValueContainer().decode([String].self)
        var options: AudioOptions = []
        for name in names {
            guard let option = Self.named.first(where: { $0.1 == name })?.0 else {
                throw DecodingError.dataCorrupted(
                    .init(codingPath: decoder.codingPath, debugDescription: "unknown audio option \(name)"))
            }
            options.insert(option)
        }
        self = options
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(Self.named.filter { contains($0.0) }.map(\.1))
    }
}
