import ApphostVocabulary

/// The clock's handles of a part's timers, by token: its runner's side of the part's `schedule`
/// and `cancel` effects, so that the part holds values only and never calls the clock. Each runner
/// keeps its own, of its part's token type: no token is boxed or cast. Confined to the host queue.
struct Alarms<Token: Hashable & Sendable> {
    private var armed: [Token: any ScheduledAction] = [:]

    mutating func arm(_ token: Token, _ action: any ScheduledAction) {
        armed[token] = action
    }

    mutating func cancel(_ token: Token) {
        armed.removeValue(forKey: token)?.cancel()
    }

    /// `token`'s action runs: true unless it was cancelled meanwhile (a clock whose cancellation
    /// comes too late for an action already on its way).
    mutating func fell(_ token: Token) -> Bool {
        armed.removeValue(forKey: token) != nil
    }
}
