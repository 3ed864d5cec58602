import ApphostModel
import ApphostVocabulary

/// CONTRACT S1 to S5: the callbacks that move a scene between its states (S1), in the order the
/// contract gives them, with what goes with each: the app state that follows (A1), the budget
/// that starts or ends with background (B2), the size a scene learns before it enters the
/// foreground (S11), the background limit once a scene leaves it (S6). It owns the handles of the
/// scenes' connections (the next one, unique within the host); nothing else writes it.
///
/// A move takes the guest's scene records (`SceneRecord`, which it keeps: handle, size told,
/// when it went to background) and what it needs to know of the guest (`MoveFacts`), and returns
/// what should happen, in order (`SceneEffect`): each state change (`.state`) comes as an effect
/// of its own, so that every call the core delivers after it sees the app state it made.
struct SceneTransitions {
    /// One step of a scene's way to a state.
    enum Step: Equatable, Sendable {
        /// S2: will-connect, into `initial`: background, where the connection is done, or
        /// foregroundInactive, which will-enter-foreground then reaches.
        case connect(into: SceneState)
        /// `callback`, which brings the scene to `state`.
        case callback(SceneCallback, to: SceneState)
    }

    private var nextHandle: SceneHandle = 1

    /// The next step from `current` toward `target`; nil once there. Connecting (S2), then
    /// will-enter-foreground and did-become-active on the way up (S5); will-resign-active, then
    /// did-enter-background on the way down (S3), of which an interruption takes the first only
    /// (S4).
    static func next(from current: SceneState, to target: SceneState) -> Step? {
        guard current != target else { return nil }
        switch (current, target) {
        case (.unattached, _):
            return .connect(into: target == .background ? .background : .foregroundInactive)
        case (.background, _):
            return .callback(.willEnterForeground, to: .foregroundInactive)
        case (.foregroundInactive, .foregroundActive):
            return .callback(.didBecomeActive, to: .foregroundActive)
        case (.foregroundInactive, _):
            return .callback(.didEnterBackground, to: .background)
        case (.foregroundActive, _):
            return .callback(.willResignActive, to: .foregroundInactive)
        }
    }

    /// S2: the handle of a new connection.
    mutating func newConnection() -> SceneHandle {
        defer { nextHandle += 1 }
        return nextHandle
    }

    // MARK: Moves

    /// Where a move takes a scene.
    enum Target: Equatable, Sendable {
        /// To background, from any state: an unattached scene connects there (S2), a foreground
        /// one leaves (S3).
        case background
        /// S3: out of the layout: to background if it is in the foreground; else it stays.
        case hidden
        /// S11, S4: shown at `size`: into the foreground, active or not (covered), then told its
        /// size if its connection has not heard it.
        case shown(size: SceneSize?, active: Bool)
    }

    /// Moves scene `index` of `scenes` to `target` through the callbacks the contract orders (S2
    /// to S5), at `now` (host uptime). A scene that leaves for background notes when (S6's order)
    /// and has the core check the background limit last.
    mutating func move(
        _ index: Int, of scenes: inout [SceneRecord], _ facts: MoveFacts, to target: Target,
        reason: TransitionReason, at now: Duration
    ) -> [SceneEffect] {
        var move = Move(scenes: scenes, index: index, facts: facts, reason: reason)
        switch target {
        case .background:
            walk(&move, to: .background, at: now)
        case .hidden:
            guard move.state.isForeground else { return [] }
            walk(&move, to: .background, at: now)
        case .shown(let size, let active):
            move.scenes[index].size = size
            walk(&move, to: active ? .foregroundActive : .foregroundInactive, at: now)
            move.tellSize()
        }
        return move.finish(&scenes)
    }

    /// Takes `move` one step at a time to `target`, each step where the one before left it.
    private mutating func walk(_ move: inout Move, to target: SceneState, at now: Duration) {
        let started = move.state
        while let next = Self.next(from: move.state, to: target) {
            let before = move.appState
            switch next {
            case .connect(let initial): move.connect(into: initial, handle: newConnection())
            case .callback(let callback, let state): move.step(to: state, callback: callback)
            }
            move.noteAppState(from: before)
        }
        if started != .background, target == .background {
            move.scenes[move.index].backgroundSince = now
            move.effects.append(.limitBackground)
        }
    }
}

/// What `SceneTransitions` needs to know of a guest to move one of its scenes.
struct MoveFacts: Equatable, Sendable {
    /// Its app state now (A1): the scenes' states make it while it runs unsuspended; else it
    /// stays (notRunning, suspended).
    var appState: AppState
    /// B2: its budget follows its app state: it runs, is not stopped, and its background work
    /// has not been ended (B1).
    var followsBackground: Bool
}

/// One move of a scene under way: the records as the steps so far left them, and the effects.
private struct Move {
    var scenes: [SceneRecord]
    let index: Int
    let facts: MoveFacts
    let reason: TransitionReason
    var effects: [SceneEffect] = []

    var state: SceneState { scenes[index].state }

    /// Writes what the move changed of the scene's record into `records`, but its state, which
    /// the core sets as each `.state` effect says; returns the effects.
    func finish(_ records: inout [SceneRecord]) -> [SceneEffect] {
        var record = scenes[index]
        record.state = records[index].state
        records[index] = record
        return effects
    }
    var session: String { scenes[index].sessionID }

    /// A1, as `GuestRecord.appState` derives it while the guest runs unsuspended.
    var appState: AppState {
        guard facts.appState != .notRunning, facts.appState != .suspended else { return facts.appState }
        if scenes.contains(where: { $0.state == .foregroundActive }) { return .active }
        if scenes.contains(where: { $0.state == .foregroundInactive }) { return .inactive }
        return .background
    }

    mutating func setState(_ state: SceneState) {
        scenes[index].state = state
        effects.append(.state(session: session, state, reason: reason))
    }

    /// S2: will-connect with the session's saved state; its runtime starts with its saves taken
    /// to work (X5). A foreground connection then goes on through will-enter-foreground; a
    /// background one is done.
    mutating func connect(into initial: SceneState, handle: SceneHandle) {
        scenes[index].handle = handle
        scenes[index].sizeSent = nil
        scenes[index].saveFailureTold = false
        let scene = scenes[index]
        let connection = SceneConnection(
            scene: handle, sessionID: scene.sessionID, role: scene.role, initialState: initial,
            restorationData: scene.savedState)
        if initial == .background {
            setState(.background)
            effects += [.deliver(.sceneWillConnect(connection), sceneState: .background), .tellSaveStatus]
        } else {
            effects += [.deliver(.sceneWillConnect(connection), sceneState: .unattached), .tellSaveStatus]
            step(to: .foregroundInactive, callback: .willEnterForeground)
        }
    }

    /// One callback, after the state it brings. B2: the budget starts as the guest enters
    /// background and is reset as it leaves, each told to the guest before that callback.
    mutating func step(to state: SceneState, callback: SceneCallback) {
        let before = appState
        setState(state)
        if facts.followsBackground, (before == .background) != (appState == .background) {
            effects.append(.background(entered: appState == .background))
        }
        guard let handle = scenes[index].handle else { return }
        // S11: a scene learns its size before it enters the foreground.
        if callback == .willEnterForeground { tellSize() }
        effects.append(.deliver(.scene(handle, callback), sceneState: state))
    }

    /// S11: a connected scene hears its size when it is not the one its connection last heard.
    mutating func tellSize() {
        let scene = scenes[index]
        guard let handle = scene.handle, let size = scene.size, size != scene.sizeSent else { return }
        scenes[index].sizeSent = size
        effects += [
            .record(.sceneSize, scene: handle, session: scene.sessionID, to: size.description),
            .deliver(.sceneSize(handle, size), sceneState: scene.state),
        ]
    }

    /// A1: the app state, if the step changed it, is recorded and followed (audio, C14).
    mutating func noteAppState(from before: AppState) {
        if appState != before { effects.append(.appState(from: before, reason: reason)) }
    }
}
