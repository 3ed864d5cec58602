import ApphostVocabulary

/// The watchdog (CONTRACT B5): a callback gets the whole limit from the moment it becomes the
/// oldest unanswered one. Past the limit the guest is flagged; past the hard limit it is killed
/// or frozen, by policy. The host itself never waits for it. Each guest's `CallWatch` holds its
/// callbacks and the rule; this arms the one timer that looks at them and acts on what it finds.
///
/// Confined to the host queue, like the core: call every method there.
final class Watchdog: @unchecked Sendable {
    let policy: WatchdogPolicy
    /// The core, which suspends a guest the watchdog froze.
    weak var delegate: (any WatchdogDelegate)?
    private let clock: any HostClock
    private let log: HostEventLog

    init(policy: WatchdogPolicy, clock: any HostClock, log: HostEventLog) {
        self.policy = policy
        self.clock = clock
        self.log = log
    }

    /// `callback` was sent to `guest` on `channel`: watched from now if it is the oldest.
    func sent(_ callback: String, to guest: GuestRecord, channel: any GuestChannel) {
        if guest.calls.sent(callback, at: clock.uptime()) {
            arm(guest, channel: channel, at: guest.calls.nextLook(policy))
        }
    }

    /// `guest` answered its oldest callback; returns whether another one is unanswered (and
    /// watched from now).
    func answered(by guest: GuestRecord, channel: any GuestChannel) -> Bool {
        guard guest.calls.answered(at: clock.uptime()) else { return false }
        arm(guest, channel: channel, at: guest.calls.nextLook(policy))
        return true
    }

    /// Makes sure the watchdog looks again by `due`. An earlier timer stays: when it fires it
    /// finds a younger callback and sets itself for that one.
    private func arm(_ guest: GuestRecord, channel: any GuestChannel, at due: Duration) {
        if guest.calls.timer != nil, guest.calls.timerDue <= due { return }
        guest.calls.timer?.cancel()
        guest.calls.timerDue = due
        guest.calls.timer = clock.schedule(after: due - clock.uptime()) { [weak self] in
            // On the host queue: a Dispatch timer of the host queue's, or the manual clock's turn.
            guard let self, guest.channel === channel else { return }
            guest.calls.timer = nil
            self.checkOldestCallback(guest, channel: channel)
        }
    }

    private func checkOldestCallback(_ guest: GuestRecord, channel: any GuestChannel) {
        let finding = guest.calls.check(at: clock.uptime(), policy: policy)
        if let callback = finding.overdue {
            log.record(
                .watchdog, guest: guest.id, reason: .watchdog,
                message: "\(callback) has not returned within \(policy.limit.secondsText)")
        }
        if let callback = finding.hung { return stopHung(guest, channel: channel, in: callback) }
        if let next = finding.next { arm(guest, channel: channel, at: next) }
    }

    private func stopHung(_ guest: GuestRecord, channel: any GuestChannel, in callback: String) {
        let freezing = policy.action == .freeze
        let overdue = "\(callback) has not returned within \(policy.hardLimit.secondsText)"
        if !freezing { guest.calls.killedByWatchdog = true }
        guest.calls.lastHung = (guest.calls.answeredCount, callback)
        channel.forceStop(freezing: freezing) { [weak self] result in
            guard let self, guest.channel === channel else { return }
            switch result {
            case .failure(let failure):
                guest.calls.killedByWatchdog = false
                self.log.record(
                    .error, guest: guest.id, reason: .watchdog, message: "\(overdue); cannot stop it: \(failure)")
            case .success where freezing:
                self.delegate?.frozenByWatchdog(guest, overdue: overdue)
            case .success:
                // The death that follows is reported through the core's `crashed`, with reason watchdog.
                break
            }
        }
    }
}

/// What the watchdog needs of the core it serves.
protocol WatchdogDelegate: AnyObject {
    /// `guest` was frozen where it stood, `overdue` saying in what: the host takes it as suspended.
    func frozenByWatchdog(_ guest: GuestRecord, overdue: String)
}
