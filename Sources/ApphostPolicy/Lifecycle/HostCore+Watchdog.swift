import ApphostModel
import ApphostVocabulary

/// The core's side of the watchdog (B5) and of restarts (X2): it carries out what `Watchdog` and
/// `Restarter` say should happen. Their timers run in the clock's own call (a Dispatch timer of
/// the host queue's, or the manual clock's turn), and act only while the guest still runs on the
/// channel it had when they were armed.
extension HostCore {
    func perform(_ effects: [WatchdogEffect], for guest: GuestRecord) {
        for effect in effects {
            switch effect {
            case .record(let kind, let message):
                record(kind, guest: guest.id, reason: .watchdog, message: message)
            case .schedule(let token, let delay):
                guard let channel = guest.channel else { continue }
                let action = clock.schedule(after: delay) { [weak self] in
                    guard let self, self.watchdogAlarms.fell(token), guest.channel === channel else { return }
                    self.perform(self.watchdog.look(token, &guest.calls, at: self.clock.uptime()), for: guest)
                }
                watchdogAlarms.arm(token, action)
            case .cancel(let token):
                watchdogAlarms.cancel(token)
            case .stop(let freezing, let overdue):
                guard let channel = guest.channel else { continue }
                channel.forceStop(freezing: freezing) { [weak self] result in
                    guard let self, guest.channel === channel else { return }
                    self.perform(
                        self.watchdog.stopped(result, freezing: freezing, overdue: overdue, &guest.calls), for: guest)
                }
            case .frozen(let overdue):
                frozenByWatchdog(guest, overdue: overdue)
            }
        }
    }

    func perform(_ effects: [RestartEffect], for guest: GuestRecord) {
        for effect in effects {
            switch effect {
            case .record(let kind, let message):
                record(kind, guest: guest.id, reason: .crash, message: message)
            case .schedule(let delay):
                let hostQueue = hostQueue
                clock.schedule(after: delay) { [weak self] in
                    guard let core = self else { return }
                    hostQueue.execute {
                        core.perform(core.restarter.due(&guest.restartHistory, phase: guest.phase), for: guest)
                    }
                }
            case .launch(let foreground):
                launch(path: guest.path, foreground: foreground) { [weak self] result in
                    guard let self, case .failure = result else { return }
                    self.restartFailed(guest)
                }
            }
        }
    }

    /// X2: `guest` crashed (in the foreground or not), or a restart of it failed to launch
    /// (`inForeground` nil).
    func restartFailed(_ guest: GuestRecord, inForeground: Bool? = nil) {
        perform(restarter.failed(&guest.restartHistory, at: clock.uptime(), inForeground: inForeground), for: guest)
    }
}
