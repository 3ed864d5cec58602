import ApphostModel
import ApphostVocabulary

/// Restarts under the restart policy (CONTRACT X2): a crashed guest is relaunched after the
/// policy's delay, unless it crashed `burst` times within `interval`; then the host says so and
/// leaves it down. Each guest's `RestartHistory` counts and decides; this schedules and relaunches.
///
/// Confined to the host queue, like the core: call every method there.
final class Restarter: @unchecked Sendable {
    let policy: RestartPolicy
    /// The core, which launches the guest again.
    weak var delegate: (any RestarterDelegate)?
    private let clock: any HostClock
    private let hostQueue: any HostExecutor
    private let log: HostEventLog

    init(policy: RestartPolicy, clock: any HostClock, hostQueue: any HostExecutor, log: HostEventLog) {
        self.policy = policy
        self.clock = clock
        self.hostQueue = hostQueue
        self.log = log
    }

    /// `guest` crashed, or a restart of it failed to launch: relaunched after the delay, if the
    /// policy allows.
    func restartIfAllowed(_ guest: GuestRecord) {
        switch guest.restartHistory.failed(at: clock.uptime(), policy: policy) {
        case .stayDown:
            return
        case .giveUp:
            log.record(
                .error, guest: guest.id, reason: .crash,
                message: "not restarting: \(policy.burst) restarts within \(policy.interval.secondsText)")
        case .restart(let delay):
            let hostQueue = hostQueue
            clock.schedule(after: delay) { [weak self] in
                guard let restarter = self else { return }
                hostQueue.execute { restarter.restart(guest) }
            }
        }
    }

    private func restart(_ guest: GuestRecord) {
        guard guest.phase == .notRunning, guest.restartHistory.beginRestart() else { return }
        log.record(.restarting, guest: guest.id, reason: .crash, message: "restart \(guest.restartHistory.restarts)")
        delegate?.launch(path: guest.path, foreground: guest.restartHistory.crashedInForeground) { result in
            // A restart that fails to launch is a failure too: it counts against the burst.
            if case .failure = result { self.restartIfAllowed(guest) }
        }
    }

    /// The guest's restarts, as `ctl ps` shows them.
    func status(of guest: GuestRecord) -> RestartStatus {
        guest.restartHistory.status(policy.mode)
    }
}

/// What the restarter needs of the core it serves.
protocol RestarterDelegate: AnyObject {
    /// Loads the guest at `path` and launches it, as `HostCore.launch` does.
    func launch(
        path: String, foreground: Bool,
        completion: @escaping @Sendable (Result<GuestDescriptor, HostCommandError>) -> Void)
}
