/// What a session's sound is, within its category (CONTRACT C4). Raw values will be the C ABI's.
public enum AudioMode: Int32, Sendable, CodableByName {
    case `default` = 0
    /// Speech, such as a podcast's: paused (interrupted), never ducked, when another session
    /// ducks others.
    case spokenAudio = 1
    case moviePlayback = 2
    case voiceChat = 3
    case videoChat = 4

    /// C4: the categories it may go with.
    public func allows(_ category: AudioCategory) -> Bool {
        switch self {
        case .default: true
        case .spokenAudio, .moviePlayback: category == .playback
        case .voiceChat, .videoChat: category == .playAndRecord
        }
    }
}
