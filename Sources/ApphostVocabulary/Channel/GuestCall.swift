import ApphostModel
import Foundation

/// A scene handle as the C ABI's `apphost_scene_t`: opaque, never zero.
public typealias SceneHandle = UInt64

/// What the host tells a guest about a scene it connects (`apphost_scene_connection_t`).
public struct SceneConnection: Sendable, Codable, Equatable {
    public var scene: SceneHandle
    public var sessionID: String
    public var role: SceneRole
    /// foregroundInactive for a scene the user asked for, background for background work (S2).
    public var initialState: SceneState
    /// The bytes the session last saved, or nil when it saved none (S12).
    public var restorationData: Data?

    public init(
        scene: SceneHandle, sessionID: String, role: SceneRole, initialState: SceneState, restorationData: Data?
    ) {
        self.scene = scene
        self.sessionID = sessionID
        self.role = role
        self.initialState = initialState
        self.restorationData = restorationData
    }
}

/// Scene callbacks other than will-connect, named as in the C ABI.
public enum SceneCallback: String, Sendable, Codable, CaseIterable {
    case willEnterForeground = "will_enter_foreground"
    case didBecomeActive = "did_become_active"
    case willResignActive = "will_resign_active"
    case didEnterBackground = "did_enter_background"
    case didDisconnect = "did_disconnect"
}

/// A background task's id (`apphost_task_t`), given by the guest's runtime: never zero.
public typealias TaskID = UInt64
/// A host-run timer's id (`apphost_timer_t`), given by the guest's runtime: never zero.
public typealias TimerID = UInt64
/// An async work item's id, given by the guest's runtime: never zero.
public typealias WorkID = UInt64
/// A user action's activation (`apphost_activation_t`, S9), made by the host: never zero.
public typealias ActivationToken = UInt64
/// An audio activation request's id (`apphost_audio_request_t`), given by the guest's runtime:
/// never zero.
public typealias AudioRequestID = UInt64
/// A confirmed save's id (ABI 1.7, `save_scene_state_confirmed`), given by the guest's runtime:
/// never zero.
public typealias SaveConfirmationID = UInt64

/// A scene request's id (scenes.h's `apphost_request_t`, ABI 1.8): the runtime's, per guest,
/// counting from 1.
public typealias SceneRequestID = UInt64

/// Why the host refused a scene request after the runtime accepted it (scenes.h's
/// `enum apphost_request_refusal`).
public enum SceneRequestRefusal: UInt32, Sendable, Equatable {
    /// No unspent activation of a user action on the host's account (S9).
    case noActivation = 1
    /// The guest does not declare several scenes (S13).
    case notDeclared = 2
    /// The guest is suspended, or being suspended or resumed (B7).
    case suspended = 3
    /// Too many requests (N1-style); not used yet.
    case rateLimited = 4
}

/// Why the host took real-time priority away from a session's render thread for good (audio.h's
/// `enum apphost_audio_demotion_reason`, ABI 1.9, X7).
public enum AudioDemotionReason: UInt32, Sendable, Equatable {
    /// It kept missing its periods while it kept a processor busy.
    case missedDeadlines = 1
    /// It ran the real-time limit without sleeping once: a render that spins.
    case realtimeLimit = 2
}

/// One host-to-guest call. Every case is plain data so that it can cross a process boundary; an
/// audio stream's descriptors cross it beside the bytes (SCM_RIGHTS).
public enum GuestCall: Sendable, Equatable {
    case didFinishLaunching
    case willTerminate
    case didReceiveMemoryWarning
    case sceneWillConnect(SceneConnection)
    case scene(SceneHandle, SceneCallback)
    /// Runs the expiration handler of an open task (B3). The runtime skips a task ended meanwhile.
    case expireTask(TaskID)
    /// Runs a timer's work (B7: only while the guest runs). The runtime skips a cancelled timer.
    case fireTimer(TimerID)
    /// Runs one async work item the guest submitted.
    case runWork(WorkID)
    /// Tells the runtime the guest's background time, which `time_remaining` and `begin_task`
    /// answer from: nil while it is in the foreground (unlimited), else what is left of its
    /// budget as of this call; zero means no background work is possible (B1), as before the
    /// guest is suspended. No guest code runs.
    case backgroundTime(Duration?)
    /// The scenes extension (scenes.h): the scene's new size (S11), kept by the runtime for
    /// `scene_size`, then `did_change_size`.
    case sceneSize(SceneHandle, SceneSize)
    /// A user action on a scene. It grants the activation `token` (S9), which a request may
    /// spend within `activation` of its delivery: one made while the action's callback runs,
    /// or one that presents the token.
    case performAction(SceneHandle, name: String, payload: Data, activation: Duration, token: ActivationToken)
    /// The user asks to dismiss a modal (N3): the reply is 1 to let it go, 0 to keep it.
    case shouldDismissModal(SceneHandle, ModalID)
    /// The host dismissed a modal, and those above it, as the user asked (N3).
    case didDismissModal(SceneHandle, ModalID)
    /// The user closed this session for good (S7).
    case didDiscard(sessionID: String)
    /// Tells the runtime the host's notification limit (N1), so that `post_notification` over it
    /// is refused at once; the host counts on its own account too. No guest code runs.
    case notificationLimit(count: Int, window: Duration)
    /// Tells the runtime whether the host could store the last save of a connected scene (X5):
    /// while it could not, `save_scene_state` of the scene still hands its bytes over, for the
    /// host to try, but returns APPHOST_ERROR_INTERNAL. No guest code runs.
    case saveStatus(SceneHandle, failed: Bool)
    /// A save the guest asked to be confirmed (ABI 1.7) is stored for good, or could not be (X5):
    /// the runtime runs the confirmation the guest gave with it, on the guest's main queue.
    case saveConfirmation(SaveConfirmationID, stored: Bool)
    /// The host refused the guest's scene request `request` after its runtime accepted it (S9,
    /// S13): the runtime calls the guest's `did_refuse_request`, on its main queue.
    case sceneRequestRefused(SceneRequestID, reason: SceneRequestRefusal)
    /// The audio extension (audio.h). Tells the runtime the host's format and the session's route,
    /// for `get_session`, once after the guest starts. No guest code runs.
    case audioSetup(AudioFormat, AudioRoute)
    /// The host's answer to an activation request: nil when the session is active (C5).
    case audioActivationFinished(AudioRequestID, refusal: AudioActivationRefusal?)
    /// The session was interrupted: it is already inactive (C6).
    case audioInterruptionBegan(AudioInterruptionReason)
    /// The interruption ended; `shouldResume` only for a session that was playing (C7).
    case audioInterruptionEnded(AudioInterruptionReason, shouldResume: Bool)
    /// The session's route changed (C10).
    case audioRouteChanged(AudioRouteChangeReason, previous: AudioRoute, current: AudioRoute)
    /// Secondary audio should be silenced, or may play again (C11).
    case secondaryAudioHint(silence: Bool)
    /// The host's audio engine restarted: the session is as at launch (C15).
    case mediaServicesReset
    /// The session's shared memory, which the guest's render fills once its session is active
    /// (C13). The reply is APPHOST_ERROR_UNSUPPORTED for a guest without render. No guest code
    /// runs on the main queue.
    case audioStream(AudioStreamHandle)
    /// The session's render thread runs under ordinary scheduling for good (ABI 1.9, X7).
    case audioRenderDemoted(AudioDemotionReason)
    /// An action of the guest's table (F2): its declaration, its index there, and arguments of
    /// its declared types, in order.
    case action(GuestAction, index: Int, arguments: [ActionValue])

    /// The C callback's name, as events and logs show it.
    public var callbackName: String {
        switch self {
        case .didFinishLaunching: "did_finish_launching"
        case .willTerminate: "will_terminate"
        case .didReceiveMemoryWarning: "did_receive_memory_warning"
        case .sceneWillConnect: "will_connect"
        case .scene(_, let callback): callback.rawValue
        case .expireTask: "expiration_handler"
        case .fireTimer: "timer"
        case .runWork: "async_work"
        case .backgroundTime: "background_time"
        case .sceneSize: "did_change_size"
        case .performAction: "perform_action"
        case .shouldDismissModal: "should_dismiss_modal"
        case .didDismissModal: "did_dismiss_modal"
        case .didDiscard: "did_discard"
        case .notificationLimit: "notification_limit"
        case .saveStatus: "save_status"
        case .saveConfirmation: "save_confirmation"
        case .sceneRequestRefused: "did_refuse_request"
        case .audioSetup: "audio_setup"
        case .audioActivationFinished: "activation_finished"
        case .audioInterruptionBegan: "interruption_began"
        case .audioInterruptionEnded: "interruption_ended"
        case .audioRouteChanged: "route_changed"
        case .secondaryAudioHint: "secondary_audio_hint"
        case .mediaServicesReset: "media_services_reset"
        case .audioStream: "audio_stream"
        case .audioRenderDemoted: "render_demoted"
        case .action(let action, _, _): "action \(action.name)"
        }
    }

    /// Whether the guest's own code runs for this call; `backgroundTime`, `notificationLimit`,
    /// `saveStatus` and `audioSetup` only inform its runtime.
    public var runsGuestCode: Bool {
        switch self {
        case .backgroundTime, .notificationLimit, .saveStatus, .audioSetup, .audioStream: false
        default: true
        }
    }

    public var scene: SceneHandle? {
        switch self {
        case .sceneWillConnect(let connection): connection.scene
        case .scene(let handle, _), .sceneSize(let handle, _), .performAction(let handle, _, _, _, _),
            .shouldDismissModal(let handle, _), .didDismissModal(let handle, _), .saveStatus(let handle, _):
            handle
        default: nil
        }
    }
}

/// A call with the states the guest sees while it runs (`app_state` and `scene_state` in host.h).
public struct GuestMessage: Sendable, Equatable {
    public var call: GuestCall
    /// The app state the host has put the guest in with this transition.
    public var appState: AppState
    /// The state of `call.scene` after this transition; nil for app callbacks.
    public var sceneState: SceneState?

    public init(call: GuestCall, appState: AppState, sceneState: SceneState? = nil) {
        self.call = call
        self.appState = appState
        self.sceneState = sceneState
    }
}

/// Why a call got no answer from the guest.
public enum ChannelFailure: Error, Sendable, Codable, Equatable, CustomStringConvertible {
    /// The channel was closed before the guest answered.
    case closed
    /// The guest's process died; the text names the signal or exit status.
    case crashed(String)
    /// The channel could not do what was asked (for example freeze a process); the text says why.
    case failed(String)

    public var description: String {
        switch self {
        case .closed: "channel closed"
        case .crashed(let cause): "crashed: \(cause)"
        case .failed(let why): why
        }
    }
}

/// The guest's answer to a call: a C status code (`apphost_status_t`), or why there was none.
public typealias GuestReply = Result<Int32, ChannelFailure>
