import ApphostModel
import ApphostVocabulary
import Foundation

/// One open background task of a guest, as its runtime reported it.
struct OpenTask {
    var id: TaskID
    var name: String
    /// Its expiration handler has been called (B3): at most once per task.
    var expired = false
}

/// A timer the guest asked the host to run (`schedule_timer`).
struct HostTimer {
    var interval: Duration?
    /// The pending firing; nil while the guest is suspended and the timer fell due.
    var scheduled: (any ScheduledAction)?
    /// It fell due while the guest was suspended: it runs once on resume (B7, B8).
    var due = false
    /// The order in which timers fell due, so that they run on resume in that order.
    var dueOrder = 0
}

/// What the host core keeps of a guest's background life (B1 to B9): its tasks and budget, its
/// timers and async work, what waits for it while it is suspended, and why it is suspended.
struct BackgroundState {
    var tasks: [OpenTask] = []
    /// When the budget ends (host uptime); nil while the guest is in the foreground or not running.
    var deadline: Duration?
    /// The expiration (B3) and end-of-budget (B4) timers of the current budget.
    var budgetTimers: [any ScheduledAction] = []
    /// The pending automatic suspension (B6).
    var autoSuspension: (any ScheduledAction)?
    var timers: [TimerID: HostTimer] = [:]
    var nextDueOrder = 0
    /// B8: what waits for the guest to resume, coalesced.
    var pendingMemoryWarning = false
    var heldWork: [WorkID] = []
    /// Scenes the host disconnected while the guest was suspended (S6): it hears first.
    var heldDisconnects: [SceneHandle] = []
    /// B9: its audio session is active and may play in background (the audio session says so).
    var audioPlaysInBackground = false
    /// Why and since when it is suspended, for operators.
    var suspendedSince: Date?
    var suspendReason: TransitionReason?
    /// Last time it was in the foreground, or launched (host uptime): memory pressure ends the
    /// least recently used first (A4).
    var lastUsed: Duration = .zero
    /// B1: the host has decided to suspend or terminate the guest and told its runtime that no
    /// background time is left; the scene callbacks of that transition start no budget.
    var workEnded = false

    /// Forgets everything but what outlives a run (the last-used time).
    mutating func reset() {
        for timer in budgetTimers { timer.cancel() }
        autoSuspension?.cancel()
        for timer in timers.values { timer.scheduled?.cancel() }
        self = BackgroundState(lastUsed: lastUsed)
    }

    mutating func cancelBudget() {
        for timer in budgetTimers { timer.cancel() }
        budgetTimers = []
        deadline = nil
    }

    mutating func cancelAutoSuspension() {
        autoSuspension?.cancel()
        autoSuspension = nil
    }
}
