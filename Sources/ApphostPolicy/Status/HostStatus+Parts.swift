import ApphostModel
import ApphostVocabulary

/// The state of every guest and scene, for operators (`ctl ps`, GET /v1/status), read from the
/// parts that own each piece of it: the scenes' places and the alert (`Arrangement`), what guests
/// report of their scenes (`SceneReports`), restarts (`Restarter`), budgets and tasks
/// (`BackgroundScheduler`), audio sessions (`AudioSessions`), the mixer's meters and what
/// containers refused (`SandboxRunner`). It reads
/// only: a status changes nothing. `now` is the host's uptime, for what is left of budgets.
extension HostStatus {
    init(
        of guests: [GuestRecord], arrangement: Arrangement, reports: SceneReports, restarter: Restarter,
        background: BackgroundScheduler, audio: AudioSessions, meters: AudioMeters?, sandbox: SandboxRunner? = nil,
        now: Duration
    ) {
        let policy = arrangement.policy
        self.init(
            foreground: arrangement.foregroundID, alert: arrangement.alertShown,
            guests: guests.map { guest in
                GuestStatus(
                    guest, restart: restarter.status(of: guest.restartHistory),
                    budget: guest.stopped ? nil : background.timeRemaining(of: guest.id, at: now),
                    tasks: background.tasks(of: guest.id),
                    audio: audio.status(of: guest.id, running: guest.phase != .notRunning, meters: meters),
                    scenes: guest.scenes.map { SceneStatus($0, of: guest.id, in: arrangement.layout, reports) },
                    sandbox: sandbox?.status(of: guest))
            }, display: "\(policy.displayWidth)x\(policy.displayHeight)", layout: arrangement.layout,
            audio: audio.hostStatus(meters: meters))
    }
}

extension GuestStatus {
    fileprivate init(
        _ guest: GuestRecord, restart: RestartStatus, budget: Duration?, tasks: [OpenTask], audio: AudioSessionStatus?,
        scenes: [SceneStatus], sandbox: SandboxStatus?
    ) {
        self.init(
            id: guest.id, name: guest.descriptor.name, version: guest.descriptor.version, path: guest.path,
            appState: guest.appState, phase: guest.phase, lastReason: guest.lastReason, since: guest.lastTransition,
            scenes: scenes, restart: restart, backgroundTimeRemaining: budget?.timeInterval,
            tasks: tasks.map { TaskStatus(id: $0.id, name: $0.name, expired: $0.expired) },
            suspension: guest.suspendedFor.map { SuspensionStatus(since: $0.since, reason: $0.reason) },
            pid: guest.channel?.processID, audio: audio, actions: guest.descriptor.actions, sandbox: sandbox)
    }
}

extension SceneStatus {
    fileprivate init(_ scene: SceneRecord, of guest: String, in layout: Layout, _ reports: SceneReports) {
        let ref = SceneRef(guest: guest, session: scene.sessionID)
        let report = reports.report(of: ref)
        self.init(
            handle: scene.handle, session: scene.sessionID, role: scene.role, state: scene.state,
            savedBytes: scene.storedBytes, size: scene.size, placement: layout.placement(of: ref),
            title: report.title, loading: report.loading,
            modals: report.modals.map { ModalStatus(id: $0.id, style: $0.style, title: $0.title) },
            saveFailure: scene.saveFailure)
    }
}
