import ApphostModel
import ApphostVocabulary

/// CONTRACT S10, S11, S4: `Arrangement` decides which scenes are shown and where; this extension
/// hands it what it needs to know of the guests and moves each scene as it says, through the
/// callbacks S2 to S5 order (`perform`).
extension HostCore {
    /// Makes `next` the layout (`Arrangement.arrange`) and moves the scenes accordingly.
    func arrange(_ next: Layout, reason: TransitionReason) {
        // Only a guest with a scene in the foreground can lose one (a scene shown now comes through
        // the layout): with thousands of guests, most suspended, checking each of them against
        // the shown set was most of the host queue's time in a shutdown.
        var foreground: [SceneRef] = []
        for guest in guests where guest.phase == .running && !guest.stopped && guest.channel != nil {
            for scene in guest.scenes where scene.state.isForeground {
                foreground.append(SceneRef(guest: guest.id, session: scene.sessionID))
            }
        }
        let effects = arrangement.arrange(
            next,
            showable: { [self] scene in
                guard let guest = guest(scene.guest), guest.phase == .running, !guest.stopped else { return false }
                return guest.sceneIndex(session: scene.session) != nil
            }, foreground: foreground)
        perform(effects, reason: reason)
    }

    /// Carries out what `Arrangement` said, in order.
    func perform(_ effects: [ArrangementEffect], reason: TransitionReason) {
        for effect in effects {
            switch effect {
            case .hide(let scene):
                guard let guest = guest(scene.guest), let index = guest.sceneIndex(session: scene.session),
                    guest.scenes[index].state.isForeground
                else { continue }
                move(guest, scene: index, to: .background, reason: reason)
            case .show(let scene, let size, let active):
                guard let guest = guest(scene.guest), let index = guest.sceneIndex(session: scene.session) else {
                    continue
                }
                guest.scenes[index].size = size
                move(guest, scene: index, to: active ? .foregroundActive : .foregroundInactive, reason: reason)
                tellSize(guest, scene: index)
            case .record(let kind, let name, let message):
                record(kind, name: name, message: message)
            }
        }
    }

    /// S11: tells a connected scene its size when it is not the one its connection last heard.
    func tellSize(_ guest: GuestRecord, scene index: Int) {
        let scene = guest.scenes[index]
        guard let handle = scene.handle, let size = scene.size, size != scene.sizeSent else { return }
        guest.scenes[index].sizeSent = size
        record(.sceneSize, guest: guest.id, scene: handle, session: scene.sessionID, to: size.description)
        deliver(guest, .sceneSize(handle, size), sceneState: scene.state)
    }

    // MARK: Operator commands

    /// Rearranges the display. Scenes are named as `findScene` reads them; a scene of a
    /// suspended guest is resumed first, one of a guest not running is refused.
    public func changeLayout(
        _ change: LayoutChange, completion: @escaping @Sendable (Result<Void, HostCommandError>) -> Void = { _ in }
    ) {
        assertOnHostQueue()
        do throws(HostCommandError) {
            try change.validate()
        } catch {
            return completion(.failure(error))
        }
        var scenes: [SceneRef] = []
        for name in Arrangement.sceneNames(in: change) {
            switch findScene(name) {
            case .failure(let error): return completion(.failure(error))
            case .success(let (guest, index)):
                scenes.append(SceneRef(guest: guest.id, session: guest.scenes[index].sessionID))
            }
        }
        if scenes.count == 2, scenes[0] == scenes[1] {
            return completion(.failure(HostCommandError.invalid("a split needs two different scenes")))
        }
        whenRunning(Set(scenes.map(\.guest)), completion: completion) { [weak self, scenes] in
            guard let self else { return }
            switch self.arrangement.applying(change, to: scenes) {
            case .failure(let error): completion(.failure(error))
            case .success(let next):
                self.arrange(next, reason: .requested)
                completion(.success(()))
            }
        }
    }

    /// Runs `body` once every guest of `ids` runs and is not suspended: suspended ones are resumed
    /// first; a guest not running, or changing its suspension, fails the command.
    func whenRunning(
        _ ids: Set<String>, completion: @escaping @Sendable (Result<Void, HostCommandError>) -> Void,
        body: @escaping @Sendable () -> Void
    ) {
        for id in ids.sorted() {
            guard case .success(let (guest, _)) = running(id) else {
                return completion(.failure(HostCommandError("\(id) is not running: launch it first")))
            }
            guard !guest.changingSuspension else {
                return completion(.failure(HostCommandError("\(id) is being suspended or resumed; try again")))
            }
            if guest.suspended {
                return resume(id) { [weak self] result in
                    if case .failure(let error) = result { return completion(.failure(error)) }
                    self?.whenRunning(ids, completion: completion, body: body)
                }
            }
        }
        body()
    }
}
