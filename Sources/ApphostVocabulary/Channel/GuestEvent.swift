import ApphostModel
import Foundation

/// Guest log levels; raw values are the C ABI's `enum apphost_log_level`.
public enum GuestLogLevel: Int32, Sendable, CodableByName {
    case trace = 0
    case debug = 1
    case info = 2
    case warning = 3
    case error = 4
}

/// What reaches the host from a guest's side of the channel, as plain data: the guest's own
/// calls (log, save), and the channel's word that the guest is gone. Each report of
/// apphost_messages.h is a case its entry names, and its entry's AREA is the case's `area`
/// (generated); the channel's own events, not on the wire, have theirs in `channelArea`.
public enum GuestEvent: Sendable, Codable, Equatable {
    /// The opener read the guest's descriptor: its id is known before its init runs, so that what
    /// the guest logs from init is named by its id, not by its library's path. Openers send it
    /// before anything the guest sends. The channel's own (`channelArea`).
    case identified(guestID: String)
    case log(GuestLogLevel, String)
    /// `save_scene_state`; with a `confirmation`, `save_scene_state_confirmed` (ABI 1.7): the
    /// id its runtime gave the save's confirmation, which `saveConfirmation` names once the save
    /// is stored or could not be (X5).
    case saveSceneState(SceneHandle, Data, confirmation: SaveConfirmationID? = nil)
    /// The guest's process ended without being asked (CONTRACT X2); the text names the signal
    /// or exit status, such as "killed by SIGSEGV" or "exited with status 3". The channel's own
    /// (`channelArea`).
    case died(String)
    /// The guest began a background task (`begin_task` returned `id`); the name is cut to
    /// APPHOST_TASK_NAME_MAX_BYTES.
    case taskBegan(TaskID, name: String)
    /// The guest ended an open task.
    case taskEnded(TaskID)
    /// The guest asked for `fireTimer(id)` after `delay`, then every `interval` unless nil.
    case timerScheduled(TimerID, delay: Duration, interval: Duration?)
    /// The guest cancelled a timer.
    case timerCancelled(TimerID)
    /// The guest asked for `runWork(id)` on its main queue.
    case workSubmitted(WorkID)
    /// The scenes extension (scenes.h). The guest asked for a new scene beside `from`, starting
    /// with `state` as its saved state, spending the user action's activation `activation` (S9),
    /// which its runtime found unspent; the host checks it on its own account. `request` is the
    /// id its runtime gave the request, which `sceneRequestRefused` names if the host refuses it.
    case sceneRequested(
        activation: ActivationToken, from: SceneHandle, role: SceneRole, style: PresentationStyle, state: Data,
        request: SceneRequestID)
    /// The guest asked to show one of its sessions (S9: no activation needed).
    case sessionActivationRequested(sessionID: String, style: PresentationStyle)
    /// A connected scene reported its loading progress (N2).
    case loadingProgress(SceneHandle, LoadingProgress)
    /// The guest presented a modal over a connected scene, on top of its stack (N3).
    case modalPresented(SceneHandle, ModalID, style: ModalStyle, title: String)
    /// The guest dismissed a modal of a scene, and those above it.
    case modalDismissed(SceneHandle, ModalID)
    /// The guest posted a user notification (N1); the host rate-limits them.
    case notificationPosted(title: String, body: String)
    /// The guest closed one of its own sessions for good (S7; `close_session`, ABI 1.2).
    case sessionCloseRequested(sessionID: String)
    /// The guest named a connected scene for people (`set_scene_title`, ABI 1.3); empty when it
    /// took the title away.
    case sceneTitleChanged(SceneHandle, title: String)
    /// The audio extension (audio.h, ABI 1.4). The guest set its session's category, mode and
    /// options, a combination its runtime accepted (C1, C3, C4).
    case audioConfigured(AudioConfiguration)
    /// The guest asked for its session to be active (C5); the host answers with
    /// `audioActivationFinished` and the same id.
    case audioActivationRequested(AudioRequestID)
    /// The guest deactivated its session, telling the sessions it interrupted or not (C7).
    case audioDeactivated(notifyOthers: Bool)
    /// The guest plays or records through its session now, or has paused (C7, B9).
    case audioRendering(Bool)
    /// The guest's relative gain, 0 to 1 (C12).
    case audioGainChanged(Double)
    /// A playAndRecord session's output override (C10).
    case audioOutputOverridden(AudioOutputOverride)
    /// The guest's audio thread started (C13): its thread id in the guest's process, and whether
    /// it runs real-time (SCHED_FIFO), by itself or because the channel made it so.
    case audioThread(id: Int32, realtime: Bool)
    /// The worker's own report: that audio thread ran the real-time limit (RLIMIT_RTTIME's soft
    /// limit) without sleeping once, and the worker put it back to ordinary scheduling (X7).
    case audioThreadOverran(id: Int32)
    /// The actions extension (actions.h, ABI 1.6): how the action the guest is in ended, just
    /// before the call's reply (F2).
    case actionFinished(ActionOutcome)
    /// The worker's container refused a system call of this name (X6), once per name in the
    /// worker's life; the guest got an error.
    case sandboxRefused(call: String)
}

extension GuestEvent {
    /// The part of the host's policy that takes an event the channel makes itself, which is no
    /// report of apphost_messages.h: `area` gives a report's from its entry, and this for the
    /// rest. A new event of the channel's own names its area here.
    var channelArea: GuestEventArea {
        switch self {
        case .identified, .died: return .core
        default: preconditionFailure("\(self) is neither a report of apphost_messages.h nor the channel's own")
        }
    }
}
