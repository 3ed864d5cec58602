import ApphostModel
import ApphostVocabulary
import Foundation

/// CONTRACT S7: closing a scene discards its session. It leaves the layout (S3 if it was shown),
/// disconnects, and its saved state is deleted; the guest hears did-discard once that is done,
/// or when it next runs: resumed, or launched again, even by a later host.
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
        guard let index = guest.sceneIndex(session: session) else {
            return completion(.failure(HostCommandError.notFound("no session \(session) of \(guest.id)")))
        }
        guard !guest.changingSuspension, guest.phase != .launching, guest.phase != .terminating else {
            return completion(.failure(HostCommandError("\(guest.id) is \(guest.phase.rawValue); try again")))
        }
        let runs = guest.phase == .running && !guest.stopped
        if runs { arrange(layout.removing(SceneRef(guest: guest.id, session: session)), reason: reason) }
        if let handle = guest.scenes[index].handle {
            setSceneState(guest, scene: index, to: .unattached, reason: reason)
            guest.scenes[index].handle = nil
            if runs {
                deliver(guest, .scene(handle, .didDisconnect), sceneState: .unattached)
            } else {
                guest.held.holdDisconnect(handle)
            }
        }
        guest.scenes.remove(at: index)
        if !runs { guest.discarded.append(session) }
        sessions.discard(session, of: guest) { [weak self] in
            guard let self else { return }
            self.record(.sceneClosed, guest: guest.id, session: session, reason: reason)
            if runs { self.announceDiscard(session, to: guest) }
            completion(.success(session))
        }
    }

    /// Tells a running guest that `session` is gone (did-discard), then forgets it for good.
    func announceDiscard(_ session: String, to guest: GuestRecord) {
        guard guest.phase == .running || guest.phase == .launching, guest.channel != nil else { return }
        guest.discarded.removeAll { $0 == session }
        deliver(guest, .didDiscard(sessionID: session)) { [weak self] reply in
            guard let self, case .success = reply else { return }
            self.sessions.forget(session, of: guest)
        }
    }

}
