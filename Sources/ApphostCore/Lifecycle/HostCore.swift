import CApphost
import Foundation

/// The host's lifecycle policy: app states (A1 to A3, A5), scene states and callback orders (S1 to
/// S5), which guest is in the foreground, and host alerts. It reaches guests only through
/// `GuestChannel`, so it runs the same with in-process guests, worker processes or test fakes.
///
/// Confined to `hostQueue`: call every method there. Completions run there too.
public final class HostCore: SessionKeeperDelegate, WatchdogDelegate, RestarterDelegate, @unchecked Sendable {
    private let opener: any GuestOpener
    let clock: any HostClock
    let hostQueue: any HostExecutor
    private let guestsDirectory: String
    /// Where what happens is recorded, for the host's event stream.
    let log: HostEventLog
    /// Stops guests stuck in a callback (B5).
    let watchdog: Watchdog
    /// Relaunches crashed guests under the restart policy (X2).
    let restarter: Restarter
    let backgroundPolicy: BackgroundPolicy
    /// How many scenes may stay connected in background, over all guests (S6); nil for no limit.
    let backgroundSceneLimit: Int?
    /// Sessions and what they saved, in the store (S6 to S8, S12, X5).
    let sessions: SessionKeeper
    /// The host's memory limit in bytes (A4), against which `memoryUsage` is measured; nil for none.
    let memoryLimit: UInt64?
    /// The last memory reading was over the limit: the guests have been warned.
    var underMemoryPressure = false

    /// Guests in the order they were first loaded.
    var guests: [GuestRecord] = []
    /// The scenes shown and where (S11); every scene it names is in the foreground.
    var layout = Layout()
    let scenePolicy: ScenePolicy
    var alertShown = false
    private var nextHandle: SceneHandle = 1
    /// The next user action's activation token (S9), unique within the host.
    var nextActivation: ActivationToken = 1

    /// The guest filling the display, or else the first one shown.
    var foregroundID: String? { (layout.mainScenes.first ?? layout.visible.first)?.guest }

    public init(
        opener: any GuestOpener, clock: any HostClock, hostQueue: any HostExecutor, sessionIDs: any SessionIDSource,
        guestsDirectory: String, restartPolicy: RestartPolicy = .never, watchdog: WatchdogPolicy = WatchdogPolicy(),
        background: BackgroundPolicy = BackgroundPolicy(), memoryLimit: UInt64? = nil,
        store: (any SessionStore)? = nil, backgroundSceneLimit: Int? = nil, scenes: ScenePolicy = ScenePolicy(),
        emit: @escaping @Sendable (HostEvent) -> Void
    ) {
        self.scenePolicy = scenes
        self.backgroundSceneLimit = backgroundSceneLimit
        self.backgroundPolicy = background
        self.memoryLimit = memoryLimit
        self.opener = opener
        self.clock = clock
        self.hostQueue = hostQueue
        self.guestsDirectory = guestsDirectory
        let log = HostEventLog(clock: clock, emit: emit)
        self.log = log
        sessions = SessionKeeper(store: store, clock: clock, hostQueue: hostQueue, sessionIDs: sessionIDs, log: log)
        self.watchdog = Watchdog(policy: watchdog, clock: clock, log: log)
        restarter = Restarter(policy: restartPolicy, clock: clock, hostQueue: hostQueue, log: log)
        sessions.delegate = self
        self.watchdog.delegate = self
        restarter.delegate = self
    }

    // MARK: Commands

    /// Loads the guest at `path` and launches it (A2); with `foreground` its primary scene
    /// becomes foregroundActive (S2) and the previous foreground guest goes to background (S3),
    /// otherwise its scene connects straight into background.
    public func launch(
        path: String, foreground: Bool,
        completion: @escaping @Sendable (Result<GuestDescriptor, HostCommandError>) -> Void = { _ in }
    ) {
        assertOnHostQueue()
        let route = GuestEventRoute(path: path)
        opener.open(
            path: path, guestsDirectory: guestsDirectory, hostQueue: hostQueue,
            onEvent: { [weak self] event in self?.handle(event, from: route) },
            completion: { [weak self] result in
                guard let self else { return }
                switch result {
                case .failure(let error):
                    self.record(.launchFailed, message: error.description)
                    completion(.failure(HostCommandError(error.description)))
                case .success(let opened):
                    self.launchOpened(opened, path: path, route: route, foreground: foreground, completion: completion)
                }
            })
    }

    /// Brings `id` to the foreground (S3 on the old, S5 or S2 on the new), relaunching it if it
    /// is not running.
    public func switchTo(
        _ id: String, completion: @escaping @Sendable (Result<Void, HostCommandError>) -> Void = { _ in }
    ) {
        assertOnHostQueue()
        guard let guest = guest(id) else { return completion(.failure(unknownGuest(id))) }
        switch guest.phase {
        case .launching, .terminating:
            completion(.failure(HostCommandError("\(id) is \(guest.phase.rawValue); try again when it settles")))
        case .notRunning:
            launch(path: guest.path, foreground: true) { result in completion(result.map { _ in () }) }
        case .running where guest.suspended:
            resume(id) { [weak self] result in
                guard let self else { return }
                if case .failure(let error) = result { return completion(.failure(error)) }
                self.switchTo(id, completion: completion)
            }
        case .running:
            guard !guest.changingSuspension else {
                return completion(.failure(HostCommandError("\(id) is being suspended or resumed; try again")))
            }
            bringToForeground(guest, reason: .requested)
            completion(.success(()))
        }
    }

    /// Opens a new primary window of a running guest, as a user would (S2): a new session,
    /// stored (S8), shown full screen in the foreground; what was shown goes to background (S3).
    public func openScene(
        _ id: String, completion: @escaping @Sendable (Result<String, HostCommandError>) -> Void = { _ in }
    ) {
        assertOnHostQueue()
        let guest: GuestRecord
        switch running(id) {
        case .success(let found): guest = found.0
        case .failure(let error): return completion(.failure(error))
        }
        guard guest.mayOpenScene else {
            return completion(.failure(HostCommandError(GuestRecord.singleScene(id))))
        }
        guard !guest.changingSuspension else {
            return completion(.failure(HostCommandError("\(id) is being suspended or resumed; try again")))
        }
        guard !guest.suspended else {
            return resume(id) { [weak self] result in
                if case .failure(let error) = result { return completion(.failure(error)) }
                self?.openScene(id, completion: completion)
            }
        }
        sessions.createSession(of: guest, role: .primary)
        bringToForeground(guest, scene: guest.scenes.count - 1, reason: .requested)
        completion(.success(guest.scenes[guest.scenes.count - 1].sessionID))
    }

    /// Suspends a running guest (B7): its foreground scenes go to background first (S3), then
    /// its channel stops it once those callbacks have returned. The guest is reported suspended
    /// only once the channel has confirmed it.
    public func suspend(
        _ id: String, reason: TransitionReason = .requested,
        completion: @escaping @Sendable (Result<Void, HostCommandError>) -> Void = { _ in }
    ) {
        assertOnHostQueue()
        let guest: GuestRecord
        let channel: any GuestChannel
        switch running(id) {
        case .success(let found): (guest, channel) = found
        case .failure(let error): return completion(.failure(error))
        }
        guard !guest.suspended, !guest.changingSuspension else {
            return completion(.failure(HostCommandError("\(id) is already suspended")))
        }
        endBackgroundWork(guest)
        arrange(layout.keeping { $0.guest != id }, reason: reason)
        stopGuest(guest, channel: channel, reason: reason, completion: completion)
    }

    /// Lets a suspended guest run again; it comes back in background.
    public func resume(
        _ id: String, reason: TransitionReason = .requested,
        completion: @escaping @Sendable (Result<Void, HostCommandError>) -> Void = { _ in }
    ) {
        assertOnHostQueue()
        guard let guest = guest(id) else { return completion(.failure(unknownGuest(id))) }
        guard guest.phase == .running, guest.suspended, !guest.changingSuspension, let channel = guest.channel else {
            return completion(.failure(HostCommandError("\(id) is not suspended")))
        }
        changeSuspension(guest, channel: channel, to: false, reason: reason, completion: completion)
    }

    /// Asks the channel to stop or restart the guest, and reports the guest suspended or resumed
    /// only once the channel confirms it.
    func changeSuspension(
        _ guest: GuestRecord, channel: any GuestChannel, to suspended: Bool, reason: TransitionReason,
        completion: @escaping @Sendable (Result<Void, HostCommandError>) -> Void
    ) {
        let id = guest.id
        let verb = suspended ? "suspend" : "resume"
        guest.suspension = suspended ? .suspending : .resuming
        let confirmed: @Sendable (Result<Void, ChannelFailure>) -> Void = { [weak self] result in
            guard let self, guest.channel === channel else {
                return completion(.failure(self?.gone(id) ?? HostCommandError("host gone")))
            }
            // Settled: back to the state before the change, then, if it succeeded, the new one.
            guest.suspension = suspended ? .running : .suspended
            switch result {
            case .success:
                let before = guest.appState
                guest.suspension = suspended ? .suspended : .running
                if suspended { self.markSuspended(guest, reason: reason) }
                self.noteAppState(guest, from: before, reason: reason)
                self.record(suspended ? .suspended : .resumed, guest: id, reason: reason)
                if !suspended { self.resumed(guest) }
                completion(.success(()))
            case .failure(let failure):
                self.record(.error, guest: id, reason: reason, message: "cannot \(verb): \(failure)")
                if suspended { self.stayedRunning(guest) }
                completion(.failure(HostCommandError("cannot \(verb) \(id): \(failure)")))
            }
        }
        if suspended { channel.suspend(completion: confirmed) } else { channel.resume(completion: confirmed) }
    }

    /// Sends every foreground scene to background (S3): the "home screen". Picture in picture
    /// stays up.
    public func home() {
        assertOnHostQueue()
        var next = layout
        next.main = .empty
        next.slideOver = []
        next.prominent = nil
        arrange(next, reason: .requested)
    }

    /// Shows a host alert over the foreground: foregroundActive scenes resign active only (S4).
    public func showAlert() throws(HostCommandError) {
        assertOnHostQueue()
        guard !alertShown else { throw HostCommandError("an alert is already shown") }
        alertShown = true
        record(.alert, name: "shown")
        arrange(layout, reason: .requested)
    }

    /// Dismisses the alert: the covered scenes become active again, with no background trip (S4).
    public func dismissAlert() throws(HostCommandError) {
        assertOnHostQueue()
        guard alertShown else { throw HostCommandError("no alert is shown") }
        alertShown = false
        record(.alert, name: "dismissed")
        arrange(layout, reason: .requested)
    }

    /// Terminates a running guest: its foreground scenes go to background first (S3, so they
    /// save), then will-terminate (A3), then it is unloaded. Saved state survives. The success
    /// says how it went when it did not go well: a guest that crashed or hung in will_terminate
    /// or deinit is terminated all the same (X2), and the caller learns where and of what.
    public func terminate(
        _ id: String, reason: TransitionReason = .requested,
        completion: @escaping @Sendable (Result<String?, HostCommandError>) -> Void = { _ in }
    ) {
        assertOnHostQueue()
        let guest: GuestRecord
        let channel: any GuestChannel
        switch running(id) {
        case .success(let found): (guest, channel) = found
        case .failure(let error): return completion(.failure(error))
        }
        guard !guest.changingSuspension else {
            return completion(.failure(HostCommandError("\(id) is being suspended or resumed; try again")))
        }
        // A3: a running guest hears will-terminate; a suspended one is terminated without a callback.
        if !guest.suspended {
            endBackgroundWork(guest)
            arrange(layout.keeping { $0.guest != id }, reason: reason)
            deliver(guest, .willTerminate, sceneState: nil)
        }
        guest.phase = .terminating
        guest.terminationTrouble = nil
        channel.close { [weak self] in
            let trouble = guest.terminationTrouble
            self?.unloaded(guest, channel: channel, reason: reason) { completion(.success(trouble)) }
        }
    }

    /// Terminates every running guest gracefully (A3) with reason shutdown.
    public func shutdown(completion: @escaping @Sendable () -> Void) {
        assertOnHostQueue()
        let running = guests.filter { $0.phase == .running }
        guard !running.isEmpty else { return completion() }
        let remaining = Countdown(running.count, then: completion)
        for guest in running {
            terminate(guest.id, reason: .shutdown) { _ in remaining.tick() }
        }
    }

    /// The state of every guest and scene, for operators.
    public func status() -> HostStatus {
        assertOnHostQueue()
        return HostStatus(
            foreground: foregroundID, alert: alertShown,
            guests: guests.map { guest in
                GuestStatus(
                    id: guest.id, name: guest.descriptor.name, version: guest.descriptor.version, path: guest.path,
                    appState: guest.appState, phase: guest.phase, lastReason: guest.lastReason,
                    since: guest.lastTransition,
                    scenes: guest.scenes.map {
                        SceneStatus(
                            handle: $0.handle, session: $0.sessionID, role: $0.role, state: $0.state,
                            savedBytes: $0.storedBytes, size: $0.size,
                            placement: layout.placement(of: SceneRef(guest: guest.id, session: $0.sessionID)),
                            loading: $0.loading,
                            modals: $0.modals.map { ModalStatus(id: $0.id, style: $0.style, title: $0.title) },
                            saveFailure: $0.saveFailure)
                    },
                    restart: restarter.status(of: guest),
                    backgroundTimeRemaining: backgroundTimeRemaining(guest),
                    tasks: guest.background.tasks.map { TaskStatus(id: $0.id, name: $0.name, expired: $0.expired) },
                    suspension: guest.background.suspendedSince.map {
                        SuspensionStatus(since: $0, reason: guest.background.suspendReason ?? .requested)
                    }, pid: guest.channel?.processID)
            }, display: "\(scenePolicy.displayWidth)x\(scenePolicy.displayHeight)", layout: layout)
    }

    // MARK: Launch

    private func launchOpened(
        _ opened: OpenedGuest, path: String, route: GuestEventRoute, foreground: Bool,
        completion: @escaping @Sendable (Result<GuestDescriptor, HostCommandError>) -> Void
    ) {
        let descriptor = opened.descriptor
        let guest: GuestRecord
        if let known = self.guest(descriptor.id) {
            guard known.phase == .notRunning else {
                let error = LoadError(path: path, cause: .alreadyLoaded(descriptor.id))
                opened.channel.close {}
                record(.launchFailed, guest: descriptor.id, message: error.description)
                return completion(.failure(HostCommandError(error.description)))
            }
            guest = known
            guest.path = path
            guest.descriptor = descriptor
        } else {
            guest = GuestRecord(descriptor: descriptor, path: path, now: clock.now())
            guests.append(guest)
            sessions.restoreSessions(of: guest)
        }
        route.id = descriptor.id
        route.channel = opened.channel
        guest.channel = opened.channel
        record(.guestLoaded, guest: guest.id, message: "\(descriptor.name) \(descriptor.version) from \(path)")
        // A1: it runs, with no scene yet: background, in the guest, in `ps` and in the stream alike.
        guest.phase = .launching
        noteAppState(guest, from: .notRunning, reason: .requested)
        // What a guest thread asked for between init and the channel's opening, now it has a record.
        let early = route.early
        route.early = []
        for event in early { handle(event, from: route) }

        // N1: its runtime refuses notifications over the limit at once, as the host would.
        deliver(guest, .notificationLimit(count: scenePolicy.notificationLimit, window: scenePolicy.notificationWindow))
        deliver(guest, .didFinishLaunching, sceneState: nil) { [weak self] reply in
            guard let self else { return }
            switch reply {
            case .success(0):
                self.launched(guest, foreground: foreground)
                completion(.success(descriptor))
            case .success(let status):
                self.launchFailed(
                    guest, cause: "did_finish_launching returned \(status) (\(StatusName.of(status)))",
                    completion: completion)
            case .failure(let failure):
                self.launchFailed(guest, cause: "did_finish_launching: \(failure)", completion: completion)
            }
        }
    }

    /// A2: the launch callback succeeded; now the scenes connect.
    private func launched(_ guest: GuestRecord, foreground: Bool) {
        guard guest.phase == .launching else { return }
        guest.phase = .running
        let before = guest.appState
        // S7: sessions closed since it last ran are gone before any scene connects.
        for session in sessions.pendingDiscards(of: guest) { announceDiscard(session, to: guest) }
        if guest.scenes.isEmpty { sessions.createSession(of: guest, role: .primary) }
        noteAppState(guest, from: before, reason: .requested)
        guest.background.lastUsed = clock.uptime()
        if foreground {
            bringToForeground(guest, reason: .requested)
        }
        for index in guest.scenes.indices where guest.scenes[index].state == .unattached {
            move(guest, scene: index, to: .background, reason: .automatic)
        }
        // B2: a guest launched into background starts its budget at once.
        if guest.appState == .background { enteredBackground(guest) }
    }

    private func launchFailed(
        _ guest: GuestRecord, cause: String,
        completion: @escaping @Sendable (Result<GuestDescriptor, HostCommandError>) -> Void
    ) {
        let message = "\(guest.path): launch failed: \(cause)"
        record(.launchFailed, guest: guest.id, message: message)
        guard let channel = guest.channel else { return completion(.failure(HostCommandError(message))) }
        guest.phase = .terminating
        channel.close { [weak self] in
            self?.unloaded(guest, channel: channel, reason: .requested) {
                completion(.failure(HostCommandError(message)))
            }
        }
    }

    /// The guest's channel is closed: it no longer runs and its scenes are unattached (A3). It is
    /// reported terminated, and `then` runs, once what it saved to the last is in the store, so
    /// that the event stream never says terminated before its last state-saved.
    private func unloaded(
        _ guest: GuestRecord, channel: any GuestChannel, reason: TransitionReason,
        then: @escaping @Sendable () -> Void = {}
    ) {
        guard guest.channel === channel else { return then() }
        let before = guest.appState
        guest.channel = nil
        guest.suspension = .running
        guest.background.reset()
        guest.activations = [:]
        guest.calls.reset()
        for index in guest.scenes.indices where guest.scenes[index].state != .unattached {
            setSceneState(guest, scene: index, to: .unattached, reason: reason)
            guest.scenes[index].handle = nil
        }
        guest.phase = .notRunning
        noteAppState(guest, from: before, reason: reason)
        arrange(layout.keeping { $0.guest != guest.id }, reason: reason)
        let trouble = guest.terminationTrouble
        guest.terminationTrouble = nil
        if let trouble { record(.error, guest: guest.id, reason: reason, message: trouble) }
        sessions.afterSaves { [weak self] in
            self?.record(.terminated, guest: guest.id, reason: reason, message: trouble)
            then()
        }
    }

    // MARK: Sessions (S6, S8, S12)

    /// Keeps sessions and saved state in `store` from now on; call it before launching guests.
    public func useStore(_ store: any SessionStore) {
        assertOnHostQueue()
        sessions.use(store)
    }

    /// X5: tells the guest's runtime which of its connected scenes' last save could not be
    /// stored, so that the next `save_scene_state` of one returns APPHOST_ERROR_INTERNAL, and
    /// which work again. A stopped guest hears it when it resumes.
    func tellSaveStatus(_ guest: GuestRecord) {
        for call in sessions.saveStatusChanges(of: guest) { deliver(guest, call) }
    }

    // MARK: Foreground

    /// Shows `scene` of `guest` full screen, or the primary scene it showed last; the scenes
    /// shown before go to background (S3), except slide over and picture in picture.
    func bringToForeground(_ guest: GuestRecord, scene: Int? = nil, reason: TransitionReason) {
        let primary = guest.scenes.indices.filter { guest.scenes[$0].role == .primary }
        guard
            let index = scene ?? primary.max(by: { guest.scenes[$0].backgroundSince < guest.scenes[$1].backgroundSince }
            )
                ?? guest.scenes.indices.first
        else { return }
        let shown = SceneRef(guest: guest.id, session: guest.scenes[index].sessionID)
        var next = layout.removing(shown)
        next.main = .fullScreen(shown)
        next.prominent = nil
        arrange(next, reason: reason)
    }

    // MARK: Scene transitions

    /// Moves one scene to `target` through the callbacks the contract orders (S2 to S5).
    func move(_ guest: GuestRecord, scene index: Int, to target: SceneState, reason: TransitionReason) {
        let started = guest.scenes[index].state
        defer {
            if started != .background, target == .background {
                guest.scenes[index].backgroundSince = clock.uptime()
                disconnectScenesOverLimit()
            }
        }
        while guest.scenes[index].state != target {
            let current = guest.scenes[index].state
            let before = guest.appState
            switch (current, target) {
            case (.unattached, _):
                connect(
                    guest, scene: index, into: target == .background ? .background : .foregroundInactive, reason: reason
                )
            case (.background, _):
                step(guest, scene: index, to: .foregroundInactive, callback: .willEnterForeground, reason: reason)
            case (.foregroundInactive, .foregroundActive):
                step(guest, scene: index, to: .foregroundActive, callback: .didBecomeActive, reason: reason)
            case (.foregroundInactive, _):
                step(guest, scene: index, to: .background, callback: .didEnterBackground, reason: reason)
            case (.foregroundActive, _):
                step(guest, scene: index, to: .foregroundInactive, callback: .willResignActive, reason: reason)
            }
            noteAppState(guest, from: before, reason: reason)
        }
    }

    /// S2: will-connect with the session's saved state. A foreground connection then goes on
    /// through will-enter-foreground; a background one is done.
    private func connect(_ guest: GuestRecord, scene index: Int, into initial: SceneState, reason: TransitionReason) {
        let handle = nextHandle
        nextHandle += 1
        guest.scenes[index].handle = handle
        guest.scenes[index].sizeSent = nil
        // A connection's runtime starts with its saves taken to work.
        guest.scenes[index].saveFailureTold = false
        let session = guest.scenes[index]
        let connection = SceneConnection(
            scene: handle, sessionID: session.sessionID, role: session.role, initialState: initial,
            restorationData: session.savedState)
        if initial == .background {
            setSceneState(guest, scene: index, to: .background, reason: reason)
            deliver(guest, .sceneWillConnect(connection), sceneState: .background)
            tellSaveStatus(guest)
        } else {
            deliver(guest, .sceneWillConnect(connection), sceneState: .unattached)
            tellSaveStatus(guest)
            step(guest, scene: index, to: .foregroundInactive, callback: .willEnterForeground, reason: reason)
        }
    }

    private func step(
        _ guest: GuestRecord, scene index: Int, to state: SceneState, callback: SceneCallback, reason: TransitionReason
    ) {
        let before = guest.appState
        setSceneState(guest, scene: index, to: state, reason: reason)
        // B2: the budget starts as the guest enters background and is reset as it leaves, each
        // told to the guest before the callback that makes the change.
        if guest.phase == .running, !guest.stopped, !guest.background.workEnded {
            if before != .background, guest.appState == .background { enteredBackground(guest) }
            if before == .background, guest.appState != .background { leftBackground(guest) }
        }
        guard let handle = guest.scenes[index].handle else { return }
        // S11: a scene learns its size before it enters the foreground.
        if callback == .willEnterForeground { tellSize(guest, scene: index) }
        deliver(guest, .scene(handle, callback), sceneState: state)
    }

    func setSceneState(_ guest: GuestRecord, scene index: Int, to state: SceneState, reason: TransitionReason) {
        let from = guest.scenes[index].state
        guest.scenes[index].state = state
        if state == .unattached {
            guest.scenes[index].loading = .none
            guest.scenes[index].modals = []
        }
        record(
            .sceneState, guest: guest.id, scene: guest.scenes[index].handle, session: guest.scenes[index].sessionID,
            from: from.description, to: state.description, reason: reason)
    }

    func noteAppState(_ guest: GuestRecord, from before: AppState, reason: TransitionReason) {
        let after = guest.appState
        guard after != before else { return }
        guest.lastReason = reason
        guest.lastTransition = clock.now()
        record(.appState, guest: guest.id, from: before.description, to: after.description, reason: reason)
    }

    // MARK: Channel

    func deliver(
        _ guest: GuestRecord, _ call: GuestCall, sceneState: SceneState? = nil,
        reply: (@Sendable (GuestReply) -> Void)? = nil
    ) {
        guard let channel = guest.channel else {
            reply?(.failure(.closed))
            return
        }
        let (message, answer) = prepare(guest, call, channel: channel, sceneState: sceneState, reply: reply)
        channel.send(message, reply: answer)
    }

    /// Delivers several calls to `guest` at once, in order: one write to a worker, not one each.
    func deliver(_ guest: GuestRecord, all calls: [GuestCall]) {
        guard let channel = guest.channel, !calls.isEmpty else { return }
        channel.send(
            all: calls.map { prepare(guest, $0, channel: channel, sceneState: nil, reply: nil) })
    }

    /// Records a call and watches it (B5); returns the message and the reply that settles it.
    private func prepare(
        _ guest: GuestRecord, _ call: GuestCall, channel: any GuestChannel, sceneState: SceneState?,
        reply: (@Sendable (GuestReply) -> Void)?
    ) -> (GuestMessage, @Sendable (GuestReply) -> Void) {
        if call.runsGuestCode { record(.callback, guest: guest.id, scene: call.scene, name: call.callbackName) }
        let message = GuestMessage(call: call, appState: guest.appState, sceneState: sceneState)
        watchdog.sent(call.callbackName, to: guest, channel: channel)
        return (
            message,
            { [weak self] result in
                if guest.channel === channel, let self, guest.calls.current != nil,
                    !self.watchdog.answered(by: guest, channel: channel)
                {
                    self.considerAutoSuspension(guest)
                }
                if case .failure(.crashed(let cause)) = result {
                    self?.crashed(guest, channel: channel, cause: cause, during: call.callbackName)
                }
                reply?(result)
            }
        )
    }

    /// X2: a guest that died is reported with its cause and the callback it was in; its scenes
    /// become unattached and keep their saved state.
    private func crashed(_ guest: GuestRecord, channel: any GuestChannel, cause: String, during callback: String?) {
        guard guest.channel === channel else { return }
        // A3, X2: one that dies or hangs on its way out is terminated all the same; the
        // termination says where and of what (after will_terminate answered: in deinit).
        guard guest.phase != .terminating else {
            if guest.terminationTrouble == nil {
                guest.terminationTrouble = "it failed in \(callback ?? "deinit"): \(cause)"
            }
            return
        }
        let reason: TransitionReason = guest.calls.killedByWatchdog ? .watchdog : .crash
        let place = callback.map { "in \($0)" } ?? "outside any callback"
        let what = guest.calls.killedByWatchdog ? "killed by the watchdog" : "crashed"
        record(.error, guest: guest.id, reason: reason, message: "\(what) \(place): \(cause)")
        guest.restartHistory.crashedInForeground = layout.mainScenes.contains { $0.guest == guest.id }
        unloaded(guest, channel: channel, reason: reason) { [weak self] in self?.restarter.restartIfAllowed(guest) }
    }

    private func handle(_ event: GuestEvent, from route: GuestEventRoute) {
        let name = route.id ?? route.identifiedAs ?? route.path
        switch event {
        case .identified(let id):
            route.identifiedAs = id
        case .log(let level, let message):
            record(.log, guest: name, level: level, message: message)
        case .died(let cause):
            guard let guest = route.id.flatMap(self.guest), let channel = guest.channel, channel === route.channel
            else {
                return
            }
            crashed(guest, channel: channel, cause: cause, during: guest.calls.current)
        case .saveSceneState(let handle, let data):
            guard let guest = route.id.flatMap(self.guest) else { return }
            sessions.sceneSaved(data, scene: handle, of: guest)
        case .taskBegan, .taskEnded, .timerScheduled, .timerCancelled, .workSubmitted:
            guard route.id != nil else { return route.early.append(event) }
            guard let guest = route.id.flatMap(self.guest), let channel = guest.channel, channel === route.channel
            else {
                return
            }
            handleBackground(event, from: guest, channel: channel)
        case .sceneRequested, .sessionActivationRequested, .loadingProgress, .modalPresented, .modalDismissed,
            .notificationPosted, .sessionCloseRequested:
            guard let guest = route.id.flatMap(self.guest), let channel = guest.channel, channel === route.channel
            else {
                return
            }
            handleScenes(event, from: guest)
        }
    }

    // MARK: Helpers

    func guest(_ id: String) -> GuestRecord? { guests.first { $0.id == id } }

    /// The guest `id` and its channel, if it runs; else why a command cannot act on it.
    func running(_ id: String) -> Result<(GuestRecord, any GuestChannel), HostCommandError> {
        guard let guest = guest(id) else { return .failure(unknownGuest(id)) }
        guard guest.phase == .running, let channel = guest.channel else {
            return .failure(HostCommandError("\(id) is not running (\(guest.phase.rawValue))"))
        }
        return .success((guest, channel))
    }

    func gone(_ id: String) -> HostCommandError {
        HostCommandError("\(id) stopped running meanwhile")
    }

    private func unknownGuest(_ id: String) -> HostCommandError {
        let known = guests.map(\.id).joined(separator: ", ")
        return HostCommandError("no guest \(id)" + (known.isEmpty ? "" : " (loaded: \(known))"))
    }

    func record(
        _ kind: HostEvent.Kind, guest: String? = nil, scene: SceneHandle? = nil, session: String? = nil,
        from: String? = nil, to: String? = nil, reason: TransitionReason? = nil, name: String? = nil,
        level: GuestLogLevel? = nil, message: String? = nil
    ) {
        log.record(
            kind, guest: guest, scene: scene, session: session, from: from, to: to, reason: reason, name: name,
            level: level, message: message)
    }

    func assertOnHostQueue() {
        hostQueue.preconditionCurrent()
    }
}

/// Routes what a guest sends to its record; the guest's id is known only once it has loaded.
private final class GuestEventRoute: @unchecked Sendable {
    // Written and read on the host queue only.
    let path: String
    var id: String?
    /// The id the opener read from the descriptor, before the launch (and `id`) is settled: it
    /// names what the guest sends from init.
    var identifiedAs: String?
    /// The channel of the launch this route serves: a late word from an earlier one is ignored.
    weak var channel: (any GuestChannel)?
    /// Background requests that arrived before the channel opened (a guest thread may make them
    /// right after init), handled once it has.
    var early: [GuestEvent] = []
    init(path: String) { self.path = path }
}

/// Runs `then` after `tick` has been called `count` times. Host queue only.
private final class Countdown: @unchecked Sendable {
    private var remaining: Int
    private let then: @Sendable () -> Void
    init(_ count: Int, then: @escaping @Sendable () -> Void) {
        remaining = count
        self.then = then
    }
    func tick() {
        remaining -= 1
        if remaining == 0 { then() }
    }
}

/// Names of C status codes, as `apphost_status_name` gives them, for messages about guests.
public enum StatusName {
    public static func of(_ status: Int32) -> String { String(cString: apphost_status_name(status)) }
}
