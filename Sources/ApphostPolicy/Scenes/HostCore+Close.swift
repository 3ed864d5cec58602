import ApphostModel
import ApphostVocabulary
import Foundation

/// CONTRACT S7: closing a scene discards its session; `SessionClosing` decides how, and keeps the
/// sessions closed while their guest did not run until it hears of them.
extension HostCore {
    /// Closes a scene, named as `findScene` reads it.
    public func closeScene(
        _ name: String, completion: @escaping @Sendable (Result<String, HostCommandError>) -> Void = { _ in }
    ) {
        assertOnHostQueue()
        guard let (guest, index) = findScene(name, else: completion) else { return }
        closeSession(guest.scenes[index].sessionID, of: guest, reason: .requested, completion: completion)
    }

    /// Closes `session` of `guest` for good: `reason` is requested for the operator, guest for
    /// the guest's own close_session.
    func closeSession(
        _ session: String, of guest: GuestRecord, reason: TransitionReason,
        completion: @escaping @Sendable (Result<String, HostCommandError>) -> Void
    ) {
        let index = guest.sceneIndex(session: session)
        let facts = CloseFacts(
            known: index != nil, handle: index.flatMap { guest.scenes[$0].handle }, phase: guest.phase,
            stopped: guest.stopped, changingSuspension: guest.changingSuspension)
        switch closing.close(session, of: guest.id, facts, reason: reason) {
        case .failure(let error): completion(.failure(error))
        case .success(let effects): perform(effects, for: guest, closed: completion)
        }
    }

    /// Tells a running guest that `session` is gone (did-discard), then forgets it for good.
    func announceDiscard(_ session: String, to guest: GuestRecord) {
        guard guest.phase == .running || guest.phase == .launching, guest.channel != nil else { return }
        closing.announcing(session, of: guest.id)
        deliver(guest, .didDiscard(sessionID: session)) { [weak self] reply in
            guard let self, case .success = reply else { return }
            self.sessions.forget(session, of: guest)
        }
    }
}
