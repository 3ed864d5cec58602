import ApphostModel
import ApphostVocabulary
import Foundation

/// The host's policy, coordinated: it carries out guests' lives (A1 to A3, B7, X2, as
/// `GuestLifecycle` says), routes what guests report to the part it concerns, and wires the
/// parts' runners, each the owner of a part that decides as values: scenes (`SceneRunner`),
/// background work, audio, memory, actions and restarts. Every runner reaches guests through the
/// one `GuestOutbox`, and asks the core for changes of a guest's life (`LifecycleOrders`). It
/// reaches guests only through `GuestChannel`: in-process guests, workers and test fakes alike.
///
/// Confined to `hostQueue`: call every method there, the runners' too. Completions run there.
public final class HostCore: SessionKeeperDelegate, LifecycleOrders, @unchecked Sendable {
    private let opener: any GuestOpener
    let clock: any HostClock
    let hostQueue: any HostExecutor
    private let guestsDirectory: String
    /// Where what happens is recorded, for the host's event stream.
    let log: HostEventLog
    /// Sessions and what they saved, in the store (S6 to S8, S12, X5).
    let sessions: SessionKeeper
    /// Relaunches crashed guests under the restart policy (X2).
    let restarts: RestartRunner
    /// The one way to a guest: calls watched (B5) and measured, and the parts' timers.
    let outbox: GuestOutbox
    /// The parts that run themselves through the outbox: scenes (S1 to S13, N1 to N3), background
    /// work (B1 to B9), audio (C1 to C15, B9, X7), memory (A4), actions (F1 to F3) and what
    /// containers refused (X6).
    public let scenes: SceneRunner
    let background: BackgroundRunner
    public let audio: AudioRunner
    public let memory: MemoryRunner
    public let actions: ActionRunner
    let sandbox: SandboxRunner

    /// The guests, by id and in the order they were first loaded, and how operators name them.
    var directory = GuestDirectory()
    var guests: [GuestRecord] { directory.all }

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
        let log = HostEventLog(clock: clock, emit: emit)
        let outbox = GuestOutbox(clock: clock, log: log, watchdog: watchdog, measure: measure)
        (self.log, self.outbox, self.opener, self.clock, self.hostQueue) = (log, outbox, opener, clock, hostQueue)
        self.guestsDirectory = guestsDirectory
        let background = BackgroundRunner(policy: background, outbox: outbox, log: log, clock: clock)
        let sessions = SessionKeeper(
            store: store, clock: clock, hostQueue: hostQueue, sessionIDs: sessionIDs, log: log)
        (self.background, self.sessions) = (background, sessions)
        self.scenes = SceneRunner(
            policy: scenes, backgroundLimit: backgroundSceneLimit, outbox: outbox, sessions: sessions,
            background: background, log: log, clock: clock, hostQueue: hostQueue)
        self.audio = AudioRunner(
            policy: audio, requests: audioRequests, mixer: audioMixer, outbox: outbox, log: log, clock: clock,
            hostQueue: hostQueue, measure: measure)
        memory = MemoryRunner(limit: memoryLimit, outbox: outbox, log: log, hostQueue: hostQueue)
        actions = ActionRunner(limit: watchdog.hardLimit, outbox: outbox, hostQueue: hostQueue)
        sandbox = SandboxRunner(log: log)
        restarts = RestartRunner(policy: restartPolicy, log: log, clock: clock, hostQueue: hostQueue)
        sessions.delegate = self
        outbox.delegate = self
        (background.lifecycle, self.audio.lifecycle, memory.lifecycle, actions.lifecycle) = (self, self, self, self)
        (self.scenes.lifecycle, restarts.lifecycle) = (self, self)
        memory.facts = { [weak self] in
            guard let self else { return [] }
            return self.guests.map { MemoryFacts($0, in: self.scenes.layout) }
        }
        background.playsAudio = { [weak audio = self.audio] in audio?.playsInBackground($0) ?? false }
        self.audio.playsInBackgroundChanged = { [weak background = self.background] in background?.audioChanged($0) }
    }

    // MARK: Commands

    /// Loads the guest at `path` and launches it (A2); with `foreground` its primary scene
    /// becomes foregroundActive (S2) and the previous foreground guest goes to background (S3),
    /// otherwise its scene connects straight into background.
    public func launch(
        path: String, foreground: Bool,
        completion: @escaping @Sendable (Result<GuestDescriptor, HostCommandError>) -> Void = { _ in }
    ) {
        hostQueue.preconditionCurrent()
        let route = GuestEventRoute(path: path)
        opener.open(
            path: path, guestsDirectory: guestsDirectory, hostQueue: hostQueue,
            onEvent: { [weak self] event in self?.handle(event, from: route) },
            completion: { [weak self] result in
                guard let self else { return }
                switch result {
                case .failure(let error):
                    self.log.record(.launchFailed, message: error.description)
                    completion(.failure(HostCommandError(error.description)))
                case .success(let opened):
                    // S7, S8: what the store holds of the guest is read first, so that no step waits for it.
                    let id = opened.descriptor.id
                    self.sessions.readForLaunch(of: id, restoring: self.guest(id) == nil) { [weak self] stored in
                        self?.launch(
                            opened, stored: stored, path: path, route: route, foreground: foreground,
                            completion: completion)
                    }
                }
            })
    }

    /// Brings `id` to the foreground (S3 on the old, S5 or S2 on the new), relaunching it if it
    /// is not running.
    public func switchTo(
        _ id: String, completion: @escaping @Sendable (Result<Void, HostCommandError>) -> Void = { _ in }
    ) {
        hostQueue.preconditionCurrent()
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
            scenes.bringToForeground(guest, reason: .requested)
            completion(.success(()))
        }
    }

    /// Suspends a running guest (B7): its foreground scenes go to background first (S3), then
    /// its channel stops it once those callbacks have returned. The guest is reported suspended
    /// only once the channel has confirmed it.
    public func suspend(
        _ id: String, reason: TransitionReason = .requested,
        completion: @escaping @Sendable (Result<Void, HostCommandError>) -> Void = { _ in }
    ) {
        hostQueue.preconditionCurrent()
        guard let (guest, channel) = directory.running(id).value(orFail: completion) else { return }
        guard !guest.suspended, !guest.changingSuspension else {
            return completion(.failure(HostCommandError("\(id) is already suspended")))
        }
        background.endWork(guest)
        scenes.hide(id, reason: reason)
        stopGuest(guest, channel: channel, reason: reason, completion: completion)
    }

    /// Lets a suspended guest run again; it comes back in background.
    public func resume(
        _ id: String, reason: TransitionReason = .requested,
        completion: @escaping @Sendable (Result<Void, HostCommandError>) -> Void = { _ in }
    ) {
        hostQueue.preconditionCurrent()
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

    /// Terminates a running guest: its foreground scenes go to background first (S3, so they
    /// save), then will-terminate (A3), then it is unloaded. Saved state survives. The success
    /// says how it went when it did not go well: a guest that crashed or hung in will_terminate
    /// or deinit is terminated all the same (X2), and the caller learns where and of what.
    public func terminate(
        _ id: String, reason: TransitionReason = .requested,
        completion: @escaping @Sendable (Result<String?, HostCommandError>) -> Void = { _ in }
    ) {
        hostQueue.preconditionCurrent()
        guard let (guest, channel) = directory.running(id, settled: true).value(orFail: completion) else { return }
        // A3: a running guest hears will-terminate; a suspended one is terminated without a callback.
        if !guest.suspended {
            background.endWork(guest)
            scenes.hide(id, reason: reason)
            outbox.deliver(guest, .willTerminate, sceneState: nil)
        }
        GuestLifecycle.terminating(guest)
        channel.close { [weak self] in
            self?.unloaded(guest, channel: channel, reason: reason) { completion(.success($0)) }
        }
    }

    /// Terminates every running guest gracefully (A3) with reason shutdown.
    public func shutdown(completion: @escaping @Sendable () -> Void) {
        hostQueue.preconditionCurrent()
        let running = guests.filter { $0.phase == .running }
        guard !running.isEmpty else { return completion() }
        let remaining = Countdown(running.count, then: completion)
        for guest in running {
            terminate(guest.id, reason: .shutdown) { _ in remaining.tick() }
        }
    }

    /// The state of every guest and scene, for operators.
    public func status() -> HostStatus {
        hostQueue.preconditionCurrent()
        return HostStatus(
            of: guests, arrangement: scenes.arrangement, reports: scenes.reports, restarter: restarts.restarter,
            background: background.scheduler, audio: audio.sessions, meters: audio.mixer?.meters(), sandbox: sandbox,
            now: clock.uptime())
    }

    // MARK: Sessions (S6, S8, S12)

    /// Keeps sessions and saved state in `store` from now on; call it before launching guests.
    public func useStore(_ store: any SessionStore) {
        hostQueue.preconditionCurrent()
        sessions.use(store)
    }

    /// X5: tells the guest's runtime which of its connected scenes' last save could not be
    /// stored, so that the next `save_scene_state` of one returns APPHOST_ERROR_INTERNAL, and
    /// which work again. A stopped guest hears it when it resumes.
    func tellSaveStatus(_ guest: GuestRecord) {
        for call in sessions.saveStatusChanges(of: guest) { outbox.deliver(guest, call) }
    }

    // MARK: Helpers

    func guest(_ id: String) -> GuestRecord? { directory[id] }

    /// The id of the guest an operator named: its full id, or its descriptor name in any case.
    public func guestID(named name: String) throws(HostCommandError) -> String {
        hostQueue.preconditionCurrent()
        return try directory.id(named: name)
    }

    func running(_ id: String) -> Result<(GuestRecord, any GuestChannel), HostCommandError> { directory.running(id) }

    func scene(named name: String) throws(HostCommandError) -> (GuestRecord, Int) {
        try directory.scene(named: name).get()
    }
}
