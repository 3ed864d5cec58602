import ApphostModel
import ApphostVocabulary
import CApphost
import Foundation

/// Scene requests and the user actions that let them (CONTRACT S9, S10, S13), and the rate of
/// notifications (N1). It owns that state: every guest's unspent activations, the next
/// activation token (unique within the host), every guest's recent notifications, and the
/// refusals that wait for a stopped guest, by id; nothing else writes it.
///
/// It takes inputs (a user action delivered, its answer, a guest's request, activation or close
/// of a session, a notification) with what it needs to know of the guest then (`RequestFacts`),
/// and returns what should happen as values (`SceneEffect`), in order, for its runner to carry out.
/// It never calls the clock: the time comes with the input.
///
/// Every input costs the same however many guests there are: one lookup of the guest's state.
struct SceneRequests {
    let policy: ScenePolicy
    private var activations: [String: [ActivationToken: ActivationGrant]] = [:]
    private var nextActivation: ActivationToken = 1
    private var notifications: [String: RateWindow] = [:]
    private var heldRefusals: [String: [GuestCall]] = [:]

    /// The most refusals kept for a stopped guest; older ones go first. A request needs an
    /// activation, which only a user action grants: a stopped guest has few.
    static let heldRefusalsMax = 64

    init(policy: ScenePolicy) {
        self.policy = policy
    }

    /// The activations of guest `id` that no request has spent yet (open or not).
    func unspent(of id: String) -> Int { activations[id]?.count ?? 0 }

    // MARK: User actions (S9)

    /// A user action's name and payload as the ABI bounds them.
    static func check(action: String, payload: Data) throws(HostCommandError) {
        guard !action.isEmpty else { throw HostCommandError.invalid("an action needs a name") }
        guard action.utf8.count <= Int(APPHOST_SCENES_TEXT_MAX_BYTES) else {
            throw HostCommandError.invalid("an action's name is at most \(APPHOST_SCENES_TEXT_MAX_BYTES) bytes")
        }
        guard payload.count <= Int(APPHOST_ACTION_PAYLOAD_MAX_BYTES) else {
            throw HostCommandError.invalid("an action's payload is at most \(APPHOST_ACTION_PAYLOAD_MAX_BYTES) bytes")
        }
    }

    /// S9: a user action goes to a scene of guest `id`: it grants one activation, good while the
    /// action is delivered and for the policy's activation once it is answered. Returns its token.
    /// The guest's grants no longer open are dropped first.
    mutating func grant(to id: String, at now: Duration) -> ActivationToken {
        let token = nextActivation
        nextActivation += 1
        var grants = (activations[id] ?? [:]).filter { $0.value.isOpen(at: now) }
        grants[token] = ActivationGrant()
        activations[id] = grants
        return token
    }

    /// S9: the action that granted `token` was answered at `now`: its activation stays open for
    /// the policy's activation from now, unless a request spent it meanwhile.
    mutating func answered(_ token: ActivationToken, of id: String, at now: Duration) {
        guard activations[id]?[token] != nil else { return }
        activations[id]?[token]?.until = now + policy.activation
    }

    /// S9: the operator's user action `action` with `payload`, for scene `index` of a guest (the
    /// scene as the operator named it, `name`): the call that delivers it, with the token of the
    /// activation it grants (`grant`), or why a user could not act on it: it is not shown, or its
    /// guest does not run. Its name and payload are checked first (`check`).
    mutating func act(
        _ action: String, payload: Data, on index: Int, of guest: GuestSceneFacts, named name: String,
        at now: Duration
    ) throws(HostCommandError) -> (call: GuestCall, token: ActivationToken) {
        let scene = guest.scenes[index]
        guard let handle = scene.handle, scene.state.isForeground else {
            throw HostCommandError("scene \(name) is not shown: a user acts only on what they see")
        }
        guard guest.runsFreely else { throw HostCommandError("\(guest.id) is not running") }
        let token = grant(to: guest.id, at: now)
        return (
            .performAction(handle, name: action, payload: payload, activation: policy.activation, token: token), token
        )
    }

    // MARK: Requests (S9, S10, S13)

    /// What a guest reports of its requests (S9, S10, S7's close_session) or notifications (N1);
    /// nothing for a report of another part's. Only a running guest's requests count.
    mutating func report(_ event: GuestEvent, from guest: GuestSceneFacts, at now: Duration) -> [SceneEffect] {
        if case .notificationPosted(let title, let body) = event {
            return notification(from: guest.id, title: title, body: body, at: now)
        }
        guard guest.phase == .running else { return [] }
        switch event {
        case .sceneRequested(let activation, let from, let role, let style, let state, let request):
            let facts = RequestFacts(mayOpenScene: guest.mayOpenScene, stopped: guest.stopped)
            return self.request(
                guest.id, facts, activation: activation, from: from, role: role, style: style, state: state,
                request: request, at: now)
        case .sessionActivationRequested(let session, let style):
            return activate(session, of: guest.id, style: style, known: guest.knows(session))
        case .sessionCloseRequested(let session):
            return closeRequested(session, of: guest.id, known: guest.knows(session))
        default:
            return []
        }
    }

    /// S9, S13: guest `id` asks for a new scene with `activation`, from the scene `from`. A guest
    /// that declares one scene gets no other (S13), and its activation stays unspent; else the
    /// activation is spent, if one of the guest's actions granted it and it is still open, and
    /// the new scene is opened unless the guest is stopped. A refusal is recorded, and the guest
    /// hears it with its runtime's id of the request (`request`, 0 for none): at once, or once it
    /// runs again when it is stopped (`releaseHeld`).
    mutating func request(
        _ id: String, _ facts: RequestFacts, activation: ActivationToken, from: SceneHandle, role: SceneRole,
        style: PresentationStyle, state: Data, request: SceneRequestID = 0, at now: Duration
    ) -> [SceneEffect] {
        func refuse(_ why: String, _ reason: SceneRequestRefusal) -> [SceneEffect] {
            let record = SceneEffect.record(.requestRefused, scene: from, name: style.description, message: why)
            guard request != 0 else { return [record] }
            let refusal = GuestCall.sceneRequestRefused(request, reason: reason)
            guard facts.stopped else { return [record, .deliver(refusal)] }
            var held = heldRefusals[id, default: []]
            if held.count == Self.heldRefusalsMax { held.removeFirst() }
            held.append(refusal)
            heldRefusals[id] = held
            return [record]
        }
        guard facts.mayOpenScene else { return refuse(GuestRecord.singleScene(id), .notDeclared) }
        guard spend(activation, of: id, at: now) else {
            return refuse("request_scene without an unspent activation of a user action", .noActivation)
        }
        guard !facts.stopped else { return refuse("the guest is suspended", .suspended) }
        return [.open(role: role, state: state, style: style, from: from)]
    }

    /// S9, S10: the guest's new `session`, opened as `.open` asked: the request is recorded with
    /// it, and it is shown as `style` beside the scene `from`.
    static func opened(
        _ session: String, role: SceneRole, style: PresentationStyle, from: SceneHandle
    ) -> [SceneEffect] {
        [
            .record(
                .sceneRequested, scene: from, session: session, name: style.description, message: "new \(role) scene"),
            .show(session: session, style: style, beside: from),
        ]
    }

    /// B8: guest `id` runs again: the refusals it was not told while it was stopped, in order;
    /// none is held after.
    mutating func releaseHeld(_ id: String) -> [SceneEffect] {
        (heldRefusals.removeValue(forKey: id) ?? []).map { .deliver($0) }
    }

    /// S10: guest `id` asks to show its `session` as `style`; `known` says whether it has it.
    func activate(_ session: String, of id: String, style: PresentationStyle, known: Bool) -> [SceneEffect] {
        guard known else {
            return [
                .record(
                    .requestRefused, session: session, name: style.description,
                    message: "activate: no session \(session) of \(id)")
            ]
        }
        return [.show(session: session, style: style)]
    }

    /// S7, asked by guest `id` itself: as the operator's close, with reason guest.
    func closeRequested(_ session: String, of id: String, known: Bool) -> [SceneEffect] {
        guard known else {
            return [
                .record(
                    .requestRefused, session: session, name: "close", message: "close: no session \(session) of \(id)")
            ]
        }
        return [.close(session: session, reason: .guest)]
    }

    /// Guest `id` stopped running: its activations go with its runtime.
    mutating func ended(_ id: String) {
        activations[id] = nil
        heldRefusals[id] = nil
    }

    /// Spends `token` (S9) if one of the guest's actions granted it and it is unspent and open:
    /// the action under way, or answered less than the policy's activation ago.
    private mutating func spend(_ token: ActivationToken, of id: String, at now: Duration) -> Bool {
        guard let grant = activations[id]?.removeValue(forKey: token) else { return false }
        return grant.isOpen(at: now)
    }

    // MARK: Notifications (N1)

    /// N1: what a guest's runtime is told at launch, so that it refuses notifications over the
    /// limit at once, as the host would.
    var notificationLimit: GuestCall {
        .notificationLimit(count: policy.notificationLimit, window: policy.notificationWindow)
    }

    /// N1: guest `id` posts a notification at `now`: shown unless it posted the policy's limit
    /// within its window already.
    mutating func notification(from id: String, title: String, body: String, at now: Duration) -> [SceneEffect] {
        let policy = policy
        guard
            notifications[id, default: RateWindow()].admit(
                at: now, limit: policy.notificationLimit, window: policy.notificationWindow)
        else {
            return [
                .record(
                    .notificationRefused, name: title,
                    message: "more than \(policy.notificationLimit) within \(policy.notificationWindow.secondsText)")
            ]
        }
        return [.record(.notification, name: title, message: body.isEmpty ? nil : body)]
    }
}

/// What `SceneRequests` needs to know of a guest at a request.
struct RequestFacts: Equatable, Sendable {
    /// S13: it declares several scenes, or has none yet (`GuestRecord.mayOpenScene`).
    var mayOpenScene: Bool
    /// Suspended, or being suspended or resumed (B7).
    var stopped: Bool
}

/// One user action's activation (S9): good while the action is delivered, and until `until`
/// once it is answered; spent by one request.
struct ActivationGrant: Equatable, Sendable {
    /// Host uptime; nil while the action is not answered yet.
    var until: Duration?

    func isOpen(at now: Duration) -> Bool { until.map { now < $0 } ?? true }
}
