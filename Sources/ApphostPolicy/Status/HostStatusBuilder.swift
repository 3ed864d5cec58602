import ApphostModel
import ApphostVocabulary

/// The state of every guest and scene, for operators (`ctl ps`, GET /v1/status), read from the
/// parts that own each piece of it: the scenes' places and the alert (`Arrangement`), what guests
/// report of their scenes (`SceneReports`), restarts (`Restarter`), budgets and tasks
/// (`BackgroundScheduler`), audio sessions (`AudioSessions`) and the mixer's meters. It reads
/// only: a status changes nothing.
struct HostStatusBuilder {
    let arrangement: Arrangement
    let reports: SceneReports
    let restarter: Restarter
    let background: BackgroundScheduler
    let audio: AudioSessions
    let meters: AudioMeters?
    /// Host uptime, for what is left of background budgets.
    let now: Duration

    func status(of guests: [GuestRecord]) -> HostStatus {
        let policy = arrangement.policy
        return HostStatus(
            foreground: arrangement.foregroundID, alert: arrangement.alertShown, guests: guests.map(status),
            display: "\(policy.displayWidth)x\(policy.displayHeight)", layout: arrangement.layout,
            audio: audio.hostStatus(meters: meters))
    }

    private func status(of guest: GuestRecord) -> GuestStatus {
        GuestStatus(
            id: guest.id, name: guest.descriptor.name, version: guest.descriptor.version, path: guest.path,
            appState: guest.appState, phase: guest.phase, lastReason: guest.lastReason, since: guest.lastTransition,
            scenes: guest.scenes.map { status(of: $0, of: guest.id) },
            restart: restarter.status(of: guest.restartHistory),
            backgroundTimeRemaining: guest.stopped
                ? nil : background.timeRemaining(of: guest.id, at: now)?.timeInterval,
            tasks: background.tasks(of: guest.id).map { TaskStatus(id: $0.id, name: $0.name, expired: $0.expired) },
            suspension: guest.suspendedFor.map { SuspensionStatus(since: $0.since, reason: $0.reason) },
            pid: guest.channel?.processID,
            audio: audio.status(of: guest.id, running: guest.phase != .notRunning, meters: meters),
            actions: guest.descriptor.actions)
    }

    private func status(of scene: SceneRecord, of guest: String) -> SceneStatus {
        let ref = SceneRef(guest: guest, session: scene.sessionID)
        let report = reports.report(of: ref)
        return SceneStatus(
            handle: scene.handle, session: scene.sessionID, role: scene.role, state: scene.state,
            savedBytes: scene.storedBytes, size: scene.size, placement: arrangement.layout.placement(of: ref),
            title: report.title, loading: report.loading,
            modals: report.modals.map { ModalStatus(id: $0.id, style: $0.style, title: $0.title) },
            saveFailure: scene.saveFailure)
    }
}
