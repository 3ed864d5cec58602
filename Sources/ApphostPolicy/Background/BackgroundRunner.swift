import ApphostModel
import ApphostVocabulary

/// Carries out background work (CONTRACT B1 to B9): tells `BackgroundScheduler` what happens to a
/// guest, with what it needs to know of it then, and does what the scheduler says. It owns the
/// scheduler. A timer runs in the clock's own call (`GuestOutbox.arm`), with no further hop, so
/// that a budget ends on time; only while the guest still runs on the channel it had.
///
/// Confined to the host queue, like the core that keeps it.
final class BackgroundRunner: @unchecked Sendable {
    /// Budgets, tasks, timers and automatic suspension; read for status.
    private(set) var scheduler: BackgroundScheduler
    private let outbox: GuestOutbox
    /// The clock's handles of the part's timers, by token.
    private var alarms = Alarms<BackgroundToken>()
    private let log: HostEventLog
    private let clock: any HostClock
    weak var lifecycle: (any LifecycleOrders)?
    /// B9: whether a guest's audio session keeps it running in background.
    var playsAudio: (String) -> Bool = { _ in false }

    init(policy: BackgroundPolicy, outbox: GuestOutbox, log: HostEventLog, clock: any HostClock) {
        scheduler = BackgroundScheduler(policy: policy)
        self.outbox = outbox
        self.log = log
        self.clock = clock
    }

    /// B2: the guest entered background (or resumed there): a fresh budget starts.
    func enteredBackground(_ guest: GuestRecord) {
        guard guest.channel != nil else { return }
        perform(scheduler.enteredBackground(guest.id, at: clock.uptime()), for: guest)
    }

    /// B2: the guest came to the foreground: time is unlimited again.
    func leftBackground(_ guest: GuestRecord) { perform(scheduler.leftBackground(guest.id), for: guest) }

    /// B1: the host has decided to suspend or terminate `guest`: its runtime hears that no
    /// background time is left before any callback of that transition.
    func endWork(_ guest: GuestRecord) {
        guard guest.channel != nil else { return }
        perform(scheduler.endWork(guest.id), for: guest)
    }

    /// What a suspension does to the guest's budget, as `GuestLifecycle` says (B7, B8).
    func budget(_ change: LifecycleEffect.Budget, of guest: GuestRecord) {
        switch change {
        case .suspended: perform(scheduler.suspended(guest.id), for: guest)
        case .stayedRunning: perform(scheduler.stayedRunning(guest.id, at: clock.uptime()), for: guest)
        case .resumed: scheduler.resumed(guest.id)
        case .enteredBackground: enteredBackground(guest)
        }
    }

    func stopping(_ guest: GuestRecord) { perform(scheduler.stopping(guest.id), for: guest) }
    /// B8: the timers that fell due while it was stopped, once each, then its held work, in order.
    func releaseHeld(_ guest: GuestRecord) { perform(scheduler.releaseHeld(guest.id), for: guest) }
    func ended(_ guest: GuestRecord) { perform(scheduler.ended(guest.id), for: guest) }
    /// B6: a guest idle in background is suspended a little later.
    func idle(_ guest: GuestRecord) { perform(scheduler.considerSuspension(guest.id, facts(guest)), for: guest) }
    func audioChanged(_ guest: GuestRecord) { perform(scheduler.audioChanged(guest.id, facts(guest)), for: guest) }
    func report(_ event: GuestEvent, from guest: GuestRecord) {
        perform(scheduler.report(event, from: guest.id, facts(guest)), for: guest)
    }

    /// B6: the guest holds background work (a task, a timer, its audio), which keeps it running.
    func holdsWork(_ guest: GuestRecord) -> Bool { scheduler.holdsWork(guest.id, playsAudio: playsAudio(guest.id)) }
    func workEnded(_ id: String) -> Bool { scheduler.workEnded(id) }

    private func facts(_ guest: GuestRecord) -> BackgroundFacts {
        BackgroundFacts(guest, playsAudio: playsAudio(guest.id))
    }

    private func perform(_ effects: [BackgroundEffect], for guest: GuestRecord) {
        for effect in effects {
            switch effect {
            case .deliver(let call): outbox.deliver(guest, call)
            case .deliverAll(let calls): outbox.deliver(guest, all: calls)
            case .record(let kind, let reason, let name, let message):
                log.record(kind, guest: guest.id, reason: reason, name: name, message: message)
            case .schedule(let token, let delay):
                let action = outbox.schedule(after: delay, for: guest) { [weak self] current in
                    guard let self, self.alarms.fell(token), current else { return }
                    self.perform(self.scheduler.tick(token, of: guest.id, self.facts(guest)), for: guest)
                }
                action.map { alarms.arm(token, $0) }
            case .cancel(let token): alarms.cancel(token)
            case .suspend(let reason, let onlyIfIdle, let thenTerminate):
                guard let channel = guest.channel else { continue }
                lifecycle?.stopGuest(guest, channel: channel, reason: reason, onlyIfIdle: onlyIfIdle) {
                    [weak self] result in
                    guard let self, thenTerminate, case .success = result else { return }
                    self.lifecycle?.terminate(guest.id, reason: reason) { _ in }
                }
            }
        }
    }
}
