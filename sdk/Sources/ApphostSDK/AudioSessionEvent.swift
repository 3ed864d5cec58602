import CApphost

/// What the host tells a guest about its audio session, on the main queue (`apphost_guest_audio_t`
/// but activation's answers, which ``AudioSession/activate()`` returns): what AVAudioSession's
/// notifications are to an iOS app. Get them from ``AudioSession/events``.
public enum AudioSessionEvent: Sendable, Hashable, CustomStringConvertible {
    /// The session was interrupted for `reason`: it is already inactive and no longer mixed
    /// (CONTRACT C6). Stop playing and show it. An ended may never come.
    case interruptionBegan(reason: AudioInterruptionReason)
    /// The interruption of `reason` ended. With `shouldResume`, the session was playing when
    /// interrupted and whoever interrupted it says it may go on: activate again and resume.
    /// Without, stay paused (CONTRACT C7).
    case interruptionEnded(reason: AudioInterruptionReason, shouldResume: Bool)
    /// The session's route changed from `previous` to `current` for `reason` (CONTRACT C10). On
    /// ``AudioRouteChangeReason/oldDeviceUnavailable`` (the headphones came out) a playing guest
    /// pauses: the host checks, and reports a guest still playing a second later.
    case routeChanged(reason: AudioRouteChangeReason, previous: AudioRoute, current: AudioRoute)
    /// Another guest's session that does not mix started playing (`silence` true) or stopped,
    /// while this guest is in the foreground with an active session (CONTRACT C11): silence the
    /// sound that only goes along with the rest, such as a game's soundtrack, and bring it back.
    case secondaryAudioHint(silence: Bool)
    /// The host's audio engine restarted (CONTRACT C15): the session is back to
    /// ``AudioCategory/soloAmbient``, inactive, with a gain of 1, as at launch. Set it up again.
    case mediaServicesReset
    /// The session's render thread lost its real-time priority for good, for `reason` (ABI 1.9,
    /// CONTRACT X7): its periods are late whenever others want the processor. The session stays
    /// active; do less work per period.
    case renderDemoted(reason: AudioDemotionReason)

    public var description: String {
        switch self {
        case .interruptionBegan(let reason): "interruptionBegan(\(reason))"
        case .interruptionEnded(let reason, let shouldResume):
            "interruptionEnded(\(reason), shouldResume: \(shouldResume))"
        case .routeChanged(let reason, let previous, let current): "routeChanged(\(reason), \(previous) -> \(current))"
        case .secondaryAudioHint(let silence): "secondaryAudioHint(silence: \(silence))"
        case .mediaServicesReset: "mediaServicesReset"
        case .renderDemoted(let reason): "renderDemoted(\(reason))"
        }
    }
}

/// Why a session's render thread lost its real-time priority (CONTRACT X7): the C ABI's `enum
/// apphost_audio_demotion_reason`. An extensible struct, as ``AudioInterruptionReason``.
public struct AudioDemotionReason: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// It kept missing its periods while it kept a processor busy.
    public static let missedDeadlines = AudioDemotionReason(
        rawValue: Int32(APPHOST_AUDIO_DEMOTED_MISSED_DEADLINES.rawValue))
    /// It ran the real-time limit without sleeping once: a render that spins.
    public static let realtimeLimit = AudioDemotionReason(
        rawValue: Int32(APPHOST_AUDIO_DEMOTED_REALTIME_LIMIT.rawValue))

    public var description: String {
        switch self {
        case .missedDeadlines: "missedDeadlines"
        case .realtimeLimit: "realtimeLimit"
        default: "reason \(rawValue)"
        }
    }
}

/// Why a session was interrupted (CONTRACT C6): the C ABI's `enum
/// apphost_audio_interruption_reason`. An extensible struct, as ``AudioCategory``.
public struct AudioInterruptionReason: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// Another guest activated a session that does not mix (C5), or one that interrupts spoken
    /// audio (C4).
    public static let otherSession = AudioInterruptionReason(
        rawValue: Int32(APPHOST_AUDIO_INTERRUPTION_OTHER_SESSION.rawValue))
    /// The operator's call-like interruption.
    public static let call = AudioInterruptionReason(rawValue: Int32(APPHOST_AUDIO_INTERRUPTION_CALL.rawValue))
    /// The guest went to background without the right to play there (B9).
    public static let appWentToBackground = AudioInterruptionReason(
        rawValue: Int32(APPHOST_AUDIO_INTERRUPTION_APP_WENT_TO_BACKGROUND.rawValue))
    /// The session's output went away and nothing is left to play on.
    public static let routeGone = AudioInterruptionReason(
        rawValue: Int32(APPHOST_AUDIO_INTERRUPTION_ROUTE_GONE.rawValue))
    /// The host suspended the guest (C14).
    public static let suspended = AudioInterruptionReason(
        rawValue: Int32(APPHOST_AUDIO_INTERRUPTION_SUSPENDED.rawValue))

    public var description: String {
        switch self {
        case .otherSession: "otherSession"
        case .call: "call"
        case .appWentToBackground: "appWentToBackground"
        case .routeGone: "routeGone"
        case .suspended: "suspended"
        default: "interruptionReason(\(rawValue))"
        }
    }
}

/// Why a session's route changed (CONTRACT C10): the C ABI's `enum
/// apphost_audio_route_change_reason`. An extensible struct, as ``AudioCategory``.
public struct AudioRouteChangeReason: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// A device was plugged in and the session now uses it.
    public static let newDeviceAvailable = AudioRouteChangeReason(
        rawValue: Int32(APPHOST_AUDIO_ROUTE_NEW_DEVICE_AVAILABLE.rawValue))
    /// The device the session used went away (headphones unplugged): a playing guest should pause.
    public static let oldDeviceUnavailable = AudioRouteChangeReason(
        rawValue: Int32(APPHOST_AUDIO_ROUTE_OLD_DEVICE_UNAVAILABLE.rawValue))
    /// The guest's new category routes it differently (a record session has no output).
    public static let categoryChange = AudioRouteChangeReason(
        rawValue: Int32(APPHOST_AUDIO_ROUTE_CATEGORY_CHANGE.rawValue))
    /// The guest's ``AudioSession/overrideOutput(_:)`` took effect, or ended.
    public static let override = AudioRouteChangeReason(rawValue: Int32(APPHOST_AUDIO_ROUTE_OVERRIDE.rawValue))

    public var description: String {
        switch self {
        case .newDeviceAvailable: "newDeviceAvailable"
        case .oldDeviceUnavailable: "oldDeviceUnavailable"
        case .categoryChange: "categoryChange"
        case .override: "override"
        default: "routeChangeReason(\(rawValue))"
        }
    }
}

/// Why the host refused to activate a session (CONTRACT C5): what ``AudioSession/activate()``
/// throws, from the C ABI's `enum apphost_audio_activation_result`. The session stays inactive.
public enum AudioActivationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A call-like interruption from the operator holds audio, and beats every guest. Try again
    /// after ``AudioSessionEvent/interruptionEnded(reason:shouldResume:)``.
    case callInProgress
    /// The guest is in background, where it may activate only a session that mixes with others.
    case nonMixingInBackground
    /// The host was suspending or terminating the guest when it took the request.
    case notRunning
    /// A refusal these headers do not know, from a newer host.
    case unknown(Int32)

    /// The refusal for an `activation_finished` result other than `APPHOST_AUDIO_ACTIVATED`.
    init(result: Int32) {
        switch result {
        case Int32(APPHOST_AUDIO_REFUSED_CALL_IN_PROGRESS.rawValue): self = .callInProgress
        case Int32(APPHOST_AUDIO_REFUSED_NON_MIXING_IN_BACKGROUND.rawValue): self = .nonMixingInBackground
        case Int32(APPHOST_AUDIO_REFUSED_NOT_RUNNING.rawValue): self = .notRunning
        default: self = .unknown(result)
        }
    }

    /// The C result code.
    public var result: Int32 {
        switch self {
        case .callInProgress: Int32(APPHOST_AUDIO_REFUSED_CALL_IN_PROGRESS.rawValue)
        case .nonMixingInBackground: Int32(APPHOST_AUDIO_REFUSED_NON_MIXING_IN_BACKGROUND.rawValue)
        case .notRunning: Int32(APPHOST_AUDIO_REFUSED_NOT_RUNNING.rawValue)
        case .unknown(let result): result
        }
    }

    public var description: String {
        switch self {
        case .callInProgress: "callInProgress"
        case .nonMixingInBackground: "nonMixingInBackground"
        case .notRunning: "notRunning"
        case .unknown(let result): "refused(\(result))"
        }
    }
}
