import ApphostModel
import ApphostVocabulary
import Foundation

/// Background work and suspension (CONTRACT B1 to B9). The guest's runtime
/// hands out task, timer and work ids and reports them as events; the policy here runs the budget,
/// the timers and the suspensions, on the host queue, with the core's clock.
extension HostCore {
    // MARK: Budget (B2 to B4)

    /// The guest entered background (or resumed there): a fresh budget starts, told to its runtime
    /// first, with its expiration (B3) and end (B4) timers.
    func enteredBackground(_ guest: GuestRecord) {
        guard let channel = guest.channel else { return }
        let policy = backgroundPolicy
        guest.background.cancelBudget()
        guest.background.lastUsed = clock.uptime()
        guest.background.deadline = clock.uptime() + policy.budget
        deliver(guest, .backgroundTime(policy.budget))
        guest.background.budgetTimers = [
            after(policy.budget - policy.expirationGrace, for: guest, channel: channel) { core in
                core.expireTasks(guest)
            },
            after(policy.budget, for: guest, channel: channel) { core in
                core.budgetEnded(guest, channel: channel)
            },
        ]
    }

    /// B1: the host has decided to suspend or terminate `guest`: its runtime hears that no
    /// background time is left before any callback of that transition, so that a task begun
    /// there (in did_enter_background, say) gets the invalid id.
    func endBackgroundWork(_ guest: GuestRecord) {
        guard !guest.background.workEnded, guest.channel != nil else { return }
        guest.background.workEnded = true
        guest.background.cancelBudget()
        guest.background.cancelAutoSuspension()
        deliver(guest, .backgroundTime(.zero))
    }

    /// The guest came to the foreground: time is unlimited again (B2). Its open tasks stay open.
    func leftBackground(_ guest: GuestRecord) {
        guest.background.cancelAutoSuspension()
        guest.background.lastUsed = clock.uptime()
        guard guest.background.deadline != nil else { return }
        guest.background.cancelBudget()
        deliver(guest, .backgroundTime(nil))
    }

    /// B3: the expiration handler of every open task runs, once, a grace period before the end;
    /// all of them are sent together, so that the last runs as soon after the first as it can.
    private func expireTasks(_ guest: GuestRecord) {
        guard guest.phase == .running, !guest.stopped else { return }
        let expiring = guest.background.tasks.indices.filter { !guest.background.tasks[$0].expired }
        for index in expiring { guest.background.tasks[index].expired = true }
        // Sent before the events are recorded: the guest's handlers run while the host tells
        // its subscribers.
        deliver(guest, all: expiring.map { .expireTask(guest.background.tasks[$0].id) })
        let left = backgroundPolicy.expirationGrace.secondsText
        for index in expiring {
            let task = guest.background.tasks[index]
            record(
                .taskExpired, guest: guest.id, reason: .budgetExpired, name: task.name,
                message: "task \(task.id): \(left) of background time left")
        }
    }

    /// B4: the budget is over. A guest still holding tasks ran over: it is suspended (or
    /// terminated, by policy), and the event names its tasks. One that holds none is left to B6.
    private func budgetEnded(_ guest: GuestRecord, channel: any GuestChannel) {
        guest.background.budgetTimers = []
        guard guest.phase == .running, !guest.stopped, !guest.changingSuspension else { return }
        let names = guest.background.tasks.map(\.name)
        guard !names.isEmpty else { return }
        let playing = playsAudioInBackground(guest)
        record(
            .overrun, guest: guest.id, reason: .budgetExpired,
            message: "ran over its \(backgroundPolicy.budget.secondsText) background budget holding "
                + names.map { "\"\($0)\"" }.joined(separator: ", ")
                + (playing ? "; kept running: it plays audio in background" : ""))
        // B9: audio keeps it running; it is suspended like any other once its audio stops.
        guard !playing else { return }
        let terminating = backgroundPolicy.overrun == .terminate
        stopGuest(guest, channel: channel, reason: .budgetExpired) { [weak self] result in
            guard let self, terminating, case .success = result else { return }
            // Frozen first, so that no more of its code runs; a suspended guest gets no callback (A3).
            self.terminate(guest.id, reason: .budgetExpired)
        }
    }

    func backgroundTimeRemaining(_ guest: GuestRecord) -> Double? {
        guard !guest.stopped, let deadline = guest.background.deadline else { return nil }
        return max(0, (deadline - clock.uptime()).timeInterval)
    }

    // MARK: Suspension (B6, B7)

    /// B6: a background guest with no open task, no callback in flight and no background audio is
    /// suspended `suspendDelay` later, unless that changes meanwhile.
    func considerAutoSuspension(_ guest: GuestRecord) {
        guard isIdleInBackground(guest), guest.background.autoSuspension == nil, let channel = guest.channel else {
            return
        }
        guest.background.autoSuspension = after(backgroundPolicy.suspendDelay, for: guest, channel: channel) { core in
            guest.background.autoSuspension = nil
            guard core.isIdleInBackground(guest, ignoringCallbacks: true) else { return }
            core.stopGuest(guest, channel: channel, reason: .automatic, onlyIfIdle: true) { _ in }
        }
    }

    private func isIdleInBackground(_ guest: GuestRecord, ignoringCallbacks: Bool = false) -> Bool {
        guest.phase == .running && guest.channel != nil && !guest.stopped && !guest.changingSuspension
            && guest.appState == .background && (ignoringCallbacks || guest.calls.current == nil)
            && !holdsBackgroundWork(guest)
    }

    /// An open task, or audio playing in background (B9): either keeps a guest from suspension.
    private func holdsBackgroundWork(_ guest: GuestRecord) -> Bool {
        !guest.background.tasks.isEmpty || playsAudioInBackground(guest)
    }

    /// B7: tells the runtime that no background work is possible any more (begin_task then
    /// returns the invalid id, B1), then has the channel stop the guest once every call sent so
    /// far has returned. A task begun before that is known by the time the reply arrives: with
    /// `onlyIfIdle` (B6), such a task calls the suspension off.
    func stopGuest(
        _ guest: GuestRecord, channel: any GuestChannel, reason: TransitionReason, onlyIfIdle: Bool = false,
        completion: @escaping @Sendable (Result<Void, HostCommandError>) -> Void
    ) {
        guest.suspension = .suspending
        guest.background.workEnded = true
        guest.background.cancelAutoSuspension()
        deliver(guest, .backgroundTime(.zero)) { [weak self] _ in
            guard let self else { return }
            guard guest.channel === channel else { return completion(.failure(self.gone(guest.id))) }
            if onlyIfIdle, guest.appState != .background || self.holdsBackgroundWork(guest) {
                guest.suspension = .running
                self.stayedRunning(guest)
                return completion(.failure(HostCommandError("\(guest.id) began background work meanwhile")))
            }
            self.changeSuspension(guest, channel: channel, to: true, reason: reason, completion: completion)
        }
    }

    /// The channel confirmed the suspension: no budget runs while suspended.
    func markSuspended(_ guest: GuestRecord, reason: TransitionReason) {
        guest.background.cancelBudget()
        guest.background.cancelAutoSuspension()
        guest.background.suspendedSince = clock.now()
        guest.background.suspendReason = reason
    }

    /// B5: the watchdog froze a guest stuck in a callback: it is suspended where it stands, its
    /// scenes out of the layout, for someone to look at.
    func frozenByWatchdog(_ guest: GuestRecord, overdue: String) {
        let before = guest.appState
        guest.suspension = .suspended
        arrange(layout.keeping { $0.guest != guest.id }, reason: .watchdog)
        markSuspended(guest, reason: .watchdog)
        noteAppState(guest, from: before, reason: .watchdog)
        record(.suspended, guest: guest.id, reason: .watchdog, message: "frozen: \(overdue)")
    }

    /// A suspension did not happen: the guest gets back what is left of its budget (which ran on
    /// meanwhile), and what waited for it.
    func stayedRunning(_ guest: GuestRecord) {
        guest.background.workEnded = false
        let remaining = guest.background.deadline.map { max(.zero, $0 - clock.uptime()) }
        deliver(guest, .backgroundTime(remaining))
        deliverHeld(guest)
    }

    /// The guest runs again. In background it gets a fresh budget (and is suspended again once
    /// idle, B6); then what waited for it is delivered, in order (B8).
    func resumed(_ guest: GuestRecord) {
        guest.background.workEnded = false
        guest.background.suspendedSince = nil
        guest.background.suspendReason = nil
        if guest.appState == .background { enteredBackground(guest) }
        deliverHeld(guest)
    }

    /// B8: one memory warning however many were sent, each timer that fell due once, then the
    /// async work submitted meanwhile, in order.
    private func deliverHeld(_ guest: GuestRecord) {
        guard let channel = guest.channel else { return }
        let disconnected = guest.background.heldDisconnects
        guest.background.heldDisconnects = []
        for scene in disconnected { deliver(guest, .scene(scene, .didDisconnect), sceneState: .unattached) }
        // X5: whether its scenes' saves failed, or work again, since it was stopped.
        tellSaveStatus(guest)
        // C14: its session's interruption, route and hints, coalesced.
        deliverHeldAudio(guest)
        // Closed while it was stopped: known in memory, so resuming reads nothing from the store.
        for session in guest.discarded { announceDiscard(session, to: guest) }
        if guest.background.pendingMemoryWarning {
            guest.background.pendingMemoryWarning = false
            deliver(guest, .didReceiveMemoryWarning)
        }
        let due = guest.background.timers.filter(\.value.due).sorted { $0.value.dueOrder < $1.value.dueOrder }
        for (id, _) in due { fire(guest, timer: id, channel: channel) }
        let work = guest.background.heldWork
        guest.background.heldWork = []
        for id in work { deliver(guest, .runWork(id)) }
    }

    // MARK: What the guest's runtime reports

    func handleBackground(_ event: GuestEvent, from guest: GuestRecord, channel: any GuestChannel) {
        switch event {
        case .taskBegan(let id, let name):
            guest.background.tasks.append(OpenTask(id: id, name: name))
            guest.background.cancelAutoSuspension()
            record(.taskBegun, guest: guest.id, name: name, message: "task \(id)")
        case .taskEnded(let id):
            guard let index = guest.background.tasks.firstIndex(where: { $0.id == id }) else { return }
            let task = guest.background.tasks.remove(at: index)
            record(.taskEnded, guest: guest.id, name: task.name, message: "task \(id)")
            considerAutoSuspension(guest)
        case .timerScheduled(let id, let delay, let interval):
            guest.background.timers[id]?.scheduled?.cancel()
            guest.background.timers[id] = HostTimer(
                interval: interval,
                scheduled: after(delay, for: guest, channel: channel) { core in core.timerFell(guest, id: id) })
        case .timerCancelled(let id):
            guest.background.timers.removeValue(forKey: id)?.scheduled?.cancel()
        case .workSubmitted(let id):
            // Only a guest's own thread can submit while it is stopped (in-process): held (B7).
            if guest.stopped { guest.background.heldWork.append(id) } else { deliver(guest, .runWork(id)) }
        default:
            break
        }
    }

    /// A timer fell due: it runs now, or once when a suspended guest resumes (B7, B8).
    private func timerFell(_ guest: GuestRecord, id: TimerID) {
        guard guest.phase == .running || guest.phase == .terminating, let channel = guest.channel,
            var timer = guest.background.timers[id]
        else { return }
        timer.scheduled = nil
        guard !guest.stopped else {
            if !timer.due {
                timer.due = true
                timer.dueOrder = guest.background.nextDueOrder
                guest.background.nextDueOrder += 1
            }
            guest.background.timers[id] = timer
            return
        }
        guest.background.timers[id] = timer
        fire(guest, timer: id, channel: channel)
    }

    private func fire(_ guest: GuestRecord, timer id: TimerID, channel: any GuestChannel) {
        guard var timer = guest.background.timers[id] else { return }
        deliver(guest, .fireTimer(id))
        guard let interval = timer.interval else {
            guest.background.timers[id] = nil
            return
        }
        timer.due = false
        timer.scheduled = after(interval, for: guest, channel: channel) { core in core.timerFell(guest, id: id) }
        guest.background.timers[id] = timer
    }

    // MARK: Audio (B9)

    /// The guest's audio session starts or stops keeping it running in background: the arbiter
    /// says so while it plays, active, in a category that plays in background, and the guest
    /// declared background audio (B9). Once it stops, B6 applies as to any guest.
    func audioSessionChanged(_ guest: GuestRecord, playsInBackground: Bool) {
        guest.background.audioPlaysInBackground = playsInBackground
        guard guest.phase == .running else { return }
        if playsInBackground {
            guest.background.cancelAutoSuspension()
        } else {
            considerAutoSuspension(guest)
        }
    }

    private func playsAudioInBackground(_ guest: GuestRecord) -> Bool { guest.background.audioPlaysInBackground }

    // MARK: Helpers

    /// Runs `action` on the host queue after `delay`, while `guest` still runs on `channel`: in
    /// the clock's own call (a Dispatch timer of the host queue's, or the manual clock's turn),
    /// with no further hop, so that a budget ends on time.
    private func after(
        _ delay: Duration, for guest: GuestRecord, channel: any GuestChannel,
        _ action: @escaping @Sendable (HostCore) -> Void
    ) -> any ScheduledAction {
        clock.schedule(after: delay) { [weak self] in
            guard let core = self, guest.channel === channel else { return }
            action(core)
        }
    }
}
