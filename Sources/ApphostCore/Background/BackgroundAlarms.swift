import ApphostVocabulary

/// The clock's handles of the background scheduler's timers, by token: the core's side of
/// `BackgroundEffect.schedule` and `.cancel`, so that the scheduler holds values only and never
/// calls the clock. Confined to the host queue, like the core that keeps it.
struct BackgroundAlarms {
    private var armed: [BackgroundToken: any ScheduledAction] = [:]

    mutating func arm(_ token: BackgroundToken, _ action: any ScheduledAction) {
        armed[token] = action
    }

    mutating func cancel(_ token: BackgroundToken) {
        armed.removeValue(forKey: token)?.cancel()
    }

    /// `token`'s action runs: true unless it was cancelled meanwhile (a clock whose cancellation
    /// comes too late for an action already on its way).
    mutating func fell(_ token: BackgroundToken) -> Bool {
        armed.removeValue(forKey: token) != nil
    }
}
