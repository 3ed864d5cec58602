import ApphostModel
import ApphostVocabulary
import Foundation

/// What a scenes part (`SceneTransitions`, `SceneRequests`, `SceneReports`, `SessionClosing`,
/// `SceneLimit`) says should happen to the guest an input concerned; its runner carries the
/// effects out in order (`SceneRunner`).
enum SceneEffect: Equatable, Sendable {
    /// Record this event of the guest's.
    case record(
        HostEvent.Kind, scene: SceneHandle? = nil, session: String? = nil, from: String? = nil, to: String? = nil,
        reason: TransitionReason? = nil, name: String? = nil, message: String? = nil)
    /// Deliver `call` to the guest, with the state of the scene it concerns (S9: a refusal of its
    /// request, `did_refuse_request`; S2 to S5: a scene's callback).
    case deliver(GuestCall, sceneState: SceneState? = nil)

    // MARK: A scene's moves (`SceneTransitions`)

    /// S1: the guest's `session` is in `state` now: recorded, and what an unattached one
    /// reported goes (`SceneReports.disconnected`).
    case state(session: String, SceneState, reason: TransitionReason)
    /// X5: the guest's runtime hears whose saves fail, or work again (a new connection).
    case tellSaveStatus
    /// B2: the guest entered background (a fresh budget) or left it (time is unlimited again).
    case background(entered: Bool)
    /// A1: the guest's app state changed from `from`: recorded, and its audio session follows.
    case appState(from: AppState, reason: TransitionReason)
    /// S6: a scene went to background: the scenes connected there over the limit disconnect.
    case limitBackground

    // MARK: Requests and closes (`SceneRequests`, `SessionClosing`, `SceneLimit`)

    /// S9, S10: open a new session of `role` with `state` (stored before it connects, S8), record
    /// the request with the new session, and show it as `style` beside the scene `from`.
    case open(role: SceneRole, state: Data, style: PresentationStyle, from: SceneHandle)
    /// S10: show the guest's existing `session` as `style`, beside the scene `beside`.
    case show(session: String, style: PresentationStyle, beside: SceneHandle? = nil)
    /// S7: close the guest's `session` for good, for `reason`.
    case close(session: String, reason: TransitionReason)
    /// S7, S3: the layout no longer shows `session`; what it showed goes to background first.
    case hide(session: String, reason: TransitionReason)
    /// S7: the session's connection `handle` ends: unattached, then did-disconnect, or with
    /// `held`, did-disconnect waits until the guest runs again (B7).
    case disconnect(session: String, handle: SceneHandle, reason: TransitionReason, held: Bool)
    /// S7: the guest no longer has `session`.
    case remove(session: String)
    /// S7: the store discards `session`; once it has, the close is recorded (`reason`) and, with
    /// `announce`, the guest hears did-discard at once.
    case discard(session: String, reason: TransitionReason, announce: Bool)
}
