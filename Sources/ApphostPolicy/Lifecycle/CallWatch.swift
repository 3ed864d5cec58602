import ApphostVocabulary
import DequeModule

/// The callbacks a guest has not answered yet, and the watchdog's view of the oldest (CONTRACT
/// B5): a callback gets the whole limit from the moment it becomes the oldest; past the limit the
/// guest is flagged once; past the hard limit it is stopped. This owns the state and the rule; the
/// core arms the timer and acts on what `check` finds.
struct CallWatch {
    /// What the watchdog finds when it looks.
    struct Finding: Equatable {
        /// The oldest callback, just found past the limit: flag it (once per callback).
        var overdue: String?
        /// The oldest callback, past the hard limit: stop the guest.
        var hung: String?
        /// When to look again (host uptime), unless it hung or nothing waits.
        var next: Duration?
    }

    /// The callbacks sent and not yet answered, oldest first: the first is the one the guest is in.
    /// A deque, so that answering the oldest costs the same however many wait (CONTRACT X7): an
    /// array's `removeFirst` moved every other one, and a guest that made the host send faster
    /// than it answered kept the host's queue in that loop.
    private(set) var inFlight: Deque<String> = []
    /// When the oldest unanswered callback became the oldest (host uptime).
    private(set) var oldestSince: Duration = .zero
    /// The oldest has been flagged for running past the limit.
    private(set) var oldestFlagged = false
    /// The one timer that looks at the oldest callback (the watchdog's token, armed by the core),
    /// and when it is due: replies never re-arm it, it re-arms itself when it finds the callback
    /// it was set for already answered.
    var timer: WatchdogToken?
    var timerDue: Duration = .zero
    /// The watchdog killed the guest: its death is reported as a watchdog stop, not a crash.
    var killedByWatchdog = false
    /// Every callback gets a ticket as it is sent, 0, 1, 2, ...: `sentCount` is the next one.
    /// Callbacks are answered in the order they were sent, so the one the guest is in holds
    /// ticket `answeredCount`. What a caller uses to tell whether its call ran (F3).
    private(set) var sentCount: UInt64 = 0
    private(set) var answeredCount: UInt64 = 0
    /// The last callback the watchdog stopped the guest in, and its ticket: kept after the guest
    /// is gone, so that each caller whose call it takes with it hears which call hung.
    var lastHung: (ticket: UInt64, callback: String)?

    /// The callback the guest is in, if any.
    var current: String? { inFlight.first }

    /// Whether the callback of `ticket` was sent and waits behind another one the guest is in:
    /// it has not begun to run.
    func isWaiting(_ ticket: UInt64) -> Bool { ticket > answeredCount && ticket < sentCount }

    /// The callback the watchdog stopped the guest in, if that is the callback of `ticket` or one
    /// it waited behind: one sent before it and unanswered when it was sent, `oldest` being
    /// `answeredCount` then.
    func hung(ahead ticket: UInt64, since oldest: UInt64) -> (ticket: UInt64, callback: String)? {
        guard let lastHung, lastHung.ticket >= oldest, lastHung.ticket <= ticket else { return nil }
        return lastHung
    }

    /// `callback` was sent at `now`; returns true when it is the oldest now, and so watched.
    mutating func sent(_ callback: String, at now: Duration) -> Bool {
        inFlight.append(callback)
        sentCount += 1
        guard inFlight.count == 1 else { return false }
        becameOldest(at: now)
        return true
    }

    /// The oldest callback was answered at `now`; returns true when another one is the oldest now.
    mutating func answered(at now: Duration) -> Bool {
        guard !inFlight.isEmpty else { return false }
        inFlight.removeFirst()
        answeredCount += 1
        guard !inFlight.isEmpty else { return false }
        becameOldest(at: now)
        return true
    }

    /// When the watchdog should look next for the oldest, by `policy`.
    func nextLook(_ policy: WatchdogPolicy) -> Duration {
        oldestSince + (oldestFlagged ? policy.hardLimit : policy.limit)
    }

    /// What the watchdog finds at `now`, by `policy`; flags an overdue callback once.
    mutating func check(at now: Duration, policy: WatchdogPolicy) -> Finding {
        guard let callback = inFlight.first else { return Finding() }
        let running = now - oldestSince
        var finding = Finding()
        if running >= policy.limit, !oldestFlagged {
            oldestFlagged = true
            finding.overdue = callback
        }
        if running >= policy.hardLimit {
            finding.hung = callback
        } else {
            finding.next = nextLook(policy)
        }
        return finding
    }

    /// The guest is gone: nothing is waiting any more.
    mutating func reset() {
        // The calls in flight were never answered: no later call takes their tickets' turns.
        answeredCount += UInt64(inFlight.count)
        inFlight.removeAll()
        killedByWatchdog = false
        timer = nil
    }

    private mutating func becameOldest(at now: Duration) {
        oldestSince = now
        oldestFlagged = false
    }
}
