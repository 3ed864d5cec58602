import ApphostModel
import ApphostVocabulary

/// Background policy (CONTRACT B1 to B4, B6 to B9): every guest's background tasks and budget,
/// the timers it scheduled, the async work that waits for it while it is stopped, and its
/// automatic suspension. It owns that state (a `GuestBackground` for each guest that runs, by
/// id), and nothing else writes it.
///
/// It takes inputs (a report of the guest's runtime, a transition of the guest's, a tick of one
/// of its timers) with what it needs to know of the guest then (`BackgroundFacts`), and returns
/// what should happen as values (`BackgroundEffect`), in order, for its runner to carry out. It
/// never calls the clock: a timer is an effect, `.schedule(token, after:)`, which its runner arms
/// on its clock and hands back to `tick` when it falls due. The clock's handles stay with the
/// runner, by token (`GuestOutbox.arm`), for a later `.cancel(token)`: holding values only keeps
/// the part testable with no clock at all, and a token that is no longer current (cancelled or
/// replaced) does nothing should it still come.
///
/// Every input costs the same however many guests there are: one lookup of the guest's state,
/// changed in place, and one array of effects (none when there is nothing to do).
struct BackgroundScheduler {
    let policy: BackgroundPolicy
    private var guests: [String: GuestBackground] = [:]
    /// Numbers the tokens, for all guests.
    private var serial: UInt64 = 0

    init(policy: BackgroundPolicy) {
        self.policy = policy
    }

    // MARK: What the core reads

    /// The guest's open tasks, oldest first.
    func tasks(of id: String) -> [OpenTask] { guests[id]?.tasks ?? [] }

    /// What is left of its budget; nil while unlimited (foreground) or not running.
    func timeRemaining(of id: String, at now: Duration) -> Duration? {
        guests[id]?.deadline.map { max(.zero, $0 - now) }
    }

    /// An open task, or audio playing in background (B9): either keeps a guest from suspension.
    func holdsWork(_ id: String, playsAudio: Bool) -> Bool {
        playsAudio || !(guests[id]?.tasks.isEmpty ?? true)
    }

    /// B1: the host has told the guest's runtime that no background time is left.
    func workEnded(_ id: String) -> Bool { guests[id]?.workEnded ?? false }

    // MARK: Transitions of the guest's (B1, B2, B7)

    /// B2: the guest entered background (or resumed there): a fresh budget starts, told to its
    /// runtime first, with its expiration (B3) and end (B4) timers.
    mutating func enteredBackground(_ id: String, at now: Duration) -> [BackgroundEffect] {
        var effects: [BackgroundEffect] = []
        let policy = policy
        guests[id, default: GuestBackground()].startBudget(at: now, policy: policy, serial: &serial, into: &effects)
        return effects
    }

    /// B2: the guest came to the foreground: time is unlimited again. Its open tasks stay open.
    mutating func leftBackground(_ id: String) -> [BackgroundEffect] {
        var effects: [BackgroundEffect] = []
        guests[id]?.cancelAutoSuspension(into: &effects)
        if guests[id]?.deadline != nil {
            guests[id]?.cancelBudget(into: &effects)
            effects.append(.deliver(.backgroundTime(nil)))
        }
        return effects
    }

    /// B1: the host has decided to suspend or terminate the guest: its runtime hears that no
    /// background time is left before any callback of that transition, so that a task begun
    /// there (in did_enter_background, say) gets the invalid id. Said once.
    mutating func endWork(_ id: String) -> [BackgroundEffect] {
        guard !workEnded(id) else { return [] }
        var effects = stopping(id)
        guests[id]?.cancelBudget(into: &effects)
        effects.append(.deliver(.backgroundTime(.zero)))
        return effects
    }

    /// B1, B7: the host is stopping the guest. The core tells its runtime that no background
    /// time is left itself, and waits for that call's reply.
    mutating func stopping(_ id: String) -> [BackgroundEffect] {
        var effects: [BackgroundEffect] = []
        guests[id, default: GuestBackground()].workEnded = true
        guests[id]?.cancelAutoSuspension(into: &effects)
        return effects
    }

    /// B7: the channel confirmed the suspension: no budget runs while suspended.
    mutating func suspended(_ id: String) -> [BackgroundEffect] {
        var effects: [BackgroundEffect] = []
        guests[id]?.cancelBudget(into: &effects)
        guests[id]?.cancelAutoSuspension(into: &effects)
        return effects
    }

    /// A suspension did not happen: the guest gets back what is left of its budget, which ran on
    /// meanwhile. What waited for it follows (`releaseHeld`).
    mutating func stayedRunning(_ id: String, at now: Duration) -> [BackgroundEffect] {
        guests[id]?.workEnded = false
        return [.deliver(.backgroundTime(timeRemaining(of: id, at: now)))]
    }

    /// The guest runs again; in background the core starts it a fresh budget (`enteredBackground`).
    mutating func resumed(_ id: String) {
        guests[id]?.workEnded = false
    }

    /// B8: once the guest runs again, each timer that fell due while it was stopped fires once,
    /// in the order they fell due, then the async work submitted meanwhile runs, in order.
    mutating func releaseHeld(_ id: String) -> [BackgroundEffect] {
        var effects: [BackgroundEffect] = []
        guests[id]?.releaseHeld(serial: &serial, into: &effects)
        return effects
    }

    /// The guest stopped running: everything of its run is forgotten, and its timers disarmed.
    mutating func ended(_ id: String) -> [BackgroundEffect] {
        guard var state = guests.removeValue(forKey: id) else { return [] }
        var effects: [BackgroundEffect] = []
        state.end(into: &effects)
        return effects
    }

    // MARK: Automatic suspension (B6, B9)

    /// B6: a background guest with no open task, no callback in flight and no background audio is
    /// suspended `suspendDelay` later, unless that changes meanwhile.
    mutating func considerSuspension(_ id: String, _ facts: BackgroundFacts) -> [BackgroundEffect] {
        guard isIdle(id, facts), guests[id]?.autoSuspension == nil else { return [] }
        let suspension = BackgroundToken.next(.autoSuspension, serial: &serial)
        guests[id, default: GuestBackground()].armAutoSuspension(suspension)
        return [.schedule(suspension, after: policy.suspendDelay)]
    }

    /// B9: the guest's audio session started or stopped keeping it running in background
    /// (`facts.playsAudio`). Once it stops, B6 applies as to any guest.
    mutating func audioChanged(_ id: String, _ facts: BackgroundFacts) -> [BackgroundEffect] {
        guard facts.phase == .running else { return [] }
        guard facts.playsAudio else { return considerSuspension(id, facts) }
        var effects: [BackgroundEffect] = []
        guests[id]?.cancelAutoSuspension(into: &effects)
        return effects
    }

    private func isIdle(_ id: String, _ facts: BackgroundFacts, ignoringCallbacks: Bool = false) -> Bool {
        facts.runsFreely && !facts.changingSuspension && facts.appState == .background
            && (ignoringCallbacks || !facts.callInFlight) && !holdsWork(id, playsAudio: facts.playsAudio)
    }

    // MARK: What the guest's runtime reports

    /// A task begun or ended, a timer scheduled or cancelled, async work submitted; any other
    /// event is none of this part's.
    mutating func report(_ event: GuestEvent, from id: String, _ facts: BackgroundFacts) -> [BackgroundEffect] {
        var effects: [BackgroundEffect] = []
        switch event {
        case .taskBegan(let task, let name):
            guests[id, default: GuestBackground()].begin(OpenTask(id: task, name: name))
            guests[id]?.cancelAutoSuspension(into: &effects)
            effects.append(.record(.taskBegun, name: name, message: "task \(task)"))
        case .taskEnded(let task):
            guard let ended = guests[id]?.end(task) else { break }
            effects.append(.record(.taskEnded, name: ended.name, message: "task \(task)"))
            effects += considerSuspension(id, facts)
        case .timerScheduled(let timer, let delay, let interval):
            guests[id, default: GuestBackground()].schedule(
                timer, delay: delay, interval: interval, serial: &serial, into: &effects)
        case .timerCancelled(let timer):
            guests[id]?.cancelTimer(timer, into: &effects)
        case .workSubmitted(let work):
            // Only a guest's own thread can submit while it is stopped (in-process): held (B7).
            if facts.stopped {
                guests[id, default: GuestBackground()].hold(work)
            } else {
                effects.append(.deliver(.runWork(work)))
            }
        default:
            break
        }
        return effects
    }

    // MARK: Ticks of the clock

    /// `token` of the guest `id` fell due. One that is no longer current does nothing.
    mutating func tick(_ token: BackgroundToken, of id: String, _ facts: BackgroundFacts) -> [BackgroundEffect] {
        guard guests[id] != nil else { return [] }
        var effects: [BackgroundEffect] = []
        switch token.alarm {
        case .expiration:
            // B3: all of them sent together, so that the last runs as soon after the first as it
            // can; before the events are recorded, so that the guest's handlers run while the
            // host tells its subscribers.
            let policy = policy
            if facts.runsFreely { effects.reserveCapacity((guests[id]?.tasks.count ?? 0) + 1) }
            guests[id]?.expire(token, policy: policy, running: facts.runsFreely, into: &effects)
        case .budgetEnd:
            guard guests[id]?.endBudget(token) == true else { break }
            budgetEnded(id, facts, into: &effects)
        case .autoSuspension:
            guard guests[id]?.takeAutoSuspension(token) == true, isIdle(id, facts, ignoringCallbacks: true) else {
                break
            }
            effects.append(.suspend(.automatic, onlyIfIdle: true, thenTerminate: false))
        case .timer(let timer):
            guests[id]?.timerFell(token, timer: timer, facts, serial: &serial, into: &effects)
        }
        return effects
    }

    /// B4: the budget is over. A guest still holding tasks ran over: it is suspended (or
    /// terminated, by policy), and the event names its tasks. One that holds none is left to B6.
    /// B9: audio keeps it running; it is suspended like any other once its audio stops.
    private func budgetEnded(_ id: String, _ facts: BackgroundFacts, into effects: inout [BackgroundEffect]) {
        let tasks = self.tasks(of: id)
        guard facts.runsFreely, !facts.changingSuspension, !tasks.isEmpty else { return }
        effects.append(
            .record(
                .overrun, reason: .budgetExpired,
                message: "ran over its \(policy.budget.secondsText) background budget holding "
                    + tasks.map { "\"\($0.name)\"" }.joined(separator: ", ")
                    + (facts.playsAudio ? "; kept running: it plays audio in background" : "")))
        guard !facts.playsAudio else { return }
        // Frozen first, so that no more of its code runs; a suspended guest gets no callback (A3).
        effects.append(.suspend(.budgetExpired, onlyIfIdle: false, thenTerminate: policy.overrun == .terminate))
    }
}
