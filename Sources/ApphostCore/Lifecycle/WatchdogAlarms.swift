import ApphostVocabulary

/// The clock's handles of the watchdog's timers, by token: the core's side of
/// `WatchdogEffect.schedule` and `.cancel`, so that the watchdog holds values only and never calls
/// the clock. Confined to the host queue, like the core that keeps it.
struct WatchdogAlarms {
    private var armed: [WatchdogToken: any ScheduledAction] = [:]

    mutating func arm(_ token: WatchdogToken, _ action: any ScheduledAction) {
        armed[token] = action
    }

    mutating func cancel(_ token: WatchdogToken) {
        armed.removeValue(forKey: token)?.cancel()
    }

    /// `token`'s action runs: true unless it was cancelled meanwhile.
    mutating func fell(_ token: WatchdogToken) -> Bool {
        armed.removeValue(forKey: token) != nil
    }
}
