import ApphostModel
import ApphostVocabulary
import CApphost
import Foundation

/// What a guest asks of its scenes through the scenes extension, and the user actions that let
/// it: requests need a transient activation (S9) and name a presentation style (S10); loading
/// progress (N2), modals (N3), notifications (N1) and scene titles are shown to the operator.
extension HostCore {
    func handleScenes(_ event: GuestEvent, from guest: GuestRecord) {
        if case .notificationPosted(let title, let body) = event {
            return postNotification(guest, title: title, body: body)
        }
        guard guest.phase == .running else { return }
        switch event {
        case .sceneRequested(let activation, let from, let role, let style, let state):
            requestScene(guest, activation: activation, from: from, role: role, style: style, state: state)
        case .sessionActivationRequested(let session, let style):
            guard let index = guest.sceneIndex(session: session) else {
                return record(
                    .requestRefused, guest: guest.id, session: session, name: style.description,
                    message: "activate: no session \(session) of \(guest.id)")
            }
            show(guest, scene: index, style: style, beside: nil)
        case .sessionCloseRequested(let session):
            // S7, asked by the guest itself: as the operator's close, with reason guest.
            guard guest.sceneIndex(session: session) != nil else {
                return record(
                    .requestRefused, guest: guest.id, session: session, name: "close",
                    message: "close: no session \(session) of \(guest.id)")
            }
            closeSession(session, of: guest, reason: .guest) { _ in }
        case .loadingProgress(let handle, let progress):
            guard let index = guest.sceneIndex(handle: handle) else { return }
            let before = guest.scenes[index].loading
            guest.scenes[index].loading = progress
            // The event stream hears each step a person would see, not every fraction reported.
            if before.description != progress.description {
                record(
                    .loading, guest: guest.id, scene: handle, session: guest.scenes[index].sessionID,
                    message: progress.description)
            }
        case .sceneTitleChanged(let handle, let title):
            guard let index = guest.sceneIndex(handle: handle) else { return }
            guest.scenes[index].title = title.isEmpty ? nil : title
            record(
                .sceneTitle, guest: guest.id, scene: handle, session: guest.scenes[index].sessionID,
                name: title.isEmpty ? nil : title)
        case .modalPresented(let handle, let modal, let style, let title):
            guard let index = guest.sceneIndex(handle: handle) else { return }
            guest.scenes[index].modals.append(ModalRecord(id: modal, style: style, title: title))
            record(
                .modalPresented, guest: guest.id, scene: handle, session: guest.scenes[index].sessionID,
                name: style.description, message: "modal \(modal): \(title)")
        case .modalDismissed(let handle, let modal):
            guard let index = guest.sceneIndex(handle: handle) else { return }
            dropModals(guest, scene: index, from: modal, reason: .guest)
        default:
            break
        }
    }

    // MARK: Requests (S9, S10)

    /// S9: the guest's runtime found the activation unspent; the host holds to its own account, so
    /// that no guest can open more scenes than its user actions allow.
    private func requestScene(
        _ guest: GuestRecord, activation: ActivationToken, from: SceneHandle, role: SceneRole,
        style: PresentationStyle, state: Data
    ) {
        func refuse(_ why: String) {
            record(.requestRefused, guest: guest.id, scene: from, name: style.description, message: why)
        }
        guard guest.mayOpenScene else { return refuse(GuestRecord.singleScene(guest.id)) }
        guard spendActivation(activation, of: guest) else {
            return refuse("request_scene without an unspent activation of a user action")
        }
        guard !guest.stopped else { return refuse("the guest is suspended") }
        let beside = guest.sceneIndex(handle: from)
        sessions.createSession(of: guest, role: role, state: state)
        let index = guest.scenes.count - 1
        record(
            .sceneRequested, guest: guest.id, scene: from, session: guest.scenes[index].sessionID,
            name: style.description, message: "new \(role) scene")
        show(guest, scene: index, style: style, beside: beside)
    }

    /// Spends the activation `token` (S9) if one of the guest's actions granted it and it is
    /// unspent and open: the action under way, or answered less than the policy's activation ago.
    private func spendActivation(_ token: ActivationToken, of guest: GuestRecord) -> Bool {
        guard let grant = guest.activations.removeValue(forKey: token) else { return false }
        return grant.isOpen(at: clock.uptime())
    }

    /// Shows a scene of a running guest as `style` asks (S10): prominent above everything;
    /// standard beside the scene `beside` (a split with it, or in the other half of its split);
    /// automatic beside it when the display is wide enough for two regular halves, else full
    /// screen, as standard is when the scene beside is not in the main area.
    func show(_ guest: GuestRecord, scene index: Int, style: PresentationStyle, beside: Int?) {
        let scene = SceneRef(guest: guest.id, session: guest.scenes[index].sessionID)
        guard !layout.visible.contains(scene) || style == .prominent else { return }
        var next = layout.removing(scene)
        let anchor = beside.map { SceneRef(guest: guest.id, session: guest.scenes[$0].sessionID) }
        let wide = scenePolicy.displayWidth / 2 >= scenePolicy.compactBelow
        switch style {
        case .prominent:
            next.prominent = scene
        case .standard, .automatic:
            let besideAllowed = style == .standard || wide
            switch next.main {
            case .fullScreen(let shown) where shown == anchor && besideAllowed:
                next.main = .split(shown, scene, ratio: 0.5)
            case .split(let first, _, let ratio) where first == anchor && besideAllowed:
                next.main = .split(first, scene, ratio: ratio)
            case .split(_, let second, let ratio) where second == anchor && besideAllowed:
                next.main = .split(scene, second, ratio: ratio)
            default:
                next.main = .fullScreen(scene)
            }
        }
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
        guard !action.isEmpty else { return completion(.failure(HostCommandError.invalid("an action needs a name"))) }
        guard action.utf8.count <= Int(APPHOST_SCENES_TEXT_MAX_BYTES) else {
            return completion(
                .failure(HostCommandError.invalid("an action's name is at most \(APPHOST_SCENES_TEXT_MAX_BYTES) bytes"))
            )
        }
        guard payload.count <= Int(APPHOST_ACTION_PAYLOAD_MAX_BYTES) else {
            return completion(
                .failure(
                    HostCommandError.invalid("an action's payload is at most \(APPHOST_ACTION_PAYLOAD_MAX_BYTES) bytes")
                ))
        }
        guard let (guest, index) = findScene(name, else: completion) else { return }
        guard let handle = guest.scenes[index].handle, guest.scenes[index].state.isForeground else {
            return completion(
                .failure(HostCommandError("scene \(name) is not shown: a user acts only on what they see")))
        }
        guard guest.phase == .running, !guest.stopped else {
            return completion(.failure(HostCommandError("\(guest.id) is not running")))
        }
        let now = clock.uptime()
        guest.activations = guest.activations.filter { $0.value.isOpen(at: now) }
        let token = nextActivation
        nextActivation += 1
        guest.activations[token] = ActivationGrant()
        let activation = scenePolicy.activation
        deliver(
            guest, .performAction(handle, name: action, payload: payload, activation: activation, token: token),
            sceneState: guest.scenes[index].state
        ) { [weak self] _ in
            guard let self, guest.activations[token] != nil else { return }
            guest.activations[token]?.until = self.clock.uptime() + activation
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
        guard let handle = guest.scenes[index].handle, let modal = guest.scenes[index].modals.last else {
            return completion(.failure(HostCommandError("scene \(name) presents no modal")))
        }
        guard guest.phase == .running, !guest.stopped else {
            return completion(.failure(HostCommandError("\(guest.id) is not running")))
        }
        let session = guest.scenes[index].sessionID
        deliver(guest, .shouldDismissModal(handle, modal.id), sceneState: guest.scenes[index].state) {
            [weak self] reply in
            guard let self, let index = guest.sceneIndex(handle: handle),
                guest.scenes[index].modals.contains(where: { $0.id == modal.id })
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
                self.record(
                    .modalKept, guest: guest.id, scene: handle, session: session, name: modal.style.description,
                    message: "modal \(modal.id): \(modal.title): the guest keeps it")
                return completion(.success(false))
            }
            self.dropModals(guest, scene: index, from: modal.id, reason: .requested)
            self.deliver(guest, .didDismissModal(handle, modal.id), sceneState: guest.scenes[index].state)
            completion(.success(true))
        }
    }

    /// Removes `modal` and those above it; the event names the lowest.
    private func dropModals(_ guest: GuestRecord, scene index: Int, from modal: ModalID, reason: TransitionReason) {
        guard let position = guest.scenes[index].modals.firstIndex(where: { $0.id == modal }) else { return }
        let dropped = guest.scenes[index].modals[position]
        guest.scenes[index].modals.removeSubrange(position...)
        record(
            .modalDismissed, guest: guest.id, scene: guest.scenes[index].handle,
            session: guest.scenes[index].sessionID, reason: reason, name: dropped.style.description,
            message: "modal \(modal): \(dropped.title)")
    }

    // MARK: Notifications (N1)

    private func postNotification(_ guest: GuestRecord, title: String, body: String) {
        guard
            guest.notifications.admit(
                at: clock.uptime(), limit: scenePolicy.notificationLimit, window: scenePolicy.notificationWindow)
        else {
            return record(
                .notificationRefused, guest: guest.id, name: title,
                message:
                    "more than \(scenePolicy.notificationLimit) within \(scenePolicy.notificationWindow.secondsText)")
        }
        record(.notification, guest: guest.id, name: title, message: body.isEmpty ? nil : body)
    }
}
