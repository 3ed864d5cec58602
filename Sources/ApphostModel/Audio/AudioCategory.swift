/// What a guest's audio session is for (CONTRACT C2); it decides whether the silence switch
/// mutes it, whether it mixes with other sessions, and whether it may play in background. Raw
/// values will be the C ABI's.
public enum AudioCategory: Int32, Sendable, CodableByName {
    /// Sound that goes along with others, such as a game's: always mixes, silenced by the switch.
    case ambient = 0
    /// Every session's category until the guest sets one (C1): silenced, does not mix.
    case soloAmbient = 1
    /// Sound that is the point, such as music: plays in background, not silenced.
    case playback = 2
    /// Recording.
    case record = 3
    /// Both, as a call does.
    case playAndRecord = 4

    /// C9: the silence switch mutes it.
    public var isSilencedBySwitch: Bool { self == .ambient || self == .soloAmbient }

    /// C2, B9: an active session of it may keep its guest running in background.
    public var playsInBackground: Bool { !isSilencedBySwitch }
}
