import ApphostModel
import ApphostVocabulary
import Foundation

/// What comes back from a guest, routed to the part of the policy it concerns, and what the
/// outbox learns of its life (a crash, idleness, the watchdog's freezing).
extension HostCore {
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
            return log.record(.log, guest: route.id ?? route.identifiedAs ?? route.path, level: level, message: message)
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
                guestCrashed(guest, channel: channel, cause: cause, during: guest.calls.current)
            }
        case .background: background.report(event, from: guest)
        case .scenes: scenes.report(event, from: guest)
        case .audio: audio.report(event, from: guest, channel: channel)
        case .actions:
            if case .actionFinished(let outcome) = event { actions.reported(outcome, by: guest.id) }
        case .sandbox: sandbox.report(event, from: guest)
        }
    }
}

extension HostCore: GuestOutboxDelegate {
    func guestIdle(_ guest: GuestRecord) { background.idle(guest) }

    func guestFrozen(_ guest: GuestRecord, overdue: String) {
        perform(GuestLifecycle.frozen(guest, overdue: overdue, at: clock.now()), for: guest)
    }
}
