import ApphostModel
import ApphostVocabulary
import Foundation

/// The host's lifecycle policy: app states (A1 to A3, A5), scene states and callback orders (S1 to
/// S5), which guest is in the foreground, and host alerts. It reaches guests only through
/// `GuestChannel`, so it runs the same with in-process guests, worker processes or test fakes.
///
/// It coordinates parts that own their state: sessions and the store (`SessionKeeper`), the
/// watchdog (`Watchdog`), restarts (`Restarter`) and background work (`BackgroundScheduler`). The
/// extensions beside it hold the rest of the policy, one concern each: launch, channel,
/// transitions, layout, memory.
///
/// Confined to `hostQueue`: call every method there. Completions run there too.
public final class HostCore: SessionKeeperDelegate, @unchecked Sendable {
    private let opener: any GuestOpener
    let clock: any HostClock
    let hostQueue: any HostExecutor
    private let guestsDirectory: String
    /// Where what happens is recorded, for the host's event stream.
    let log: HostEventLog
    /// Where what the core measures goes, for the host's metrics (callbacks' round trips).
    let measure: @Sendable (HostMeasurement) -> Void
    /// Sessions and what they saved, in the store (S6 to S8, S12, X5).
    let sessions: SessionKeeper
    /// Stops guests stuck in a callback (B5), and the clock's handles of its timers.
    var watchdog: Watchdog
    var watchdogAlarms = Alarms<WatchdogToken>()
    /// Relaunches crashed guests under the restart policy (X2).
    let restarter: Restarter
    /// Background tasks, budgets, timers and automatic suspension (B1 to B9), and the clock's
    /// handles of its timers.
    var background: BackgroundScheduler
    var backgroundAlarms = Alarms<BackgroundToken>()
    /// How many scenes may stay connected in background, over all guests (S6).
    let sceneLimit: SceneLimit
    /// The host's memory readings against its limit (A4).
    var memory: MemoryWatch
    /// Operators' calls of guests' actions and the results guests reported (F1 to F3), and the
    /// completions and deadlines of those calls.
    var actions: ActionCalls
    var actionAnswers = ActionAnswers()

    /// Guests in the order they were first loaded; a record stays once made (`add`).
    private(set) var guests: [GuestRecord] = []
    /// The same records by id: with thousands of guests, finding one for each event by a scan of
    /// `guests` was the host queue's largest cost.
    private var guestsByID: [String: GuestRecord] = [:]
    /// The scenes shown and where (S11), and the host alert (S4).
    var arrangement: Arrangement
    var layout: Layout { arrangement.layout }
    /// Audio sessions, routes, streams and meters (C1 to C15, B9, X7), and the clock's handles of
    /// their timers.
    var audioSessions: AudioSessions
    var audioAlarms = Alarms<AudioToken>()
    /// Where sessions' sound is mixed (C13); nil for a host that mixes nothing (tests of policy).
    let audioMixer: (any AudioMixer)?
    /// The order of scene callbacks and the connections' handles (S1 to S5).
    var transitions = SceneTransitions()
    /// Scene requests, the activations that let them and notifications' rate (S9, S10, S13, N1).
    var requests: SceneRequests
    /// The sessions closed while their guest did not run (S7).
    var closing = SessionClosing()
    /// What guests report of their connected scenes: loading, modals, titles (N2, N3).
    var reports = SceneReports()

    /// The guest filling the display, or else the first one shown.
    var foregroundID: String? { arrangement.foregroundID }

    public init(
        opener: any GuestOpener, clock: any HostClock, hostQueue: any HostExecutor, sessionIDs: any SessionIDSource,
        guestsDirectory: String, restartPolicy: RestartPolicy = .never, watchdog: WatchdogPolicy = WatchdogPolicy(),
        background: BackgroundPolicy = BackgroundPolicy(), memoryLimit: UInt64? = nil,
        store: (any SessionStore)? = nil, backgroundSceneLimit: Int? = nil, scenes: ScenePolicy = ScenePolicy(),
        audio: AudioPolicy = AudioPolicy(), audioMixer: (any AudioMixer)? = nil,
        audioRequests: FloodPolicy = .audioRequests,
        measure: @escaping @Sendable (HostMeasurement) -> Void = { _ in },
        emit: @escaping @Sendable (HostEvent) -> Void
    ) {
        self.measure = measure
        requests = SceneRequests(policy: scenes)
        arrangement = Arrangement(policy: scenes)
        audioSessions = AudioSessions(policy: audio, requests: audioRequests, mixes: audioMixer != nil)
        self.audioMixer = audioMixer
        sceneLimit = SceneLimit(limit: backgroundSceneLimit)
        self.background = BackgroundScheduler(policy: background)
        memory = MemoryWatch(limit: memoryLimit)
        actions = ActionCalls(limit: watchdog.hardLimit)
        self.opener = opener
        self.clock = clock
        self.hostQueue = hostQueue
        self.guestsDirectory = guestsDirectory
        let log = HostEventLog(clock: clock, emit: emit)
        self.log = log
        sessions = SessionKeeper(store: store, clock: clock, hostQueue: hostQueue, sessionIDs: sessionIDs, log: log)
        self.watchdog = Watchdog(policy: watchdog)
        restarter = Restarter(policy: restartPolicy)
        sessions.delegate = self
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
        arrange(arrangement.home(), reason: .requested)
    }

    /// Shows a host alert over the foreground: foregroundActive scenes resign active only (S4).
    public func showAlert() throws(HostCommandError) {
        assertOnHostQueue()
        perform([try arrangement.alert(true)], reason: .requested)
        arrange(layout, reason: .requested)
    }

    /// Dismisses the alert: the covered scenes become active again, with no background trip (S4).
    public func dismissAlert() throws(HostCommandError) {
        assertOnHostQueue()
        perform([try arrangement.alert(false)], reason: .requested)
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
        let meters = audioMixer?.meters()
        return HostStatus(
            foreground: foregroundID, alert: arrangement.alertShown,
            guests: guests.map { guest in
                GuestStatus(
                    id: guest.id, name: guest.descriptor.name, version: guest.descriptor.version, path: guest.path,
                    appState: guest.appState, phase: guest.phase, lastReason: guest.lastReason,
                    since: guest.lastTransition,
                    scenes: guest.scenes.map {
                        let report = reports.report(of: SceneRef(guest: guest.id, session: $0.sessionID))
                        return SceneStatus(
                            handle: $0.handle, session: $0.sessionID, role: $0.role, state: $0.state,
                            savedBytes: $0.storedBytes, size: $0.size,
                            placement: layout.placement(of: SceneRef(guest: guest.id, session: $0.sessionID)),
                            title: report.title, loading: report.loading,
                            modals: report.modals.map { ModalStatus(id: $0.id, style: $0.style, title: $0.title) },
                            saveFailure: $0.saveFailure)
                    },
                    restart: restarter.status(of: guest.restartHistory),
                    backgroundTimeRemaining: guest.stopped
                        ? nil : background.timeRemaining(of: guest.id, at: clock.uptime())?.timeInterval,
                    tasks: background.tasks(of: guest.id).map {
                        TaskStatus(id: $0.id, name: $0.name, expired: $0.expired)
                    }, suspension: guest.suspendedFor.map { SuspensionStatus(since: $0.since, reason: $0.reason) },
                    pid: guest.channel?.processID,
                    audio: audioSessions.status(of: guest.id, running: guest.phase != .notRunning, meters: meters),
                    actions: guest.descriptor.actions)
            }, display: "\(arrangement.policy.displayWidth)x\(arrangement.policy.displayHeight)", layout: layout,
            audio: audioSessions.hostStatus(meters: meters))
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

    // MARK: Helpers

    func guest(_ id: String) -> GuestRecord? { guestsByID[id] }

    /// Keeps a guest's record from its first load on.
    func add(_ guest: GuestRecord) {
        guests.append(guest)
        guestsByID[guest.id] = guest
    }

    /// Guest ids for an error message: the first few, and how many more, so that a host of
    /// thousands of guests still answers in one short line.
    func loadedIDs() -> String {
        let shown = guests.prefix(5).map(\.id).joined(separator: ", ")
        return guests.count > 5 ? "\(shown) and \(guests.count - 5) more" : shown
    }

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
        let known = loadedIDs()
        return HostCommandError.notFound("no guest \(id)" + (known.isEmpty ? "" : " (loaded: \(known))"))
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
