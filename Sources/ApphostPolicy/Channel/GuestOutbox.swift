import ApphostModel
import ApphostVocabulary

/// The one way the policy reaches a guest: each call recorded, watched (B5, `Watchdog`) and its
/// round trip measured (O2); and the parts' timers, armed on the clock by token. What its replies
/// and its watchdog mean for the guest's life goes to `delegate`.
///
/// Confined to the host queue, like the core that keeps it.
final class GuestOutbox: @unchecked Sendable {
    private let clock: any HostClock
    private let log: HostEventLog
    private let measure: @Sendable (HostMeasurement) -> Void
    /// Stops guests stuck in a callback (B5).
    private var watchdog: Watchdog
    /// The clock's handles of the watchdog's timers.
    private var alarms = Alarms<WatchdogToken>()
    weak var delegate: (any GuestOutboxDelegate)?

    init(
        clock: any HostClock, log: HostEventLog, watchdog: WatchdogPolicy,
        measure: @escaping @Sendable (HostMeasurement) -> Void
    ) {
        self.clock = clock
        self.log = log
        self.measure = measure
        self.watchdog = Watchdog(policy: watchdog)
    }

    func deliver(
        _ guest: GuestRecord, _ call: GuestCall, sceneState: SceneState? = nil,
        reply: (@Sendable (GuestReply) -> Void)? = nil
    ) {
        guard let channel = guest.channel else {
            reply?(.failure(.closed))
            return
        }
        let (message, answer) = prepare(guest, call, channel: channel, sceneState: sceneState, reply: reply)
        channel.send(message, reply: answer)
    }

    /// Delivers several calls to `guest` at once, in order: one write to a worker, not one each.
    func deliver(_ guest: GuestRecord, all calls: [GuestCall]) {
        guard let channel = guest.channel, !calls.isEmpty else { return }
        channel.send(all: calls.map { prepare(guest, $0, channel: channel, sceneState: nil, reply: nil) })
    }

    /// The guest's run ended: the calls it had under way are no longer watched.
    func ended(_ guest: GuestRecord) {
        perform(watchdog.ended(&guest.calls), for: guest)
    }

    /// Schedules `fire` on the clock, `after` from now; it runs in the clock's own call (a
    /// Dispatch timer of the host queue's, or the manual clock's turn), with no further hop, so
    /// that a budget ends on time. `current` says whether `guest` (if any) still runs on the
    /// channel it has now; nothing is scheduled while it has none. The caller keeps the handle
    /// by its token (`Alarms`), so that each part's tokens stay its own, of their own type.
    func schedule(
        after delay: Duration, for guest: GuestRecord? = nil, _ fire: @escaping @Sendable (_ current: Bool) -> Void
    ) -> (any ScheduledAction)? {
        let channel = guest?.channel
        guard guest == nil || channel != nil else { return nil }
        return clock.schedule(after: delay) { fire(guest?.channel === channel) }
    }

    /// Records a call, watches it (B5) and measures its round trip (O2); returns the message and
    /// the reply that settles it.
    private func prepare(
        _ guest: GuestRecord, _ call: GuestCall, channel: any GuestChannel, sceneState: SceneState?,
        reply: (@Sendable (GuestReply) -> Void)?
    ) -> (GuestMessage, @Sendable (GuestReply) -> Void) {
        if call.runsGuestCode { log.record(.callback, guest: guest.id, scene: call.scene, name: call.callbackName) }
        let message = GuestMessage(call: call, appState: guest.appState, sceneState: sceneState)
        let sent = clock.uptime()
        perform(watchdog.sent(call.callbackName, &guest.calls, at: sent), for: guest)
        return (
            message,
            { [weak self] result in
                if let self, call.runsGuestCode, case .success = result {
                    self.measure(
                        .callbackRoundTrip(
                            guest: guest.id, callback: call.callbackName, duration: self.clock.uptime() - sent))
                }
                if guest.channel === channel, let self, guest.calls.current != nil {
                    let (more, effects) = self.watchdog.answered(&guest.calls, at: self.clock.uptime())
                    self.perform(effects, for: guest)
                    if !more { self.delegate?.guestIdle(guest) }
                }
                if case .failure(.crashed(let cause)) = result {
                    self?.delegate?.guestCrashed(guest, channel: channel, cause: cause, during: call.callbackName)
                }
                reply?(result)
            }
        )
    }

    /// B5: carries out what `Watchdog` says; its timer acts only while the guest still runs on
    /// the channel it had when the timer was armed.
    private func perform(_ effects: [WatchdogEffect], for guest: GuestRecord) {
        for effect in effects {
            switch effect {
            case .record(let kind, let message):
                log.record(kind, guest: guest.id, reason: .watchdog, message: message)
            case .schedule(let token, let delay):
                let action = schedule(after: delay, for: guest) { [weak self] current in
                    guard let self, self.alarms.fell(token), current else { return }
                    self.perform(self.watchdog.look(token, &guest.calls, at: self.clock.uptime()), for: guest)
                }
                action.map { alarms.arm(token, $0) }
            case .cancel(let token):
                alarms.cancel(token)
            case .stop(let freezing, let overdue):
                guard let channel = guest.channel else { continue }
                channel.forceStop(freezing: freezing) { [weak self] result in
                    guard let self, guest.channel === channel else { return }
                    self.perform(
                        self.watchdog.stopped(result, freezing: freezing, overdue: overdue, &guest.calls), for: guest)
                }
            case .frozen(let overdue):
                delegate?.guestFrozen(guest, overdue: overdue)
            }
        }
    }
}

/// What the outbox learns that changes a guest's life: the core's to carry out.
protocol GuestOutboxDelegate: AnyObject {
    /// The guest died in a call (X2).
    func guestCrashed(_ guest: GuestRecord, channel: any GuestChannel, cause: String, during callback: String?)
    /// Every call sent to the guest has returned (B6: an idle guest in background is suspended).
    func guestIdle(_ guest: GuestRecord)
    /// The watchdog froze the guest, stuck in a call (B5).
    func guestFrozen(_ guest: GuestRecord, overdue: String)
}
