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
