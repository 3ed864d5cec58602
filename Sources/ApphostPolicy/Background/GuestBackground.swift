import ApphostModel
import ApphostVocabulary

/// One open background task of a guest, as its runtime reported it.
struct OpenTask: Equatable {
    var id: TaskID
    var name: String
    /// Its expiration handler has been called (B3): at most once per task.
    var expired = false
}

/// A timer the guest asked the host to run (`schedule_timer`).
struct GuestTimer {
    var interval: Duration?
    /// The pending firing; nil while the guest is suspended and the timer fell due.
    var scheduled: BackgroundToken?
    /// It fell due while the guest was suspended: it runs once on resume (B7, B8).
    var due = false
    /// The order in which timers fell due, so that they run on resume in that order.
    var dueOrder = 0
}

/// What the background scheduler keeps of one guest's run (B1 to B9): its tasks and budget, its
/// timers and the async work that waits for it while it is stopped. Changed only by
/// `BackgroundScheduler`, in place, through the methods here; forgotten when the guest stops
/// running. Each method appends what should happen to `effects`.
struct GuestBackground {
    private(set) var tasks: [OpenTask] = []
    /// When the budget ends (host uptime); nil while the guest is in the foreground or not running.
    private(set) var deadline: Duration?
    /// The expiration (B3) and end-of-budget (B4) timers of the current budget, while pending.
    private var expiration: BackgroundToken?
    private var budgetEnd: BackgroundToken?
    /// The pending automatic suspension (B6).
    private(set) var autoSuspension: BackgroundToken?
    private var timers: [TimerID: GuestTimer] = [:]
    private var nextDueOrder = 0
    /// B8: async work submitted while it was stopped, in order.
    private var heldWork: [WorkID] = []
    /// B1: the host has decided to suspend or terminate the guest and told its runtime that no
    /// background time is left; the scene callbacks of that transition start no budget.
    var workEnded = false

    // MARK: Budget (B2 to B4)

    mutating func startBudget(
        at now: Duration, policy: BackgroundPolicy, serial: inout UInt64, into effects: inout [BackgroundEffect]
    ) {
        cancelBudget(into: &effects)
        deadline = now + policy.budget
        effects.append(.deliver(.backgroundTime(policy.budget)))
        let expiration = BackgroundToken.next(.expiration, serial: &serial)
        let budgetEnd = BackgroundToken.next(.budgetEnd, serial: &serial)
        effects.append(.schedule(expiration, after: policy.budget - policy.expirationGrace))
        effects.append(.schedule(budgetEnd, after: policy.budget))
        self.expiration = expiration
        self.budgetEnd = budgetEnd
    }

    /// Disarms the budget's timers and forgets its deadline.
    mutating func cancelBudget(into effects: inout [BackgroundEffect]) {
        if let token = expiration { effects.append(.cancel(token)) }
        if let token = budgetEnd { effects.append(.cancel(token)) }
        expiration = nil
        budgetEnd = nil
        deadline = nil
    }

    /// B3: every open task's expiration handler is called, once: all the calls together, then
    /// an event for each; nothing unless the guest's code runs (`running`).
    mutating func expire(
        _ token: BackgroundToken, policy: BackgroundPolicy, running: Bool, into effects: inout [BackgroundEffect]
    ) {
        guard expiration == token else { return }
        expiration = nil
        guard running else { return }
        var calls: [GuestCall] = []
        let first = effects.count
        let left = policy.expirationGrace.secondsText
        for index in tasks.indices where !tasks[index].expired {
            tasks[index].expired = true
            let task = tasks[index]
            calls.append(.expireTask(task.id))
            effects.append(
                .record(
                    .taskExpired, reason: .budgetExpired, name: task.name,
                    message: "task \(task.id): \(left) of background time left"))
        }
        if !calls.isEmpty { effects.insert(.deliverAll(calls), at: first) }
    }

    /// B4: the budget is over; whether the guest ran over is the scheduler's to say. Its deadline
    /// stays: the status says no time is left.
    mutating func endBudget(_ token: BackgroundToken) -> Bool {
        guard budgetEnd == token else { return false }
        budgetEnd = nil
        return true
    }

    // MARK: Automatic suspension (B6)

    mutating func armAutoSuspension(_ token: BackgroundToken) { autoSuspension = token }

    /// The automatic suspension fell due: true if `token` is still the pending one.
    mutating func takeAutoSuspension(_ token: BackgroundToken) -> Bool {
        guard autoSuspension == token else { return false }
        autoSuspension = nil
        return true
    }

    mutating func cancelAutoSuspension(into effects: inout [BackgroundEffect]) {
        if let token = autoSuspension { effects.append(.cancel(token)) }
        autoSuspension = nil
    }

    // MARK: Tasks and work

    mutating func begin(_ task: OpenTask) { tasks.append(task) }

    /// Removes the open task `id`, if it is one.
    mutating func end(_ id: TaskID) -> OpenTask? {
        tasks.firstIndex { $0.id == id }.map { tasks.remove(at: $0) }
    }

    mutating func hold(_ work: WorkID) { heldWork.append(work) }

    // MARK: Timers (B7, B8)

    mutating func schedule(
        _ id: TimerID, delay: Duration, interval: Duration?, serial: inout UInt64,
        into effects: inout [BackgroundEffect]
    ) {
        if let token = timers[id]?.scheduled { effects.append(.cancel(token)) }
        let firing = BackgroundToken.next(.timer(id), serial: &serial)
        timers[id] = GuestTimer(interval: interval, scheduled: firing)
        effects.append(.schedule(firing, after: delay))
    }

    mutating func cancelTimer(_ id: TimerID, into effects: inout [BackgroundEffect]) {
        if let token = timers.removeValue(forKey: id)?.scheduled { effects.append(.cancel(token)) }
    }

    /// A timer fell due: it fires now, or, while the guest is stopped, once when it resumes,
    /// in the order the timers fell due (B7, B8).
    mutating func timerFell(
        _ token: BackgroundToken, timer id: TimerID, _ facts: BackgroundFacts, serial: inout UInt64,
        into effects: inout [BackgroundEffect]
    ) {
        guard timers[id]?.scheduled == token,
            facts.phase == .running || facts.phase == .terminating, facts.hasChannel
        else { return }
        timers[id]?.scheduled = nil
        guard facts.stopped else { return fire(id, serial: &serial, into: &effects) }
        guard timers[id]?.due == false else { return }
        timers[id]?.due = true
        timers[id]?.dueOrder = nextDueOrder
        nextDueOrder += 1
    }

    /// B8: each timer that fell due while the guest was stopped fires once, in the order they
    /// fell due, then the async work submitted meanwhile runs, in order.
    mutating func releaseHeld(serial: inout UInt64, into effects: inout [BackgroundEffect]) {
        if timers.values.contains(where: \.due) {
            let due = timers.filter(\.value.due).sorted { $0.value.dueOrder < $1.value.dueOrder }
            for (id, _) in due { fire(id, serial: &serial, into: &effects) }
        }
        for work in heldWork { effects.append(.deliver(.runWork(work))) }
        heldWork = []
    }

    private mutating func fire(_ id: TimerID, serial: inout UInt64, into effects: inout [BackgroundEffect]) {
        guard timers[id] != nil else { return }
        effects.append(.deliver(.fireTimer(id)))
        guard let interval = timers[id]?.interval else {
            timers[id] = nil
            return
        }
        let firing = BackgroundToken.next(.timer(id), serial: &serial)
        timers[id]?.due = false
        timers[id]?.scheduled = firing
        effects.append(.schedule(firing, after: interval))
    }

    /// Disarms everything of the run: it ended.
    mutating func end(into effects: inout [BackgroundEffect]) {
        cancelBudget(into: &effects)
        cancelAutoSuspension(into: &effects)
        for timer in timers.values { if let token = timer.scheduled { effects.append(.cancel(token)) } }
    }
}
