import ApphostModel
import ApphostVocabulary
import Foundation

/// What goes to a guest over its channel, recorded and watched (B5), and what comes back from
/// it, routed to the part of the policy it concerns.
extension HostCore {
    // MARK: To the guest

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
        channel.send(
            all: calls.map { prepare(guest, $0, channel: channel, sceneState: nil, reply: nil) })
    }

    /// Records a call, watches it (B5) and measures its round trip (O2); returns the message and
    /// the reply that settles it.
    private func prepare(
        _ guest: GuestRecord, _ call: GuestCall, channel: any GuestChannel, sceneState: SceneState?,
        reply: (@Sendable (GuestReply) -> Void)?
    ) -> (GuestMessage, @Sendable (GuestReply) -> Void) {
        if call.runsGuestCode { record(.callback, guest: guest.id, scene: call.scene, name: call.callbackName) }
        let message = GuestMessage(call: call, appState: guest.appState, sceneState: sceneState)
        perform(watchdog.sent(call.callbackName, &guest.calls, at: clock.uptime()), for: guest)
        let sent = clock.uptime()
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
                    // B6: a guest idle in background is suspended a little later.
                    if !more {
                        self.perform(
                            self.background.considerSuspension(guest.id, self.backgroundFacts(guest)), for: guest)
                    }
                }
                if case .failure(.crashed(let cause)) = result {
                    self?.crashed(guest, channel: channel, cause: cause, during: call.callbackName)
                }
                reply?(result)
            }
        )
    }

    // MARK: From the guest

    /// Hands what a guest sent to the part of the policy that takes it (`GuestEvent.area`, a
    /// report's from its entry in apphost_messages.h); what an earlier launch of it sends late is
    /// dropped.
    func handle(_ event: GuestEvent, from route: GuestEventRoute) {
        let area = event.area
        switch event {
        case .identified(let id):
            route.identifiedAs = id
            return
        case .log(let level, let message):
            return record(.log, guest: route.id ?? route.identifiedAs ?? route.path, level: level, message: message)
        case .saveSceneState(let handle, let data, let confirmation):
            guard let guest = route.id.flatMap(self.guest) else { return }
            // An earlier launch's save is still kept; its confirmation has no one to go to.
            let current = guest.channel != nil && guest.channel === route.channel
            return sessions.sceneSaved(data, scene: handle, of: guest, confirmation: current ? confirmation : nil)
        default:
            // A guest thread may ask before the channel's opening is handled: kept till then.
            if route.id == nil, area == .background || area == .audio { return route.early.append(event) }
        }
        guard let guest = route.id.flatMap(self.guest), let channel = guest.channel, channel === route.channel else {
            return
        }
        switch area {
        case .core:
            if case .died(let cause) = event {
                crashed(guest, channel: channel, cause: cause, during: guest.calls.current)
            }
        case .background: perform(background.report(event, from: guest.id, backgroundFacts(guest)), for: guest)
        case .scenes: handleScenes(event, from: guest)
        case .audio:
            perform(
                audioSessions.report(event, from: guest.id, at: clock.uptime(), audioFacts) {
                    channel.audioThreadCPUTime($0)
                })
        case .actions:
            if case .actionFinished(let outcome) = event { actions.reported(outcome, by: guest.id) }
        }
    }

    /// B5: carries out what `Watchdog` says should happen; its timer acts only while the guest
    /// still runs on the channel it had when the timer was armed.
    func perform(_ effects: [WatchdogEffect], for guest: GuestRecord) {
        for effect in effects {
            switch effect {
            case .record(let kind, let message):
                record(kind, guest: guest.id, reason: .watchdog, message: message)
            case .schedule(let token, let delay):
                arm(token, after: delay, for: guest) {
                    $0.perform($0.watchdog.look(token, &guest.calls, at: $0.clock.uptime()), for: guest)
                }
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
                perform(GuestLifecycle.frozen(guest, overdue: overdue, at: clock.now()), for: guest)
            }
        }
    }
}
