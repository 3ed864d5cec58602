/// Why a session was interrupted (CONTRACT C6; audio.h's
/// `enum apphost_audio_interruption_reason`).
public enum AudioInterruptionReason: String, Sendable, Codable, CaseIterable, CustomStringConvertible {
    /// Another guest's session: a non-mixing one (C5), or one that pauses spoken audio (C4).
    case otherSession
    /// The operator's call-like interruption, which beats every guest.
    case call
    /// Its guest went to background without the right to play there (B9).
    case appWentToBackground
    /// Its output went away and nothing is left to play on (C10).
    case routeGone
    /// The host suspended its guest (C14).
    case suspended

    public var description: String { rawValue }
}

/// Why an activation is refused (C5); the session stays inactive.
public enum AudioActivationRefusal: String, Error, Sendable, Codable, CaseIterable, CustomStringConvertible {
    /// A session of higher priority holds audio: the operator's call-like interruption.
    case callInProgress
    /// A guest in background may not start a session that interrupts others.
    case nonMixingInBackground
    /// The host was suspending or terminating the guest when it took the request.
    case notRunning

    public var description: String {
        switch self {
        case .callInProgress: "a call holds audio"
        case .nonMixingInBackground: "a guest in background cannot activate a session that does not mix with others"
        case .notRunning: "the guest is being suspended or terminated"
        }
    }
}
