import ApphostModel
import ApphostVocabulary
import Foundation

/// A guest's scene reports (to `SceneRequests`, `SceneReports`) and the operator's scene commands
/// (S11 layout, S9 actions, N3 modals, S7 closes): the parts decide; the core asks the guest.
extension HostCore {
    func handleScenes(_ event: GuestEvent, from guest: GuestRecord) {
        let (facts, now) = (guest.sceneFacts, clock.uptime())
        perform(requests.report(event, from: facts, at: now) + reports.report(event, from: facts), for: guest)
    }

    /// Sends the user action `name` with `payload` to a scene, which grants one activation (S9): a
    /// request made while the guest handles it, or within the policy's activation after, may open one scene.
    public func performAction(
        scene name: String, action: String, payload: Data,
        completion: @escaping @Sendable (Result<Void, HostCommandError>) -> Void = { _ in }
    ) {
        assertOnHostQueue()
        completion(
            Result { () throws(HostCommandError) in
                try SceneRequests.check(action: action, payload: payload)
                let (guest, index) = try findScene(name).get()
                let (call, token) = try requests.act(
                    action, payload: payload, on: index, of: guest.sceneFacts, named: name, at: clock.uptime())
                outbox.deliver(guest, call, sceneState: guest.scenes[index].state) { [weak self, clock] _ in
                    self?.requests.answered(token, of: guest.id, at: clock.uptime())
                }
            })
    }

    /// The user asks to dismiss the top modal of a scene (N3): the guest may keep it (unsaved
    /// changes); if it lets it go, it is dismissed and the guest told.
    public func dismissModal(
        scene name: String, completion: @escaping @Sendable (Result<Bool, HostCommandError>) -> Void = { _ in }
    ) {
        assertOnHostQueue()
        do throws(HostCommandError) {
            let (guest, index) = try findScene(name).get()
            let dismissal = try reports.dismissal(of: index, guest.sceneFacts, named: name)
            outbox.deliver(guest, dismissal.call, sceneState: guest.scenes[index].state) { [weak self] reply in
                guard let self else { return completion(.success(true)) }
                let (result, effects) = self.reports.answered(reply, to: dismissal, of: guest.sceneFacts)
                self.perform(effects, for: guest)
                completion(result)
            }
        } catch {
            completion(.failure(error))
        }
    }

    /// Closes a scene, named as `findScene` reads it, for good (S7).
    public func closeScene(
        _ name: String, completion: @escaping @Sendable (Result<String, HostCommandError>) -> Void = { _ in }
    ) {
        assertOnHostQueue()
        guard let (guest, index) = findScene(name, else: completion) else { return }
        perform([.close(session: guest.scenes[index].sessionID, reason: .requested)], for: guest, closed: completion)
    }

    /// S7: tells a running guest that `session` is gone (did-discard), then forgets it for good.
    func announceDiscard(_ session: String, to guest: GuestRecord) {
        guard guest.phase == .running || guest.phase == .launching, guest.channel != nil else { return }
        closing.announcing(session, of: guest.id)
        outbox.deliver(guest, .didDiscard(sessionID: session)) { [weak self] reply in
            if case .success = reply { self?.sessions.forget(session, of: guest) }
        }
    }

    /// Rearranges the display. Scenes are named as `findScene` reads them; a scene of a
    /// suspended guest is resumed first, one of a guest not running is refused.
    public func changeLayout(
        _ change: LayoutChange, completion: @escaping @Sendable (Result<Void, HostCommandError>) -> Void = { _ in }
    ) {
        assertOnHostQueue()
        switch Arrangement.scenes(of: change, find: { [self] in findScene($0).map { $0.0.ref($0.1) } }) {
        case .failure(let error): completion(.failure(error))
        case .success(let scenes): changeLayout(change, of: scenes, completion: completion)
        }
    }

    /// Applies `change` to `scenes` once their guests run unsuspended (`Arrangement.waiting`).
    private func changeLayout(
        _ change: LayoutChange, of scenes: [SceneRef],
        completion: @escaping @Sendable (Result<Void, HostCommandError>) -> Void
    ) {
        switch Arrangement.waiting(on: Set(scenes.map(\.guest)).sorted().map { ($0, guest($0)) }) {
        case .failure(let error): completion(.failure(error))
        case .success(nil): completion(arrangement.applying(change, to: scenes).map { arrange($0, reason: .requested) })
        case .success(let id?):
            resume(id) { [weak self] result in
                if case .failure(let error) = result { return completion(.failure(error)) }
                self?.changeLayout(change, of: scenes, completion: completion)
            }
        }
    }
}
