import ApphostModel
import ApphostVocabulary

/// CONTRACT S1 to S11: the scenes parts decide (`SceneTransitions`, `Arrangement`, `SceneRequests`,
/// `SceneReports`, `SessionClosing`, `SceneLimit`); the core hands them facts and carries out what they say.
extension HostCore {
    /// Moves one scene as `target` says, through the callbacks the contract orders (S2 to S5).
    func move(_ guest: GuestRecord, scene index: Int, to target: SceneTransitions.Target, reason: TransitionReason) {
        let (facts, now) = (guest.moveFacts(workEnded: background.workEnded(guest.id)), clock.uptime())
        perform(transitions.move(index, of: &guest.scenes, facts, to: target, reason: reason, at: now), for: guest)
    }

    /// Shows `scene` of `guest`, or the primary scene it showed last, full screen (S3, `Arrangement.foreground`).
    func bringToForeground(_ guest: GuestRecord, scene: Int? = nil, reason: TransitionReason) {
        arrangement.foreground(of: guest.id, guest.scenes, scene: scene).map { arrange($0, reason: reason) }
    }

    /// Makes `next` the layout (`Arrangement.arrange`) and moves the scenes accordingly.
    func arrange(_ next: Layout, reason: TransitionReason) {
        perform(arrangement.arrange(next, among: guests, find: guest(_:)), reason: reason)
    }

    /// Carries out what `Arrangement` said, in order.
    func perform(_ effects: [ArrangementEffect], reason: TransitionReason) {
        for effect in effects {
            if case .record(let kind, let name, let message) = effect { log.record(kind, name: name, message: message) }
            guard let (guest, index, target) = effect.move(find: guest(_:)) else { continue }
            move(guest, scene: index, to: target, reason: reason)
        }
    }

    /// Carries out what a scenes part said, in order; `closed` hears how a close ended, or why not.
    func perform(
        _ effects: [SceneEffect], for guest: GuestRecord,
        closed: @escaping @Sendable (Result<String, HostCommandError>) -> Void = { _ in }
    ) {
        for effect in effects {
            switch effect {
            case .record(let kind, let scene, let session, let from, let to, let reason, let name, let message):
                log.record(
                    kind, guest: guest.id, scene: scene, session: session, from: from, to: to, reason: reason,
                    name: name, message: message)
            case .deliver(let call, let state): outbox.deliver(guest, call, sceneState: state)
            case .state(let session, let state, let reason):
                guest.sceneIndex(session: session).map { setSceneState(guest, scene: $0, to: state, reason: reason) }
            case .tellSaveStatus: tellSaveStatus(guest)
            case .background(let entered): backgroundChanged(guest, entered: entered)
            case .appState(let before, let reason): noteAppState(guest, from: before, reason: reason)
            case .limitBackground:
                sceneLimit.overLimit(of: guests, find: guest(_:)).forEach { perform([$0.1], for: $0.0) }
            case .open(let role, let state, let style, let from):
                sessions.createSession(of: guest, role: role, state: state)
                let session = guest.scenes[guest.scenes.count - 1].sessionID
                perform(SceneRequests.opened(session, role: role, style: style, from: from), for: guest)
            case .show(let session, let style, let beside):
                let next = arrangement.presenting(session, of: guest.sceneFacts, style: style, beside: beside)
                next.map { arrange($0, reason: .requested) }
            case .close(let session, let reason):
                switch closing.close(session, of: guest.id, guest.closeFacts(session), reason: reason) {
                case .failure(let error): closed(.failure(error))
                case .success(let effects): perform(effects, for: guest, closed: closed)
                }
            case .hide(let session, let reason):
                arrange(layout.removing(SceneRef(guest: guest.id, session: session)), reason: reason)
            case .disconnect(let session, let handle, let reason, let held):
                guard let index = guest.sceneIndex(session: session) else { continue }
                setSceneState(guest, scene: index, to: .unattached, reason: reason)
                guest.scenes[index].handle = nil
                if held {
                    guest.held.holdDisconnect(handle)
                } else {
                    outbox.deliver(guest, .scene(handle, .didDisconnect), sceneState: .unattached)
                }
            case .remove(let session):
                guest.sceneIndex(session: session).map { _ = guest.scenes.remove(at: $0) }
            case .discard(let session, let reason, let announce):
                sessions.discard(session, of: guest) { [weak self] in
                    guard let self else { return }
                    self.log.record(.sceneClosed, guest: guest.id, session: session, reason: reason)
                    if announce { self.announceDiscard(session, to: guest) }
                    closed(.success(session))
                }
            }
        }
    }

    func setSceneState(_ guest: GuestRecord, scene index: Int, to state: SceneState, reason: TransitionReason) {
        let scene = guest.scenes[index]
        guest.scenes[index].state = state
        if state == .unattached { reports.disconnected(guest.ref(index)) }
        log.record(
            .sceneState, guest: guest.id, scene: scene.handle, session: scene.sessionID, from: scene.state.description,
            to: state.description, reason: reason)
    }

    func noteAppState(_ guest: GuestRecord, from before: AppState, reason: TransitionReason) {
        guard guest.appState != before else { return }
        guest.lastReason = reason
        guest.lastTransition = clock.now()
        log.record(.appState, guest: guest.id, from: before.description, to: guest.appState.description, reason: reason)
        audio.appStateChanged(guest, from: before)
    }

    /// B2: the guest entered background (or resumed there), and a fresh budget starts; or it came
    /// to the foreground, and time is unlimited again. Either way it is in use (A4).
    func backgroundChanged(_ guest: GuestRecord, entered: Bool) {
        guard !entered || guest.channel != nil else { return }
        memory.used(guest.id, at: clock.uptime())
        if entered { background.enteredBackground(guest) } else { background.leftBackground(guest) }
    }
}
