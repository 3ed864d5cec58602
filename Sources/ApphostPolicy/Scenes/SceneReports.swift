import ApphostModel
import ApphostVocabulary

/// What guests report of their connected scenes, shown to the operator: loading progress (N2),
/// the modals they present (N3) and their titles (ABI 1.3). It owns that state, by scene, and
/// nothing else writes it; it lasts while the scene is connected (`disconnected` drops it).
///
/// Each input names the scene (`SceneRef`) and its connection's handle, and returns the events
/// to record (`SceneEffect.record`); each costs one lookup of the scene's report.
struct SceneReports {
    private var reports: [SceneRef: SceneReport] = [:]

    /// What scene `scene` reported while connected; empty when nothing.
    func report(of scene: SceneRef) -> SceneReport { reports[scene] ?? SceneReport() }

    /// N3: the modal on top of `scene`, the one a user would dismiss.
    func topModal(of scene: SceneRef) -> ModalRecord? { reports[scene]?.modals.last }

    /// N3: `scene` still presents `modal`.
    func presents(_ modal: ModalID, on scene: SceneRef) -> Bool {
        reports[scene]?.modals.contains { $0.id == modal } ?? false
    }

    /// What a running guest reports of one of its connected scenes (N2, N3, its title); nothing
    /// for a report of another part's, of a guest not running, or of a scene it does not have.
    mutating func report(_ event: GuestEvent, from guest: GuestSceneFacts) -> [SceneEffect] {
        guard guest.phase == .running else { return [] }
        switch event {
        case .loadingProgress(let handle, let progress):
            return guest.scene(handle).map { loading(progress, of: $0, handle: handle) } ?? []
        case .sceneTitleChanged(let handle, let title):
            return guest.scene(handle).map { self.title(title, of: $0, handle: handle) } ?? []
        case .modalPresented(let handle, let modal, let style, let title):
            return guest.scene(handle).map {
                modalPresented(modal, style: style, title: title, of: $0, handle: handle)
            } ?? []
        case .modalDismissed(let handle, let modal):
            return guest.scene(handle).map { modalDismissed(modal, of: $0, handle: handle, reason: .guest) } ?? []
        default:
            return []
        }
    }

    /// N2: the scene's loading progress. The event stream hears each step a person would see, not
    /// every fraction reported.
    mutating func loading(_ progress: LoadingProgress, of scene: SceneRef, handle: SceneHandle) -> [SceneEffect] {
        let before = reports[scene]?.loading ?? .none
        reports[scene, default: SceneReport()].loading = progress
        guard before.description != progress.description else { return [] }
        return [.record(.loading, scene: handle, session: scene.session, message: progress.description)]
    }

    /// The scene's title; an empty one clears it.
    mutating func title(_ title: String, of scene: SceneRef, handle: SceneHandle) -> [SceneEffect] {
        let title = title.isEmpty ? nil : title
        reports[scene, default: SceneReport()].title = title
        return [.record(.sceneTitle, scene: handle, session: scene.session, name: title)]
    }

    /// N3: the scene presents `modal` over those it presents already.
    mutating func modalPresented(
        _ modal: ModalID, style: ModalStyle, title: String, of scene: SceneRef, handle: SceneHandle
    ) -> [SceneEffect] {
        reports[scene, default: SceneReport()].modals.append(ModalRecord(id: modal, style: style, title: title))
        return [
            .record(
                .modalPresented, scene: handle, session: scene.session, name: style.description,
                message: "modal \(modal): \(title)")
        ]
    }

    /// N3: `modal` and those above it are dismissed, for `reason` (guest: the guest dismissed it;
    /// requested: it let the user dismiss it); the event names the lowest. Nothing when the scene
    /// does not present it.
    mutating func modalDismissed(
        _ modal: ModalID, of scene: SceneRef, handle: SceneHandle, reason: TransitionReason
    ) -> [SceneEffect] {
        guard let position = reports[scene]?.modals.firstIndex(where: { $0.id == modal }),
            let dropped = reports[scene]?.modals[position]
        else { return [] }
        reports[scene]?.modals.removeSubrange(position...)
        return [
            .record(
                .modalDismissed, scene: handle, session: scene.session, reason: reason,
                name: dropped.style.description, message: "modal \(modal): \(dropped.title)")
        ]
    }

    /// N3: the guest keeps `modal` that the user asked to dismiss (unsaved changes).
    func modalKept(_ modal: ModalRecord, of scene: SceneRef, handle: SceneHandle) -> [SceneEffect] {
        [
            .record(
                .modalKept, scene: handle, session: scene.session, name: modal.style.description,
                message: "modal \(modal.id): \(modal.title): the guest keeps it")
        ]
    }

    /// N3: the user asks to dismiss the top modal of scene `index` of a guest (the scene as the
    /// operator named it, `name`): what to ask the guest, or why not: the scene presents no modal,
    /// or its guest does not run.
    func dismissal(of index: Int, _ guest: GuestSceneFacts, named name: String) throws(HostCommandError)
        -> ModalDismissal
    {
        let scene = SceneRef(guest: guest.id, session: guest.scenes[index].sessionID)
        guard let handle = guest.scenes[index].handle, let modal = topModal(of: scene) else {
            throw HostCommandError("scene \(name) presents no modal")
        }
        guard guest.runsFreely else { throw HostCommandError("\(guest.id) is not running") }
        return ModalDismissal(scene: scene, handle: handle, modal: modal)
    }

    /// N3: the guest answered `reply` to `dismissal`: what the operator hears (whether the modal
    /// went) and the effects. The guest may keep it (0), or let it go (1), and then hears that it
    /// is dismissed. A modal gone meanwhile, or a scene no longer connected, is gone; a failed or
    /// other answer is no answer.
    mutating func answered(
        _ reply: GuestReply, to dismissal: ModalDismissal, of guest: GuestSceneFacts
    ) -> (Result<Bool, HostCommandError>, [SceneEffect]) {
        let (scene, handle, modal) = (dismissal.scene, dismissal.handle, dismissal.modal)
        guard let state = guest.scenes.first(where: { $0.handle == handle })?.state, presents(modal.id, on: scene)
        else { return (.success(true), []) }
        guard case .success(let answer) = reply else {
            return (.failure(HostCommandError("\(scene.guest) did not answer")), [])
        }
        guard answer == 0 || answer == 1 else {
            return (.failure(HostCommandError("\(scene.guest) could not be asked: \(StatusName.of(answer))")), [])
        }
        guard answer == 1 else { return (.success(false), modalKept(modal, of: scene, handle: handle)) }
        let effects = modalDismissed(modal.id, of: scene, handle: handle, reason: .requested)
        return (.success(true), effects + [.deliver(.didDismissModal(handle, modal.id), sceneState: state)])
    }

    /// The scene's connection ended: what it reported goes with it.
    mutating func disconnected(_ scene: SceneRef) {
        reports[scene] = nil
    }
}

/// What one connected scene reported (N2, N3, its title).
struct SceneReport: Equatable, Sendable {
    var title: String?
    var loading: LoadingProgress = .none
    var modals: [ModalRecord] = []
}

/// A modal the guest presents over a scene (N3), bottom of the stack first.
struct ModalRecord: Equatable, Sendable {
    var id: ModalID
    var style: ModalStyle
    var title: String
}

/// A user's request to dismiss the modal on top of a scene (N3), as the guest is asked it.
struct ModalDismissal: Equatable, Sendable {
    var scene: SceneRef
    var handle: SceneHandle
    var modal: ModalRecord

    var call: GuestCall { .shouldDismissModal(handle, modal.id) }
}
