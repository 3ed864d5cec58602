import ApphostModel
import ApphostVocabulary

/// Carries out restarts under the restart policy (CONTRACT X2): tells `Restarter` that a guest
/// crashed or that a restart of it failed to launch, and does what it says. A restart's timer runs
/// in the clock's own call, then hops to the host queue.
///
/// Confined to the host queue, like the core that keeps it.
final class RestartRunner: @unchecked Sendable {
    /// Read for status.
    let restarter: Restarter
    private let log: HostEventLog
    private let clock: any HostClock
    private let hostQueue: any HostExecutor
    weak var lifecycle: (any LifecycleOrders)?

    init(policy: RestartPolicy, log: HostEventLog, clock: any HostClock, hostQueue: any HostExecutor) {
        restarter = Restarter(policy: policy)
        (self.log, self.clock, self.hostQueue) = (log, clock, hostQueue)
    }

    /// `guest` crashed (in the foreground or not), or a restart of it failed to launch
    /// (`inForeground` nil).
    func failed(_ guest: GuestRecord, inForeground: Bool? = nil) {
        perform(restarter.failed(&guest.restartHistory, at: clock.uptime(), inForeground: inForeground), for: guest)
    }

    private func perform(_ effects: [RestartEffect], for guest: GuestRecord) {
        for effect in effects {
            switch effect {
            case .record(let kind, let message):
                log.record(kind, guest: guest.id, reason: .crash, message: message)
            case .schedule(let delay):
                clock.schedule(after: delay) { [weak self, hostQueue] in
                    guard let runner = self else { return }
                    hostQueue.execute {
                        runner.perform(runner.restarter.due(&guest.restartHistory, phase: guest.phase), for: guest)
                    }
                }
            case .launch(let foreground):
                lifecycle?.launch(path: guest.path, foreground: foreground) { [weak self] result in
                    guard let self, case .failure = result else { return }
                    self.failed(guest)
                }
            }
        }
    }
}
