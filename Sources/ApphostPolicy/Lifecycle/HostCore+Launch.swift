import ApphostModel
import ApphostVocabulary
import Foundation

/// A guest's life from its launch (CONTRACT A1, A2) to its unloading (A3), its suspensions (B7)
/// and its death (X2), as `GuestLifecycle` says: the scenes connect once the launch callback
/// succeeds; a guest that stops running, however it stops, has its scenes unattached and is
/// reported terminated once what it saved is stored.
extension HostCore {
    // MARK: Launch

    /// The guest is opened and what the store holds of it read: its record is made or taken up
    /// again (another launch of it may have got there first), and it launches (A1, A2).
    func launch(
        _ opened: OpenedGuest, stored: StoredGuest, path: String, route: GuestEventRoute, foreground: Bool,
        completion: @escaping @Sendable (Result<GuestDescriptor, HostCommandError>) -> Void
    ) {
        let descriptor = opened.descriptor
        guard let (guest, new) = directory.load(descriptor, from: path, now: clock.now()) else {
            let error = LoadError(path: path, cause: .alreadyLoaded(descriptor.id))
            opened.channel.close {}
            log.record(.launchFailed, guest: descriptor.id, message: error.description)
            return completion(.failure(HostCommandError(error.description)))
        }
        if new { sessions.restoreSessions(of: guest, from: stored) }
        route.id = descriptor.id
        route.channel = opened.channel
        log.record(.guestLoaded, guest: guest.id, message: "\(descriptor.name) \(descriptor.version) from \(path)")
        // A1: it runs, with no scene yet: background, in the guest, in `ps` and in the stream alike.
        GuestLifecycle.launching(guest, on: opened.channel)
        audio.launching(guest.id)
        appStateChanged(guest, from: .notRunning, reason: .requested)
        // What a guest thread asked for between init and the channel's opening, now it has a record.
        let early = route.early
        route.early = []
        for event in early { handle(event, from: route) }

        // N1: its runtime refuses notifications over the limit at once, as the host would.
        outbox.deliver(guest, scenes.notificationLimit)
        outbox.deliver(guest, .didFinishLaunching, sceneState: nil) { [weak self] reply in
            guard let self else { return }
            guard let cause = GuestLifecycle.launchFailure(reply) else {
                self.launched(guest, foreground: foreground, stored: stored)
                return completion(.success(descriptor))
            }
            let message = "\(guest.path): launch failed: \(cause)"
            self.log.record(.launchFailed, guest: guest.id, message: message)
            guard let channel = guest.channel else { return completion(.failure(HostCommandError(message))) }
            GuestLifecycle.terminating(guest)
            channel.close { [weak self] in
                self?.unloaded(guest, channel: channel, reason: .requested) { _ in
                    completion(.failure(HostCommandError(message)))
                }
            }
        }
    }

    /// A2: the launch callback succeeded; now the scenes connect.
    private func launched(_ guest: GuestRecord, foreground: Bool, stored: StoredGuest) {
        let before = guest.appState
        guard GuestLifecycle.launched(guest) else { return }
        scenes.prepareScenes(of: guest, stored: stored)
        appStateChanged(guest, from: before, reason: .requested)
        memory.used(guest.id, at: clock.uptime())
        scenes.connect(guest, foreground: foreground)
        // B2: a guest launched into background starts its budget at once.
        if guest.appState == .background { backgroundChanged(guest, entered: true) }
    }

    /// The guest's channel is closed: it no longer runs (`GuestLifecycle.ended`). It is reported
    /// terminated, and `then` hears how its way out went, once what it saved to the last is in
    /// the store, so that the event stream never says terminated before its last state-saved.
    func unloaded(
        _ guest: GuestRecord, channel: any GuestChannel, reason: TransitionReason,
        then: @escaping @Sendable (String?) -> Void = { _ in }
    ) {
        guard guest.channel === channel else { return then(guest.terminationTrouble) }
        let (effects, trouble) = GuestLifecycle.ended(guest, reason: reason)
        perform(effects, for: guest)
        sessions.afterSaves { [weak self] in
            self?.log.record(.terminated, guest: guest.id, reason: reason, message: trouble)
            then(trouble)
        }
    }

    // MARK: Suspension (B5, B7, B8)

    /// B7: tells the runtime that no background work is possible any more (begin_task then
    /// returns the invalid id, B1), then has the channel stop the guest once every call sent so
    /// far has returned. A task begun before that is known by the time the reply arrives: with
    /// `onlyIfIdle` (B6), such a task calls the suspension off.
    func stopGuest(
        _ guest: GuestRecord, channel: any GuestChannel, reason: TransitionReason, onlyIfIdle: Bool = false,
        completion: @escaping @Sendable (Result<Void, HostCommandError>) -> Void
    ) {
        GuestLifecycle.changing(guest, suspending: true)
        background.stopping(guest)
        outbox.deliver(guest, .backgroundTime(.zero)) { [weak self] _ in
            guard let self else { return }
            guard guest.channel === channel else { return completion(.failure(GuestDirectory.gone(guest.id))) }
            if onlyIfIdle, guest.appState != .background || self.background.holdsWork(guest) {
                self.perform(GuestLifecycle.calledOff(guest), for: guest)
                return completion(.failure(HostCommandError("\(guest.id) began background work meanwhile")))
            }
            self.changeSuspension(guest, channel: channel, to: true, reason: reason, completion: completion)
        }
    }

    /// B8: the scenes disconnected meanwhile, its saves' and its audio session's news, one memory
    /// warning however many were sent, each timer that fell due once, then the async work
    /// submitted meanwhile, in order.
    private func deliverHeld(_ guest: GuestRecord) {
        guard guest.channel != nil else { return }
        for scene in guest.held.takeDisconnects() {
            outbox.deliver(guest, .scene(scene, .didDisconnect), sceneState: .unattached)
        }
        // X5: whether its scenes' saves failed, or work again, since it was stopped.
        tellSaveStatus(guest)
        // C14: its session's interruption, route and hints, coalesced.
        audio.releaseHeld(guest.id)
        // S9, S7: the scene requests refused and the sessions closed while it was stopped.
        scenes.releaseHeld(guest)
        if guest.held.takeMemoryWarning() { outbox.deliver(guest, .didReceiveMemoryWarning) }
        background.releaseHeld(guest)
    }

    /// Carries out what `GuestLifecycle` said, in order.
    func perform(_ effects: [LifecycleEffect], for guest: GuestRecord) {
        for effect in effects {
            switch effect {
            case .record(let kind, let reason, let message):
                log.record(kind, guest: guest.id, reason: reason, message: message)
            case .appStateChanged(let before, let reason): appStateChanged(guest, from: before, reason: reason)
            case .hide(let reason): scenes.hide(guest.id, reason: reason)
            case .budget(.enteredBackground): backgroundChanged(guest, entered: true)
            case .budget(let change): background.budget(change, of: guest)
            case .releaseHeld: deliverHeld(guest)
            case .forgetRun:
                background.ended(guest)
                audio.unloaded(guest.id)
                scenes.ended(guest.id)
                // Its runtime is gone, and what it waited for with it: a later launch counts from 1 again.
                guest.saveConfirmations.reset()
                // An action's result whose reply never came (the guest died between them) answers nothing.
                actions.ended(guest.id)
                outbox.ended(guest)
            case .unattachScenes(let reason): scenes.unattach(guest, reason: reason)
            case .died(let reason, let inForeground):
                guard let channel = guest.channel else { continue }
                unloaded(guest, channel: channel, reason: reason) { [weak self] _ in
                    self?.restarts.failed(guest, inForeground: inForeground)
                }
            }
        }
    }

    // MARK: Crashes and restarts (X2)

    /// X2: a guest that died is reported with its cause and the callback it was in; its scenes
    /// become unattached and keep their saved state.
    func guestCrashed(_ guest: GuestRecord, channel: any GuestChannel, cause: String, during callback: String?) {
        guard guest.channel === channel else { return }
        let inForeground = scenes.layout.mainScenes.contains { $0.guest == guest.id }
        perform(GuestLifecycle.crashed(guest, cause: cause, during: callback, inForeground: inForeground), for: guest)
    }

    /// The guest's app state changed from `before`: recorded, and its audio session follows.
    func appStateChanged(_ guest: GuestRecord, from before: AppState, reason: TransitionReason) {
        guard guest.appState != before else { return }
        guest.lastReason = reason
        guest.lastTransition = clock.now()
        log.record(.appState, guest: guest.id, from: before.description, to: guest.appState.description, reason: reason)
        audio.appStateChanged(guest, from: before)
    }

    /// B2: the guest entered background (or resumed there), and a fresh budget starts; or it came
    /// to the foreground, and time is unlimited again. Either way it is in use (A4).
    func backgroundChanged(_ guest: GuestRecord, entered: Bool) {
        guard !entered || guest.channel != nil else { return }
        memory.used(guest.id, at: clock.uptime())
        if entered { background.enteredBackground(guest) } else { background.leftBackground(guest) }
    }
}
