import ApphostModel
import ApphostVocabulary

/// What the scene parts need to know of a guest at one of its reports or an operator's command
/// on one of its scenes: read from its record (`GuestRecord.sceneFacts`), never written back.
struct GuestSceneFacts: Sendable {
    var id: String
    var phase: GuestPhase
    /// Suspended, or being suspended or resumed (B7).
    var stopped: Bool
    /// S13: it declares several scenes, or has none yet.
    var mayOpenScene: Bool
    /// Its sessions, connected or not.
    var scenes: [SceneRecord]

    /// It runs and is not stopped: its code may be asked something now.
    var runsFreely: Bool { phase == .running && !stopped }

    /// The scene whose connection is `handle`, if the guest has it.
    func scene(_ handle: SceneHandle) -> SceneRef? {
        scenes.first { $0.handle == handle }.map { SceneRef(guest: id, session: $0.sessionID) }
    }

    func knows(_ session: String) -> Bool { scenes.contains { $0.sessionID == session } }
}

extension GuestRecord {
    var sceneFacts: GuestSceneFacts {
        GuestSceneFacts(id: id, phase: phase, stopped: stopped, mayOpenScene: mayOpenScene, scenes: scenes)
    }

    /// `SceneTransitions`' facts: B2's budget follows the app state unless the guest's background
    /// work has ended (`workEnded`, B1).
    func moveFacts(workEnded: Bool) -> MoveFacts {
        MoveFacts(appState: appState, followsBackground: phase == .running && !stopped && !workEnded)
    }

    /// `SessionClosing`'s facts for a close of `session`.
    func closeFacts(_ session: String) -> CloseFacts {
        let index = sceneIndex(session: session)
        return CloseFacts(
            known: index != nil, handle: index.flatMap { scenes[$0].handle }, phase: phase, stopped: stopped,
            changingSuspension: changingSuspension)
    }

    func ref(_ index: Int) -> SceneRef { SceneRef(guest: id, session: scenes[index].sessionID) }

    /// S11: its `session` may be shown: it runs, is not stopped, and has the session.
    func mayShow(_ session: String) -> Bool { phase == .running && !stopped && sceneIndex(session: session) != nil }

    /// Its scenes in the foreground, for `Arrangement.arrange`; none unless it runs on a channel.
    func foregroundScenes(into scenes: inout [SceneRef]) {
        guard phase == .running, !stopped, channel != nil else { return }
        for scene in self.scenes where scene.state.isForeground {
            scenes.append(SceneRef(guest: id, session: scene.sessionID))
        }
    }

    /// S6: its scenes connected in background, for `SceneLimit`; none unless it runs on a channel.
    func backgroundScenes(into scenes: inout [SceneLimit.Connected]) {
        guard phase == .running, channel != nil else { return }
        for scene in self.scenes where scene.state == .background {
            guard let handle = scene.handle else { continue }
            scenes.append(
                SceneLimit.Connected(
                    scene: SceneRef(guest: id, session: scene.sessionID), handle: handle,
                    since: scene.backgroundSince, stopped: stopped))
        }
    }
}

extension Arrangement {
    /// Makes `next` the layout (`arrange`) with what it needs to know of `guests` (in the host's
    /// order; `find` looks one up by id): only a running guest's foreground scenes are gathered,
    /// as with thousands of guests, most suspended, checking each of them against the scenes shown
    /// was most of the host queue's time in a shutdown.
    mutating func arrange(
        _ next: Layout, among guests: [GuestRecord], find: (String) -> GuestRecord?
    ) -> [ArrangementEffect] {
        var foreground: [SceneRef] = []
        for guest in guests { guest.foregroundScenes(into: &foreground) }
        return arrange(next, showable: { find($0.guest)?.mayShow($0.session) ?? false }, foreground: foreground)
    }

    /// S11: what a change that shows scenes of `guests` (by id, in order) waits for: nil once
    /// every one runs unsuspended; else the first suspended, to resume first; or why the change
    /// cannot be: a guest not running, or changing its suspension.
    static func waiting(on guests: [(id: String, guest: GuestRecord?)]) -> Result<String?, HostCommandError> {
        for (id, guest) in guests {
            guard let guest, guest.phase == .running, guest.channel != nil else {
                return .failure(HostCommandError("\(id) is not running: launch it first"))
            }
            guard !guest.changingSuspension else {
                return .failure(HostCommandError("\(id) is being suspended or resumed; try again"))
            }
            if guest.suspended { return .success(id) }
        }
        return .success(nil)
    }
}

extension ArrangementEffect {
    /// The scene it moves, with its guest (`find` looks one up by id), and where to
    /// (`SceneTransitions.Target`); nil for an event to record, or a scene gone meanwhile.
    func move(find: (String) -> GuestRecord?) -> (GuestRecord, Int, SceneTransitions.Target)? {
        let (scene, target): (SceneRef, SceneTransitions.Target)
        switch self {
        case .hide(let hidden): (scene, target) = (hidden, .hidden)
        case .show(let shown, let size, let active): (scene, target) = (shown, .shown(size: size, active: active))
        case .record: return nil
        }
        guard let guest = find(scene.guest), let index = guest.sceneIndex(session: scene.session) else { return nil }
        return (guest, index, target)
    }
}
