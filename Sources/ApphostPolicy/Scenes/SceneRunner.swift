import ApphostModel
import ApphostVocabulary
import Foundation

/// Carries out scenes (CONTRACT S1 to S13, N1 to N3): the parts decide (`SceneTransitions`,
/// `Arrangement`, `SceneRequests`, `SceneReports`, `SessionClosing`, `SceneLimit`); the runner
/// hands them facts, does what they say through the outbox and the sessions, and takes the
/// operator's scene commands. It owns those parts; what a scene's move means for its guest's life
/// (app state, background) goes to the core (`LifecycleOrders`).
///
/// Confined to the host queue, like the core that keeps it: call every method there.
public final class SceneRunner: @unchecked Sendable {
    typealias Closed = @Sendable (Result<String, HostCommandError>) -> Void

    /// The scenes shown and where (S11), and the host alert (S4); read for status.
    private(set) var arrangement: Arrangement
    /// What guests report of their connected scenes: loading, modals, titles (N2, N3).
    private(set) var reports = SceneReports()
    /// The order of scene callbacks and the connections' handles (S1 to S5).
    private var transitions = SceneTransitions()
    /// Scene requests, the activations that let them and notifications' rate (S9, S10, S13, N1).
    private var requests: SceneRequests
    /// The sessions closed while their guest did not run (S7).
    private var closing = SessionClosing()
    /// How many scenes may stay connected in background, over all guests (S6).
    private let limit: SceneLimit
    private let outbox: GuestOutbox
    private let sessions: SessionKeeper
    private let background: BackgroundRunner
    private let log: HostEventLog
    private let clock: any HostClock
    private let hostQueue: any HostExecutor
    weak var lifecycle: (any LifecycleOrders)?

    init(
        policy: ScenePolicy, backgroundLimit: Int?, outbox: GuestOutbox, sessions: SessionKeeper,
        background: BackgroundRunner, log: HostEventLog, clock: any HostClock, hostQueue: any HostExecutor
    ) {
        arrangement = Arrangement(policy: policy)
        requests = SceneRequests(policy: policy)
        limit = SceneLimit(limit: backgroundLimit)
        (self.outbox, self.sessions, self.background) = (outbox, sessions, background)
        (self.log, self.clock, self.hostQueue) = (log, clock, hostQueue)
    }

    var layout: Layout { arrangement.layout }
    /// N1: the notification limit, for a launching guest's runtime to refuse at once, as the host would.
    var notificationLimit: GuestCall { requests.notificationLimit }

    // MARK: The guests' lives

    /// Moves one scene as `target` says, through the callbacks the contract orders (S2 to S5).
    func move(_ guest: GuestRecord, scene index: Int, to target: SceneTransitions.Target, reason: TransitionReason) {
        let (facts, now) = (guest.moveFacts(workEnded: background.workEnded(guest.id)), clock.uptime())
        perform(transitions.move(index, of: &guest.scenes, facts, to: target, reason: reason, at: now), for: guest)
    }

    /// Shows `scene` of `guest`, or the primary scene it showed last, full screen (S3, `Arrangement.foreground`).
    func bringToForeground(_ guest: GuestRecord, scene: Int? = nil, reason: TransitionReason) {
        arrangement.foreground(of: guest.id, guest.scenes, scene: scene).map { arrange($0, reason: reason) }
    }

    /// Takes the guest's scenes out of the layout (S3).
    func hide(_ id: String, reason: TransitionReason) { arrange(arrangement.without(guest: id), reason: reason) }

    /// Sends every foreground scene to background (S3): the "home screen". Picture in picture stays up.
    public func home() {
        hostQueue.preconditionCurrent()
        arrange(arrangement.home(), reason: .requested)
    }

    /// Shows a host alert over the foreground: foregroundActive scenes resign active only (S4);
    /// or dismisses it: the covered scenes become active again, with no background trip.
    public func alert(shown: Bool) throws(HostCommandError) {
        hostQueue.preconditionCurrent()
        perform([try arrangement.alert(shown)], reason: .requested)
        arrange(layout, reason: .requested)
    }

    /// The guest's connected scenes become unattached: it stopped running (X2, A3).
    func unattach(_ guest: GuestRecord, reason: TransitionReason) {
        for index in guest.scenes.indices where guest.scenes[index].state != .unattached {
            unattach(guest, scene: index, reason: reason)
        }
    }

    /// The guest launched (A2): sessions closed since it last ran are gone before any scene
    /// connects (S7), and it has a primary one at least.
    func prepareScenes(of guest: GuestRecord, stored: StoredGuest) {
        for session in sessions.pendingDiscards(of: guest, closed: closing.pending(of: guest.id), stored: stored) {
            announceDiscard(session, to: guest)
        }
        if guest.scenes.isEmpty { sessions.createSession(of: guest, role: .primary) }
    }

    /// Then its scenes connect, the one shown in the foreground first (S2), the others in background.
    func connect(_ guest: GuestRecord, foreground: Bool) {
        if foreground { bringToForeground(guest, reason: .requested) }
        for index in guest.scenes.indices where guest.scenes[index].state == .unattached {
            move(guest, scene: index, to: .background, reason: .automatic)
        }
    }

    /// B8: the scene requests refused while the guest was stopped (S9), and the sessions closed
    /// meanwhile: known in memory, so resuming reads nothing from the store.
    func releaseHeld(_ guest: GuestRecord) {
        perform(requests.releaseHeld(guest.id), for: guest)
        for session in closing.pending(of: guest.id) { announceDiscard(session, to: guest) }
    }

    func ended(_ id: String) { requests.ended(id) }

    /// A guest's scene report, to `SceneRequests` and `SceneReports`.
    func report(_ event: GuestEvent, from guest: GuestRecord) {
        let (facts, now) = (guest.sceneFacts, clock.uptime())
        perform(requests.report(event, from: facts, at: now) + reports.report(event, from: facts), for: guest)
    }

    // MARK: Operators' commands

    /// Opens a new primary window of a running guest, as a user would (S2): a new session,
    /// stored (S8), shown full screen in the foreground; what was shown goes to background (S3).
    public func openScene(
        _ id: String, completion: @escaping @Sendable (Result<String, HostCommandError>) -> Void = { _ in }
    ) {
        hostQueue.preconditionCurrent()
        guard let (guest, _) = running(id).value(orFail: completion) else { return }
        guard guest.mayOpenScene else { return completion(.failure(HostCommandError(GuestRecord.singleScene(id)))) }
        guard !guest.changingSuspension else { return completion(.failure(GuestDirectory.changingSuspension(id))) }
        guard !guest.suspended else {
            lifecycle?.resume(id, reason: .requested) { [weak self] result in
                if case .failure(let error) = result { return completion(.failure(error)) }
                self?.openScene(id, completion: completion)
            }
            return
        }
        sessions.createSession(of: guest, role: .primary)
        bringToForeground(guest, scene: guest.scenes.count - 1, reason: .requested)
        completion(.success(guest.scenes[guest.scenes.count - 1].sessionID))
    }

    /// Sends the user action `name` with `payload` to a scene, which grants one activation (S9): a
    /// request made while the guest handles it, or within the policy's activation after, may open one scene.
    public func performAction(
        scene name: String, action: String, payload: Data,
        completion: @escaping @Sendable (Result<Void, HostCommandError>) -> Void = { _ in }
    ) {
        hostQueue.preconditionCurrent()
        completion(
            Result { () throws(HostCommandError) in
                try SceneRequests.check(action: action, payload: payload)
                let (guest, index) = try find(name)
                let (call, token) = try requests.act(
                    action, payload: payload, on: index, of: guest.sceneFacts, named: name, at: clock.uptime())
                outbox.deliver(guest, call, sceneState: guest.scenes[index].state) { [weak self, clock] _ in
                    self?.requests.answered(token, of: guest.id, at: clock.uptime())
                }
            })
    }

    /// The user asks to dismiss the top modal of a scene (N3): the guest may keep it (unsaved
    /// changes); if it lets it go, it is dismissed and the guest told.
    public func dismissModal(
        scene name: String, completion: @escaping @Sendable (Result<Bool, HostCommandError>) -> Void = { _ in }
    ) {
        hostQueue.preconditionCurrent()
        do throws(HostCommandError) {
            let (guest, index) = try find(name)
            let dismissal = try reports.dismissal(of: index, guest.sceneFacts, named: name)
            outbox.deliver(guest, dismissal.call, sceneState: guest.scenes[index].state) { [weak self] reply in
                guard let self else { return completion(.success(true)) }
                let (result, effects) = self.reports.answered(reply, to: dismissal, of: guest.sceneFacts)
                self.perform(effects, for: guest)
                completion(result)
            }
        } catch {
            completion(.failure(error))
        }
    }

    /// Closes a scene, named as `GuestDirectory.scene(named:)` reads it, for good (S7).
    public func closeScene(
        _ name: String, completion: @escaping @Sendable (Result<String, HostCommandError>) -> Void = { _ in }
    ) {
        hostQueue.preconditionCurrent()
        do throws(HostCommandError) {
            let (guest, index) = try find(name)
            perform(
                [.close(session: guest.scenes[index].sessionID, reason: .requested)], for: guest, closed: completion)
        } catch {
            completion(.failure(error))
        }
    }

    /// Rearranges the display. Scenes are named as `GuestDirectory.scene(named:)` reads them; a
    /// scene of a suspended guest is resumed first, one of a guest not running is refused.
    public func changeLayout(
        _ change: LayoutChange, completion: @escaping @Sendable (Result<Void, HostCommandError>) -> Void = { _ in }
    ) {
        hostQueue.preconditionCurrent()
        let find = { [self] (name: String) in
            Result { () throws(HostCommandError) in try self.find(name) }.map { $0.0.ref($0.1) }
        }
        switch Arrangement.scenes(of: change, find: find) {
        case .failure(let error): completion(.failure(error))
        case .success(let scenes): changeLayout(change, of: scenes, completion: completion)
        }
    }

    // MARK: Carrying out

    private func running(_ id: String) -> Result<(GuestRecord, any GuestChannel), HostCommandError> {
        lifecycle?.running(id) ?? .failure(HostCommandError("host gone"))
    }

    private func find(_ name: String) throws(HostCommandError) -> (GuestRecord, Int) {
        guard let lifecycle else { throw HostCommandError("host gone") }
        return try lifecycle.scene(named: name)
    }

    /// Applies `change` to `scenes` once their guests run unsuspended (`Arrangement.waiting`).
    private func changeLayout(
        _ change: LayoutChange, of scenes: [SceneRef],
        completion: @escaping @Sendable (Result<Void, HostCommandError>) -> Void
    ) {
        let guests = Set(scenes.map(\.guest)).sorted().map { ($0, lifecycle?.guest($0)) }
        switch Arrangement.waiting(on: guests) {
        case .failure(let error): completion(.failure(error))
        case .success(nil): completion(arrangement.applying(change, to: scenes).map { arrange($0, reason: .requested) })
        case .success(let id?):
            lifecycle?.resume(id, reason: .requested) { [weak self] result in
                if case .failure(let error) = result { return completion(.failure(error)) }
                self?.changeLayout(change, of: scenes, completion: completion)
            }
        }
    }

    /// S7: tells a running guest that `session` is gone (did-discard), then forgets it for good.
    private func announceDiscard(_ session: String, to guest: GuestRecord) {
        guard guest.phase == .running || guest.phase == .launching, guest.channel != nil else { return }
        closing.announcing(session, of: guest.id)
        outbox.deliver(guest, .didDiscard(sessionID: session)) { [weak self] reply in
            if case .success = reply { self?.sessions.forget(session, of: guest) }
        }
    }

    /// Makes `next` the layout (`Arrangement.arrange`) and moves the scenes accordingly.
    private func arrange(_ next: Layout, reason: TransitionReason) {
        guard let lifecycle else { return }
        perform(arrangement.arrange(next, among: lifecycle.guests) { lifecycle.guest($0) }, reason: reason)
    }

    private func perform(_ effects: [ArrangementEffect], reason: TransitionReason) {
        guard let lifecycle else { return }
        for effect in effects {
            if case .record(let kind, let name, let message) = effect { log.record(kind, name: name, message: message) }
            guard let (guest, index, target) = effect.move(find: { lifecycle.guest($0) }) else { continue }
            move(guest, scene: index, to: target, reason: reason)
        }
    }

    /// Carries out what a scenes part said, in order; `closed` hears how a close ended, or why not.
    private func perform(_ effects: [SceneEffect], for guest: GuestRecord, closed: @escaping Closed = { _ in }) {
        for effect in effects {
            switch effect {
            case .record(let kind, let scene, let session, let from, let to, let reason, let name, let message):
                log.record(
                    kind, guest: guest.id, scene: scene, session: session, from: from, to: to, reason: reason,
                    name: name, message: message)
            case .deliver(let call, let state): outbox.deliver(guest, call, sceneState: state)
            case .state(let session, let state, let reason):
                guest.sceneIndex(session: session).map { setState(guest, scene: $0, to: state, reason: reason) }
            case .tellSaveStatus: lifecycle?.tellSaveStatus(guest)
            case .background(let entered): lifecycle?.backgroundChanged(guest, entered: entered)
            case .appState(let before, let reason): lifecycle?.appStateChanged(guest, from: before, reason: reason)
            case .limitBackground:
                guard let lifecycle else { continue }
                let over = limit.overLimit(of: lifecycle.guests) { lifecycle.guest($0) }
                for (guest, effect) in over { perform([effect], for: guest) }
            case .open(let role, let state, let style, let from):
                sessions.createSession(of: guest, role: role, state: state)
                let session = guest.scenes[guest.scenes.count - 1].sessionID
                perform(SceneRequests.opened(session, role: role, style: style, from: from), for: guest)
            case .show(let session, let style, let beside):
                let next = arrangement.presenting(session, of: guest.sceneFacts, style: style, beside: beside)
                next.map { arrange($0, reason: .requested) }
            case .close(let session, let reason):
                switch closing.close(session, of: guest.id, guest.closeFacts(session), reason: reason) {
                case .failure(let error): closed(.failure(error))
                case .success(let effects): perform(effects, for: guest, closed: closed)
                }
            case .hide(let session, let reason):
                arrange(layout.removing(SceneRef(guest: guest.id, session: session)), reason: reason)
            case .disconnect(let session, let handle, let reason, let held):
                guard let index = guest.sceneIndex(session: session) else { continue }
                unattach(guest, scene: index, reason: reason)
                if held {
                    guest.held.holdDisconnect(handle)
                } else {
                    outbox.deliver(guest, .scene(handle, .didDisconnect), sceneState: .unattached)
                }
            case .remove(let session):
                guest.sceneIndex(session: session).map { _ = guest.scenes.remove(at: $0) }
            case .discard(let session, let reason, let announce):
                sessions.discard(session, of: guest) { [weak self] in
                    guard let self else { return }
                    self.log.record(.sceneClosed, guest: guest.id, session: session, reason: reason)
                    if announce { self.announceDiscard(session, to: guest) }
                    closed(.success(session))
                }
            }
        }
    }

    private func unattach(_ guest: GuestRecord, scene index: Int, reason: TransitionReason) {
        setState(guest, scene: index, to: .unattached, reason: reason)
        guest.scenes[index].handle = nil
    }

    private func setState(_ guest: GuestRecord, scene index: Int, to state: SceneState, reason: TransitionReason) {
        let scene = guest.scenes[index]
        guest.scenes[index].state = state
        if state == .unattached { reports.disconnected(guest.ref(index)) }
        log.record(
            .sceneState, guest: guest.id, scene: scene.handle, session: scene.sessionID, from: scene.state.description,
            to: state.description, reason: reason)
    }
}
