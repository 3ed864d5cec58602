import ApphostModel
import ApphostVocabulary

/// CONTRACT S10, S11, S4: the host arranges the scenes it shows; the guests learn only their
/// sizes. Every change of layout goes through `arrange`, which moves each scene to the state its
/// place calls for, through the callbacks S2 to S5 order.
extension HostCore {
    /// Makes `next` the layout: scenes shown are in the foreground, active unless an alert or a
    /// prominent scene covers them (S4, S10); scenes no longer shown go to background (S3).
    /// Scenes leave before the scenes shown arrive (in layout order, each told its new size),
    /// except a guest's last foreground scenes, which leave after its new ones arrive: a guest
    /// that switches windows never passes through background.
    func arrange(_ next: Layout, reason: TransitionReason) {
        let before = layout
        defer { noteLayout(from: before) }
        layout = next.keeping { scene in
            guard let guest = guest(scene.guest), guest.phase == .running, !guest.stopped else { return false }
            return guest.sceneIndex(session: scene.session) != nil
        }
        let sizes = layout.sizes(scenePolicy)
        // Only a guest with a scene in the foreground can lose one (a scene shown now comes through
        // `layout.visible`): with thousands of guests, most suspended, checking each of them
        // against the shown set was most of the host queue's time in a shutdown.
        let live = guests.filter { guest in
            guest.phase == .running && !guest.stopped && guest.channel != nil
                && guest.scenes.contains { $0.state.isForeground }
        }
        let shownGuests = Set(layout.visible.map(\.guest))
        let shown = Set(layout.visible)
        for guest in live where !shownGuests.contains(guest.id) { hideScenes(of: guest, except: shown, reason: reason) }
        // A guest that keeps a scene in the foreground can lose the others first.
        for guest in live where shownGuests.contains(guest.id) {
            let keepsOne = guest.scenes.contains {
                $0.state.isForeground && shown.contains(SceneRef(guest: guest.id, session: $0.sessionID))
            }
            if keepsOne { hideScenes(of: guest, except: shown, reason: reason) }
        }
        for scene in layout.visible {
            guard let guest = guest(scene.guest), let index = guest.sceneIndex(session: scene.session) else { continue }
            guest.scenes[index].size = sizes[scene]
            let covered = alertShown || (layout.prominent != nil && layout.prominent != scene)
            move(guest, scene: index, to: covered ? .foregroundInactive : .foregroundActive, reason: reason)
            tellSize(guest, scene: index)
        }
        for guest in live where shownGuests.contains(guest.id) { hideScenes(of: guest, except: shown, reason: reason) }
    }

    private func hideScenes(of guest: GuestRecord, except shown: Set<SceneRef>, reason: TransitionReason) {
        for index in guest.scenes.indices where guest.scenes[index].state.isForeground {
            guard !shown.contains(SceneRef(guest: guest.id, session: guest.scenes[index].sessionID)) else { continue }
            move(guest, scene: index, to: .background, reason: reason)
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
        let names: [String]
        switch change {
        case .fullScreen(let scene), .slideOver(let scene), .pictureInPicture(let scene): names = [scene]
        case .split(let first, let second, _): names = [first, second]
        case .ratio, .hideSlideOver, .closePictureInPicture: names = []
        }
        var scenes: [SceneRef] = []
        for name in names {
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
            var next = self.layout
            for scene in scenes { next = next.removing(scene) }
            switch change {
            case .fullScreen:
                next.main = .fullScreen(scenes[0])
            case .split(_, _, let ratio):
                next.main = .split(scenes[0], scenes[1], ratio: ratio)
            case .ratio(let ratio):
                guard case .split(let first, let second, _) = next.main else {
                    return completion(.failure(HostCommandError("no split view is shown")))
                }
                next.main = .split(first, second, ratio: ratio)
            case .slideOver:
                next.slideOver.append(scenes[0])
            case .hideSlideOver:
                next.slideOver = []
            case .pictureInPicture:
                next.pictureInPicture = scenes[0]
            case .closePictureInPicture:
                next.pictureInPicture = nil
            }
            self.arrange(next, reason: .requested)
            completion(.success(()))
        }
    }

    /// Records the layout when it changed, in one line, as `ctl events` shows it.
    func noteLayout(from before: Layout) {
        guard layout != before else { return }
        record(.layout, message: layout.describe(Layout.shortName))
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
