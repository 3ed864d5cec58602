import ApphostControl
import ApphostExecutors
import ApphostModel
import ApphostPolicy
import ApphostStore
import ApphostVersion
import ApphostVocabulary
import Dispatch
import Foundation
import Logging
import Synchronization

/// A running host: the lifecycle core on its host queue, the data directory it owns, the
/// control socket and the event fan-out. `apphost launch` is a thin shell around it.
///
/// Mutable state is confined to `hostQueue`, like the `HostCore` it drives.
public final class HostService: @unchecked Sendable {
    public let dataDirectory: DataDirectory
    private let hostQueue: any HostExecutor
    /// Where replies that take long to make are made (`awayFromHostQueue`), one at a time.
    private let replies = DispatchQueue(label: "apphost.replies")
    private let events: EventFanOut
    private let logger: Logger
    /// The policy core; control commands drive it, on the host queue.
    public let core: HostCore

    private var lock: HostLock?
    private var server: ControlServer?
    private var shuttingDown = false
    /// The control server has stopped: its connections are closed and nobody waits for replies.
    private var stopped = false
    /// Launches, switches, suspensions and terminations under way; shutdown waits for them so that no guest
    /// comes up after it has terminated the others.
    private var operationsInFlight = 0
    private var whenIdle: [() -> Void] = []
    /// Reads the host's memory for its limit (A4), while it runs with one.
    private let memoryLimit: UInt64?
    private var memoryTimer: (any DispatchSourceTimer)?
    /// How many event lines the printer of the events dropped, for `ctl ps`.
    private let droppedEventLines: (@Sendable () -> Int)?
    /// This host's metrics (O2), counted from its events and its control requests.
    public let metrics: HostMetrics
    private let identityState = Mutex<HostIdentity?>(nil)
    /// When this run began: its identity's start, and the run its event positions name.
    private let started: Date
    /// Who the host is (CONTRACT O4), once ``start()`` has read or made its id.
    public var identity: HostIdentity? { identityState.withLock { $0 } }
    private let metricsSubscription: EventSubscription
    private let opener: any GuestOpener

    public init(
        dataDirectory: DataDirectory, opener: any GuestOpener, restartPolicy: RestartPolicy = .never,
        watchdog: WatchdogPolicy = WatchdogPolicy(), background: BackgroundPolicy = BackgroundPolicy(),
        memoryLimit: UInt64? = nil, backgroundSceneLimit: Int? = nil, scenes: ScenePolicy = ScenePolicy(),
        audio: AudioPolicy = AudioPolicy(), audioMixer: (any AudioMixer)? = nil,
        droppedEventLines: (@Sendable () -> Int)? = nil,
        hostQueue: any HostExecutor = DispatchQueue(label: "apphost.host"),
        logger: Logger
    ) {
        self.memoryLimit = memoryLimit
        self.droppedEventLines = droppedEventLines
        self.opener = opener
        // This run of the host: its start, which its event positions carry (EventPosition).
        let started = Date()
        self.started = started
        let events = EventFanOut(run: EventPosition.run(startedAt: started))
        self.dataDirectory = dataDirectory
        self.logger = logger
        self.hostQueue = hostQueue
        self.events = events
        let metrics = HostMetrics()
        self.metrics = metrics
        metricsSubscription = events.subscribe { metrics.observe($0) }
        opener.reportWorkerExits { guest, pid, cpuSeconds in
            metrics.workerExited(guest: guest, pid: pid, cpuSeconds: cpuSeconds)
        }
        core = HostCore(
            opener: opener, clock: DispatchHostClock(executor: hostQueue), hostQueue: hostQueue,
            sessionIDs: RandomSessionIDs(),
            guestsDirectory: dataDirectory.guestsPath, restartPolicy: restartPolicy, watchdog: watchdog,
            background: background, memoryLimit: memoryLimit, backgroundSceneLimit: backgroundSceneLimit,
            scenes: scenes, audio: audio, audioMixer: audioMixer,
            measure: { metrics.measured($0) }, emit: { events.publish($0) })
    }

    /// Takes the data directory for this host (creating it and locking it) and opens the control
    /// socket. Throws a one-line error when another host holds the directory.
    public func start() throws(HostServiceError) {
        try dataDirectory.checkSocketPathLength()
        try dataDirectory.create()
        let lock = try HostLock.acquire(path: dataDirectory.lockPath, dataDirectory: dataDirectory.path)
        let hostID: String
        do throws(HostServiceError) {
            hostID = try dataDirectory.hostID()
        } catch {
            lock.release()
            throw error
        }
        let identity = HostIdentity(
            id: hostID, hostname: ProcessInfo.processInfo.hostName, version: APPHOST_VERSION, started: started)
        // The lock is ours: what a killed host left in the guests' directories is put right
        // (their users, CONTRACT X2) before any guest opens.
        opener.prepare(guestsDirectory: dataDirectory.guestsPath)
        let server: ControlServer
        let store: SQLiteSessionStore
        do {
            // Only the lock holder opens the database, so one host writes it at a time. The store
            // makes its files private (0600): the workers of a root host may search the data
            // directory, to reach their own directories below it (CONTRACT X2).
            do throws(StoreError) {
                store = try SQLiteSessionStore(path: dataDirectory.sessionsPath)
            } catch {
                throw HostServiceError("cannot open the sessions database: \(error)")
            }
            try removeStaleSocket()
            server = try ControlServer.start(socketPath: dataDirectory.socketPath, responder: self)
        } catch let error as HostServiceError {
            lock.release()
            throw error
        } catch {
            lock.release()
            throw HostServiceError("\(error)")
        }
        logger.info("listening", metadata: ["socket": "\(server.socketPath)", "pid": "\(getpid())"])
        hostQueue.executeAndWait {
            // The run's first event: who the host is (CONTRACT O4).
            identityState.withLock { $0 = identity }
            metrics.recordIdentity(identity)
            events.publish(HostEvent(time: identity.started, kind: .hostStarted, host: identity))
            // Loudly: on stderr (an error when saves were lost) and in the event stream.
            for notice in store.notices {
                // `event`: a journal that has the event's entry needs no other (HostOutput).
                logger.log(
                    level: notice.lostSaves ? .error : .warning, "\(notice.description)",
                    metadata: ["event": "\(HostEvent.Kind.storeRecovered.rawValue)"])
                events.publish(
                    HostEvent(
                        time: Date(), kind: .storeRecovered, name: notice.lostSaves ? HostEvent.savesLost : nil,
                        message: notice.description))
            }
            core.useStore(store)
            self.lock = lock
            self.server = server
            if memoryLimit != nil { startMemoryReadings() }
        }
    }

    /// Feeds the service manager's watchdog (CONTRACT O3) from the host queue, so that a host
    /// whose queue is stuck stops feeding it and is restarted; nothing when `notifier` has no
    /// watchdog to feed.
    public func feedWatchdog(_ notifier: ServiceNotifier) {
        notifier.startWatchdog(on: hostQueue)
    }

    /// Reads the host's memory every half second, off the host queue, and hands each reading to
    /// the core's pressure policy (A4). Reading /proc takes some 200 us a worker, so that with
    /// thousands a reading every half second kept a core busy (88% with 2,000): the next reading
    /// waits at least twenty times as long as the last took, at most 5% of a core.
    private func startMemoryReadings() {
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue.global(qos: .utility))
        timer.schedule(deadline: .now() + .milliseconds(500))
        // The handler holds the timer until it is cancelled, which releases the handler.
        timer.setEventHandler { [weak self, timer, hostQueue] in
            let start = DispatchTime.now()
            let bytes = MemoryGauge.hostAndWorkersBytes()
            let took = DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds
            timer.schedule(deadline: .now() + .nanoseconds(Int(max(500_000_000, 20 * took))))
            hostQueue.execute { [weak self] in
                guard let self, !self.stopped else { return }
                self.core.memory.take(.usage(bytes: bytes))
            }
        }
        timer.activate()
        memoryTimer = timer
    }

    /// Only the lock holder may call this: a socket file left here belongs to a host that died.
    private func removeStaleSocket() throws(HostServiceError) {
        let path = dataDirectory.socketPath
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        guard info.st_mode & S_IFMT == S_IFSOCK else {
            throw HostServiceError("\(path) exists and is not a socket; move it away")
        }
        logger.debug("removing stale socket", metadata: ["socket": "\(path)"])
        unlink(path)
    }

    /// Calls `handler` with every host event from now on, on the host queue; it must not block.
    public func subscribe(_ handler: @escaping @Sendable (HostEvent) -> Void) -> EventSubscription {
        events.subscribe(handler)
    }

    /// Loads and launches the guests one after another: the first that launches goes to the
    /// foreground, the others connect into background (S2). A guest that fails is reported
    /// through `onOutcome` and the others go on (X1). `completion` gets how many launched.
    public func launch(
        paths: [String],
        onOutcome: @escaping @Sendable (_ path: String, Result<GuestDescriptor, HostCommandError>) -> Void,
        completion: @escaping @Sendable (_ launched: Int) -> Void
    ) {
        hostQueue.execute {
            self.begin()
            self.launchNext(paths[...], launched: 0, onOutcome: onOutcome) { launched in
                completion(launched)
                self.end()
            }
        }
    }

    private func launchNext(
        _ paths: ArraySlice<String>, launched: Int,
        onOutcome: @escaping @Sendable (String, Result<GuestDescriptor, HostCommandError>) -> Void,
        completion: @escaping @Sendable (Int) -> Void
    ) {
        guard let path = paths.first, !shuttingDown else { return completion(launched) }
        core.launch(path: path, foreground: launched == 0) { result in
            onOutcome(path, result)
            let succeeded = if case .success = result { 1 } else { 0 }
            self.launchNext(
                paths.dropFirst(), launched: launched + succeeded, onOutcome: onOutcome, completion: completion)
        }
    }

    /// Terminates every guest gracefully (A3, reason shutdown) once the operations under way
    /// have finished, then closes the control socket and releases the data directory.
    /// `completion` runs on the host queue; later calls are ignored.
    public func shutdown(completion: @escaping @Sendable () -> Void) {
        hostQueue.execute {
            guard !self.shuttingDown else { return }
            self.shuttingDown = true
            self.logger.info("shutting down")
            self.afterOperations {
                self.core.shutdown {
                    self.stopServing()
                    completion()
                }
            }
        }
    }

    private func stopServing() {
        // The socket goes while the lock is still held, so that no other host's socket is removed.
        memoryTimer?.cancel()
        memoryTimer = nil
        server?.stop(removingSocket: true)
        server = nil
        stopped = true
        lock?.release()
        lock = nil
    }

    // MARK: Operations under way

    private func begin() { operationsInFlight += 1 }

    private func end() {
        operationsInFlight -= 1
        guard operationsInFlight == 0 else { return }
        let waiting = whenIdle
        whenIdle = []
        for action in waiting { action() }
    }

    private func afterOperations(_ action: @escaping () -> Void) {
        if operationsInFlight == 0 { action() } else { whenIdle.append(action) }
    }
}

extension HostService: ControlResponder, ControlTarget {
    public func respond(to command: any ControlCommand, reply: @escaping @Sendable (String) -> Void) {
        hostQueue.execute {
            // Once the control socket is closed only the HTTP API may still ask, until it stops too.
            guard !self.stopped else { return reply(ControlReply.shuttingDown.line) }
            self.logger.debug("control request", metadata: ["request": "\(command.line)"])
            let verb = type(of: command).name
            self.perform(command) { [metrics = self.metrics] line in
                metrics.controlRequest(verb: verb, succeeded: ControlReply.succeeded(line))
                reply(line)
            }
        }
    }

    public func follow(
        from start: EventStart, filter: EventFilter, live: Bool, _ handler: @escaping @Sendable (FollowedEvent) -> Void
    ) -> EventSubscription {
        metrics.controlRequest(verb: EventsCommand.name, succeeded: true)
        return events.follow(from: start, filter: filter, live: live, handler)
    }

    private func perform(_ command: any ControlCommand, reply: @escaping @Sendable (String) -> Void) {
        guard !shuttingDown || type(of: command).answeredDuringShutdown else {
            return reply(ControlReply.shuttingDown.line)
        }
        command.respond(on: self, reply: reply)
    }

    // MARK: What control commands use (ControlTarget)

    /// The host's status for `ps`, with what the event printer dropped.
    public func controlStatus() -> HostStatus {
        var status = core.status()
        status.host = identity
        if let dropped = droppedEventLines?(), dropped > 0 { status.droppedEventLines = dropped }
        return status
    }

    /// The metrics' text exposition, with the levels (guests by state, each worker's cost) read
    /// from the core's status as it is now.
    public func controlMetrics(_ reply: @escaping @Sendable (String) -> Void) {
        let status = core.status()
        let dropped = droppedEventLines?() ?? 0
        awayFromHostQueue { [metrics] in reply(metrics.exposition(status: status, droppedEventLines: dropped)) }
    }

    public func awayFromHostQueue(_ body: @escaping @Sendable () -> Void) {
        replies.async(execute: body)
    }

    /// Runs an operation that shutdown waits for (a launch, a switch, a termination ...): `body`
    /// calls `done` once, when the operation has finished.
    public func operation(_ body: (_ done: @escaping @Sendable () -> Void) -> Void) {
        begin()
        body { self.end() }
    }
}
