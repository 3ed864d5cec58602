import ApphostModel
import ApphostVocabulary
import Foundation

/// The host's lifecycle policy: app states (A1 to A3, A5), scene states and callback orders (S1 to
/// S5), which guest is in the foreground, and host alerts. It reaches guests only through
/// `GuestChannel`, so it runs the same with in-process guests, worker processes or test fakes.
///
/// It coordinates parts that own their state and say what should happen as values, which it
/// carries out: a guest's life (`GuestLifecycle`), the guests and their names (`GuestDirectory`),
/// sessions and the store (`SessionKeeper`), the watchdog (`Watchdog`), restarts (`Restarter`),
/// background work (`BackgroundScheduler`), audio (`AudioSessions`), memory (`MemoryWatch`),
/// actions (`ActionCalls`) and the scenes' parts. The extensions beside it route to them.
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
    /// Stops guests stuck in a callback (B5).
    var watchdog: Watchdog
    /// Relaunches crashed guests under the restart policy (X2).
    let restarter: Restarter
    /// Background tasks, budgets, timers and automatic suspension (B1 to B9).
    var background: BackgroundScheduler
    /// How many scenes may stay connected in background, over all guests (S6).
    let sceneLimit: SceneLimit
    /// The host's memory readings against its limit (A4).
    var memory: MemoryWatch
    /// Operators' calls of guests' actions and the results guests reported (F1 to F3), and the
    /// completions of those calls.
    var actions: ActionCalls
    var actionAnswers = ActionAnswers()

    /// The guests, by id and in the order they were first loaded, and how operators name them.
    var directory = GuestDirectory()
    var guests: [GuestRecord] { directory.all }
    /// The scenes shown and where (S11), and the host alert (S4).
    var arrangement: Arrangement
    var layout: Layout { arrangement.layout }
    /// Audio sessions, routes, streams and meters (C1 to C15, B9, X7).
    var audioSessions: AudioSessions
    /// The clock's handles of the parts' timers, by their tokens (`arm`).
    var alarms = Alarms<AnyHashable>()
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
        guard let guest = guest(id) else { return completion(.failure(directory.unknown(id))) }
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
            guard !guest.changingSuspension else { return completion(.failure(GuestDirectory.changingSuspension(id))) }
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
        guard let (guest, _) = directory.running(id).value(orFail: completion) else { return }
        guard guest.mayOpenScene else { return completion(.failure(HostCommandError(GuestRecord.singleScene(id)))) }
        guard !guest.changingSuspension else { return completion(.failure(GuestDirectory.changingSuspension(id))) }
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
        guard let (guest, channel) = directory.running(id).value(orFail: completion) else { return }
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
        guard let guest = guest(id) else { return completion(.failure(directory.unknown(id))) }
        guard guest.phase == .running, guest.suspended, !guest.changingSuspension, let channel = guest.channel else {
            return completion(.failure(HostCommandError("\(id) is not suspended")))
        }
        changeSuspension(guest, channel: channel, to: false, reason: reason, completion: completion)
    }

    /// Asks the channel to stop or restart the guest, and reports the guest suspended or resumed
    /// only once the channel confirms it (`GuestLifecycle.settled`).
    func changeSuspension(
        _ guest: GuestRecord, channel: any GuestChannel, to suspended: Bool, reason: TransitionReason,
        completion: @escaping @Sendable (Result<Void, HostCommandError>) -> Void
    ) {
        GuestLifecycle.changing(guest, suspending: suspended)
        let confirmed: @Sendable (Result<Void, ChannelFailure>) -> Void = { [weak self] result in
            guard let self, guest.channel === channel else {
                return completion(.failure(self == nil ? HostCommandError("host gone") : GuestDirectory.gone(guest.id)))
            }
            let now = self.clock.now()
            self.perform(
                GuestLifecycle.settled(guest, suspending: suspended, result, reason: reason, at: now), for: guest)
            completion(
                result.mapError { HostCommandError("cannot \(suspended ? "suspend" : "resume") \(guest.id): \($0)") })
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
        guard let (guest, channel) = directory.running(id, settled: true).value(orFail: completion) else { return }
        // A3: a running guest hears will-terminate; a suspended one is terminated without a callback.
        if !guest.suspended {
            endBackgroundWork(guest)
            arrange(layout.keeping { $0.guest != id }, reason: reason)
            deliver(guest, .willTerminate, sceneState: nil)
        }
        GuestLifecycle.terminating(guest)
        channel.close { [weak self] in
            self?.unloaded(guest, channel: channel, reason: reason) { completion(.success($0)) }
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
            of: guests, arrangement: arrangement, reports: reports, restarter: restarter, background: background,
            audio: audioSessions, meters: audioMixer?.meters(), now: clock.uptime())
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

    func guest(_ id: String) -> GuestRecord? { directory[id] }

    /// The id of the guest an operator named: its full id, or its descriptor name in any case.
    public func guestID(named name: String) throws(HostCommandError) -> String {
        assertOnHostQueue()
        return try directory.id(named: name)
    }

    /// A scene by its session id, a unique prefix of one, or its connection's handle
    /// (`GuestDirectory.scene(named:)`); or nil after failing `completion` with why not.
    func findScene(_ name: String) -> Result<(GuestRecord, Int), HostCommandError> { directory.scene(named: name) }
    func findScene<T>(_ name: String, else completion: (Result<T, HostCommandError>) -> Void) -> (GuestRecord, Int)? {
        directory.scene(named: name).value(orFail: completion)
    }

    /// The guest `id` and its channel, if it runs; else why a command cannot act on it.
    func running(_ id: String) -> Result<(GuestRecord, any GuestChannel), HostCommandError> { directory.running(id) }

    func record(
        _ kind: HostEvent.Kind, guest: String? = nil, scene: SceneHandle? = nil, session: String? = nil,
        from: String? = nil, to: String? = nil, reason: TransitionReason? = nil, name: String? = nil,
        level: GuestLogLevel? = nil, message: String? = nil
    ) {
        log.record(
            kind, guest: guest, scene: scene, session: session, from: from, to: to, reason: reason, name: name,
            level: level, message: message)
    }

    /// Arms a part's timer `token` on the clock; when it falls due, not cancelled, `fire` runs in
    /// the clock's own call (a Dispatch timer of the host queue's, or the manual clock's turn),
    /// with no further hop, so that a budget ends on time. For `guest`: only while it still runs
    /// on the channel it has now, and nothing is armed while it has none.
    func arm<Token: Hashable & Sendable>(
        _ token: Token, after delay: Duration, for guest: GuestRecord? = nil,
        _ fire: @escaping @Sendable (HostCore) -> Void
    ) {
        let channel = guest?.channel
        guard guest == nil || channel != nil else { return }
        let action = clock.schedule(after: delay) { [weak self] in
            guard let self, self.alarms.fell(token), guest?.channel === channel else { return }
            fire(self)
        }
        alarms.arm(token, action)
    }

    func assertOnHostQueue() {
        hostQueue.preconditionCurrent()
    }
}
