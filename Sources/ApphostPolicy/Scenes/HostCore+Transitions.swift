import ApphostModel
import ApphostVocabulary
import Foundation

/// CONTRACT S2 to S5: how a scene moves between states, through the callbacks the contract
/// orders, and how the app state follows (A1).
extension HostCore {
    // MARK: Foreground

    /// Shows `scene` of `guest` full screen, or the primary scene it showed last; the scenes
    /// shown before go to background (S3), except slide over and picture in picture.
    func bringToForeground(_ guest: GuestRecord, scene: Int? = nil, reason: TransitionReason) {
        let primary = guest.scenes.indices.filter { guest.scenes[$0].role == .primary }
        guard
            let index = scene ?? primary.max(by: { guest.scenes[$0].backgroundSince < guest.scenes[$1].backgroundSince }
            )
                ?? guest.scenes.indices.first
        else { return }
        arrange(
            arrangement.fullScreen(SceneRef(guest: guest.id, session: guest.scenes[index].sessionID)), reason: reason)
    }

    // MARK: Scene transitions

    /// Moves one scene to `target` through the callbacks the contract orders (S2 to S5).
    func move(_ guest: GuestRecord, scene index: Int, to target: SceneState, reason: TransitionReason) {
        let started = guest.scenes[index].state
        defer {
            if started != .background, target == .background {
                guest.scenes[index].backgroundSince = clock.uptime()
                disconnectScenesOverLimit()
            }
        }
        while let next = SceneTransitions.next(from: guest.scenes[index].state, to: target) {
            let before = guest.appState
            switch next {
            case .connect(let initial): connect(guest, scene: index, into: initial, reason: reason)
            case .callback(let callback, let state):
                step(guest, scene: index, to: state, callback: callback, reason: reason)
            }
            noteAppState(guest, from: before, reason: reason)
        }
    }

    /// S2: will-connect with the session's saved state. A foreground connection then goes on
    /// through will-enter-foreground; a background one is done.
    private func connect(_ guest: GuestRecord, scene index: Int, into initial: SceneState, reason: TransitionReason) {
        let handle = transitions.newConnection()
        guest.scenes[index].handle = handle
        guest.scenes[index].sizeSent = nil
        // A connection's runtime starts with its saves taken to work.
        guest.scenes[index].saveFailureTold = false
        let session = guest.scenes[index]
        let connection = SceneConnection(
            scene: handle, sessionID: session.sessionID, role: session.role, initialState: initial,
            restorationData: session.savedState)
        if initial == .background {
            setSceneState(guest, scene: index, to: .background, reason: reason)
            deliver(guest, .sceneWillConnect(connection), sceneState: .background)
            tellSaveStatus(guest)
        } else {
            deliver(guest, .sceneWillConnect(connection), sceneState: .unattached)
            tellSaveStatus(guest)
            step(guest, scene: index, to: .foregroundInactive, callback: .willEnterForeground, reason: reason)
        }
    }

    private func step(
        _ guest: GuestRecord, scene index: Int, to state: SceneState, callback: SceneCallback, reason: TransitionReason
    ) {
        let before = guest.appState
        setSceneState(guest, scene: index, to: state, reason: reason)
        // B2: the budget starts as the guest enters background and is reset as it leaves, each
        // told to the guest before the callback that makes the change.
        if guest.phase == .running, !guest.stopped, !background.workEnded(guest.id) {
            if before != .background, guest.appState == .background { enteredBackground(guest) }
            if before == .background, guest.appState != .background { leftBackground(guest) }
        }
        guard let handle = guest.scenes[index].handle else { return }
        // S11: a scene learns its size before it enters the foreground.
        if callback == .willEnterForeground { tellSize(guest, scene: index) }
        deliver(guest, .scene(handle, callback), sceneState: state)
    }

    /// S6: disconnects the scenes connected in background over the limit (`SceneLimit`).
    func disconnectScenesOverLimit() {
        guard sceneLimit.limit != nil else { return }
        var connected: [SceneLimit.Connected] = []
        for guest in guests where guest.phase == .running && guest.channel != nil {
            for scene in guest.scenes where scene.state == .background {
                guard let handle = scene.handle else { continue }
                connected.append(
                    SceneLimit.Connected(
                        scene: SceneRef(guest: guest.id, session: scene.sessionID), handle: handle,
                        since: scene.backgroundSince, stopped: guest.stopped))
            }
        }
        for (id, effect) in sceneLimit.overLimit(connected) {
            guard let guest = guest(id) else { continue }
            perform([effect], for: guest)
        }
    }

    func setSceneState(_ guest: GuestRecord, scene index: Int, to state: SceneState, reason: TransitionReason) {
        let from = guest.scenes[index].state
        guest.scenes[index].state = state
        if state == .unattached {
            reports.disconnected(SceneRef(guest: guest.id, session: guest.scenes[index].sessionID))
        }
        record(
            .sceneState, guest: guest.id, scene: guest.scenes[index].handle, session: guest.scenes[index].sessionID,
            from: from.description, to: state.description, reason: reason)
    }

    func noteAppState(_ guest: GuestRecord, from before: AppState, reason: TransitionReason) {
        let after = guest.appState
        guard after != before else { return }
        guest.lastReason = reason
        guest.lastTransition = clock.now()
        record(.appState, guest: guest.id, from: before.description, to: after.description, reason: reason)
        audioFollowsAppState(guest, from: before)
    }
}
