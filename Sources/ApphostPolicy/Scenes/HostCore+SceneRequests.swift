import ApphostModel
import ApphostVocabulary
import Foundation

/// What a guest asks of its scenes through the scenes extension, and the user actions that let
/// it: `SceneRequests` decides on requests (S9, S10, S13) and notifications (N1), `SessionClosing`
/// on closes (S7); this extension routes the guest's reports and the operator's commands to them
/// and carries out what they say (`perform`). Loading progress (N2), modals (N3) and scene titles
/// are shown to the operator.
extension HostCore {
    func handleScenes(_ event: GuestEvent, from guest: GuestRecord) {
        if case .notificationPosted(let title, let body) = event {
            return perform(
                requests.notification(from: guest.id, title: title, body: body, at: clock.uptime()), for: guest)
        }
        guard guest.phase == .running else { return }
        switch event {
        case .sceneRequested(let activation, let from, let role, let style, let state, let request):
            let facts = RequestFacts(mayOpenScene: guest.mayOpenScene, stopped: guest.stopped)
            perform(
                requests.request(
                    guest.id, facts, activation: activation, from: from, role: role, style: style, state: state,
                    request: request, at: clock.uptime()), for: guest)
        case .sessionActivationRequested(let session, let style):
            let known = guest.sceneIndex(session: session) != nil
            perform(requests.activate(session, of: guest.id, style: style, known: known), for: guest)
        case .sessionCloseRequested(let session):
            let known = guest.sceneIndex(session: session) != nil
            perform(requests.closeRequested(session, of: guest.id, known: known), for: guest)
        case .loadingProgress(let handle, let progress):
            guard let scene = sceneRef(guest, handle: handle) else { return }
            perform(reports.loading(progress, of: scene, handle: handle), for: guest)
        case .sceneTitleChanged(let handle, let title):
            guard let scene = sceneRef(guest, handle: handle) else { return }
            perform(reports.title(title, of: scene, handle: handle), for: guest)
        case .modalPresented(let handle, let modal, let style, let title):
            guard let scene = sceneRef(guest, handle: handle) else { return }
            perform(reports.modalPresented(modal, style: style, title: title, of: scene, handle: handle), for: guest)
        case .modalDismissed(let handle, let modal):
            guard let scene = sceneRef(guest, handle: handle) else { return }
            perform(reports.modalDismissed(modal, of: scene, handle: handle, reason: .guest), for: guest)
        default:
            break
        }
    }

    /// Carries out what a scenes part said, in order. `closed` hears how a close (`.discard`)
    /// ended, or why it could not be done.
    func perform(
        _ effects: [SceneEffect], for guest: GuestRecord,
        closed: @escaping @Sendable (Result<String, HostCommandError>) -> Void = { _ in }
    ) {
        for effect in effects {
            switch effect {
            case .record(let kind, let scene, let session, let reason, let name, let message):
                record(
                    kind, guest: guest.id, scene: scene, session: session, reason: reason, name: name, message: message)
            case .open(let role, let state, let style, let from):
                let beside = guest.sceneIndex(handle: from)
                sessions.createSession(of: guest, role: role, state: state)
                let index = guest.scenes.count - 1
                record(
                    .sceneRequested, guest: guest.id, scene: from, session: guest.scenes[index].sessionID,
                    name: style.description, message: "new \(role) scene")
                show(guest, scene: index, style: style, beside: beside)
            case .show(let session, let style):
                guard let index = guest.sceneIndex(session: session) else { continue }
                show(guest, scene: index, style: style, beside: nil)
            case .close(let session, let reason):
                closeSession(session, of: guest, reason: reason, completion: closed)
            case .hide(let session, let reason):
                arrange(layout.removing(SceneRef(guest: guest.id, session: session)), reason: reason)
            case .disconnect(let session, let handle, let reason, let held):
                guard let index = guest.sceneIndex(session: session) else { continue }
                setSceneState(guest, scene: index, to: .unattached, reason: reason)
                guest.scenes[index].handle = nil
                if held {
                    guest.held.holdDisconnect(handle)
                } else {
                    deliver(guest, .scene(handle, .didDisconnect), sceneState: .unattached)
                }
            case .remove(let session):
                guard let index = guest.sceneIndex(session: session) else { continue }
                guest.scenes.remove(at: index)
            case .discard(let session, let reason, let announce):
                sessions.discard(session, of: guest) { [weak self] in
                    guard let self else { return }
                    self.record(.sceneClosed, guest: guest.id, session: session, reason: reason)
                    if announce { self.announceDiscard(session, to: guest) }
                    closed(.success(session))
                }
            case .deliver(let call):
                deliver(guest, call)
            }
        }
    }

    /// Shows a scene of a running guest as `style` asks (S10), beside the scene `beside`.
    func show(_ guest: GuestRecord, scene index: Int, style: PresentationStyle, beside: Int?) {
        let scene = SceneRef(guest: guest.id, session: guest.scenes[index].sessionID)
        let anchor = beside.map { SceneRef(guest: guest.id, session: guest.scenes[$0].sessionID) }
        guard let next = arrangement.presenting(scene, style: style, beside: anchor) else { return }
        arrange(next, reason: .requested)
    }

    // MARK: User actions (S9)

    /// Sends the user action `name` with `payload` to a scene. It grants one activation (S9): a
    /// request made while the guest handles it, or one presenting its token within the policy's
    /// activation after, may open one scene.
    public func performAction(
        scene name: String, action: String, payload: Data,
        completion: @escaping @Sendable (Result<Void, HostCommandError>) -> Void = { _ in }
    ) {
        assertOnHostQueue()
        do throws(HostCommandError) {
            try SceneRequests.check(action: action, payload: payload)
        } catch {
            return completion(.failure(error))
        }
        guard let (guest, index) = findScene(name, else: completion) else { return }
        guard let handle = guest.scenes[index].handle, guest.scenes[index].state.isForeground else {
            return completion(
                .failure(HostCommandError("scene \(name) is not shown: a user acts only on what they see")))
        }
        guard guest.phase == .running, !guest.stopped else {
            return completion(.failure(HostCommandError("\(guest.id) is not running")))
        }
        let token = requests.grant(to: guest.id, at: clock.uptime())
        deliver(
            guest,
            .performAction(
                handle, name: action, payload: payload, activation: requests.policy.activation, token: token),
            sceneState: guest.scenes[index].state
        ) { [weak self] _ in
            guard let self else { return }
            self.requests.answered(token, of: guest.id, at: self.clock.uptime())
        }
        completion(.success(()))
    }

    // MARK: Modals (N3)

    /// The user asks to dismiss the top modal of a scene: the guest may keep it (unsaved
    /// changes); if it lets it go, it is dismissed and the guest told.
    public func dismissModal(
        scene name: String, completion: @escaping @Sendable (Result<Bool, HostCommandError>) -> Void = { _ in }
    ) {
        assertOnHostQueue()
        guard let (guest, index) = findScene(name, else: completion) else { return }
        let scene = SceneRef(guest: guest.id, session: guest.scenes[index].sessionID)
        guard let handle = guest.scenes[index].handle, let modal = reports.topModal(of: scene) else {
            return completion(.failure(HostCommandError("scene \(name) presents no modal")))
        }
        guard guest.phase == .running, !guest.stopped else {
            return completion(.failure(HostCommandError("\(guest.id) is not running")))
        }
        deliver(guest, .shouldDismissModal(handle, modal.id), sceneState: guest.scenes[index].state) {
            [weak self] reply in
            guard let self, let index = guest.sceneIndex(handle: handle), self.reports.presents(modal.id, on: scene)
            else { return completion(.success(true)) }
            guard case .success(let answer) = reply else {
                return completion(.failure(HostCommandError("\(guest.id) did not answer")))
            }
            // The runtime answers 1 (let it go) or 0 (keep it); anything else is no answer.
            guard answer == 0 || answer == 1 else {
                return completion(
                    .failure(HostCommandError("\(guest.id) could not be asked: \(StatusName.of(answer))")))
            }
            guard answer == 1 else {
                self.perform(self.reports.modalKept(modal, of: scene, handle: handle), for: guest)
                return completion(.success(false))
            }
            self.perform(
                self.reports.modalDismissed(modal.id, of: scene, handle: handle, reason: .requested), for: guest)
            self.deliver(guest, .didDismissModal(handle, modal.id), sceneState: guest.scenes[index].state)
            completion(.success(true))
        }
    }

    /// The scene whose connection is `handle`, if `guest` has it.
    private func sceneRef(_ guest: GuestRecord, handle: SceneHandle) -> SceneRef? {
        guest.sceneIndex(handle: handle).map { SceneRef(guest: guest.id, session: guest.scenes[$0].sessionID) }
    }
}
