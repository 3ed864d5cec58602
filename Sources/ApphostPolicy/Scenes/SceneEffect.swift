import ApphostModel
import ApphostVocabulary
import Foundation

/// What a scenes part (`SceneRequests`, `SessionClosing`) says should happen to the guest an
/// input concerned; the core carries the effects out in order (`HostCore.perform(_:for:)`).
enum SceneEffect: Equatable, Sendable {
    /// Record this event of the guest's.
    case record(
        HostEvent.Kind, scene: SceneHandle? = nil, session: String? = nil, reason: TransitionReason? = nil,
        name: String? = nil, message: String? = nil)
    /// S9, S10: open a new session of `role` with `state` (stored before it connects, S8), record
    /// the request with the new session, and show it as `style` beside the scene `from`.
    case open(role: SceneRole, state: Data, style: PresentationStyle, from: SceneHandle)
    /// S10: show the guest's existing `session` as `style`.
    case show(session: String, style: PresentationStyle)
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
    /// Deliver `call` to the guest (S9: a refusal of its request, `did_refuse_request`).
    case deliver(GuestCall)
}
