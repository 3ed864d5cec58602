import ApphostModel
import ApphostVocabulary

/// The core's side of background work (CONTRACT B1 to B9): it tells `BackgroundScheduler` what
/// happens to a guest and carries out what the scheduler says should happen (`perform`). The
/// runtime's reports go to the scheduler straight from `handle`.
extension HostCore {
    /// B2: the guest entered background (or resumed there): a fresh budget starts.
    func enteredBackground(_ guest: GuestRecord) {
        guard guest.channel != nil else { return }
        memory.used(guest.id, at: clock.uptime())
        perform(background.enteredBackground(guest.id, at: clock.uptime()), for: guest)
    }

    /// B2: the guest came to the foreground: time is unlimited again.
    func leftBackground(_ guest: GuestRecord) {
        memory.used(guest.id, at: clock.uptime())
        perform(background.leftBackground(guest.id), for: guest)
    }

    /// B1: the host has decided to suspend or terminate `guest`: its runtime hears that no
    /// background time is left before any callback of that transition.
    func endBackgroundWork(_ guest: GuestRecord) {
        guard guest.channel != nil else { return }
        perform(background.endWork(guest.id), for: guest)
    }

    func backgroundFacts(_ guest: GuestRecord) -> BackgroundFacts {
        BackgroundFacts(guest, playsAudio: audioSessions.playsInBackground(guest.id))
    }

    /// Carries out what the scheduler said, in order. A timer runs in the clock's own call (a
    /// Dispatch timer of the host queue's, or the manual clock's turn), with no further hop, so
    /// that a budget ends on time; only while `guest` still runs on the channel it had.
    func perform(_ effects: [BackgroundEffect], for guest: GuestRecord) {
        for effect in effects {
            switch effect {
            case .deliver(let call):
                deliver(guest, call)
            case .deliverAll(let calls):
                deliver(guest, all: calls)
            case .record(let kind, let reason, let name, let message):
                record(kind, guest: guest.id, reason: reason, name: name, message: message)
            case .schedule(let token, let delay):
                arm(token, after: delay, for: guest) {
                    $0.perform($0.background.tick(token, of: guest.id, $0.backgroundFacts(guest)), for: guest)
                }
            case .cancel(let token):
                alarms.cancel(token)
            case .suspend(let reason, let onlyIfIdle, let thenTerminate):
                guard let channel = guest.channel else { continue }
                stopGuest(guest, channel: channel, reason: reason, onlyIfIdle: onlyIfIdle) { [weak self] result in
                    guard let self, thenTerminate, case .success = result else { return }
                    self.terminate(guest.id, reason: reason)
                }
            }
        }
    }
}
