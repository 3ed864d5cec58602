import ApphostVocabulary
import Synchronization

/// The service manager's status line as guests come and go (CONTRACT O3): "12 guests, 3 active",
/// what `systemctl status` shows. Counted from the app-state events, each at a constant cost
/// (no walk over the guests), and said only when the line changed, once reporting has begun
/// (after READY=1, whose own status says how the launch went).
public final class GuestCountStatus: Sendable {
    private struct Counts {
        /// Each running guest's app state, as its last app-state event left it.
        var states: [String: String] = [:]
        var active = 0
        var said: String?
        var reporting = false
        /// Shutdown has begun: reporting never starts again, whichever thread asks last.
        var stopped = false

        /// The line, when it differs from the last one said; remembered as said.
        mutating func changedLine() -> String? {
            let line = GuestCountStatus.line(guests: states.count, active: active)
            guard line != said else { return nil }
            said = line
            return line
        }
    }

    private let counts = Mutex(Counts())
    private let say: @Sendable (String) -> Void

    /// `say` sends a STATUS= line (``ServiceNotifier/status(_:)``).
    public init(say: @escaping @Sendable (String) -> Void) { self.say = say }

    /// The line for `guests` running guests, `active` of them active.
    public static func line(guests: Int, active: Int) -> String {
        guests == 0 ? "no guests" : "\(guests) guest\(guests == 1 ? "" : "s"), \(active) active"
    }

    /// One host event; called on the host queue. Only app-state events count.
    public func observe(_ event: HostEvent) {
        guard event.kind == .appState, let guest = event.guest, let to = event.to else { return }
        let line: String? = counts.withLock { counts in
            let before = counts.states[guest]
            if before == "active" { counts.active -= 1 }
            if to == "notRunning" {
                counts.states[guest] = nil
            } else {
                counts.states[guest] = to
                if to == "active" { counts.active += 1 }
            }
            return counts.reporting ? counts.changedLine() : nil
        }
        if let line { say(line) }
    }

    /// From now on, changes are said: the first line that differs from the guests as they are now.
    /// Not after `stopReporting`: a SIGTERM may stop the host between READY=1 and this call,
    /// which come from the host queue while the signal is handled on the main queue.
    public func startReporting() {
        counts.withLock { counts in
            guard !counts.stopped else { return }
            counts.reporting = true
            counts.said = Self.line(guests: counts.states.count, active: counts.active)
        }
    }

    /// From now on nothing is said: shutdown has its own status line.
    public func stopReporting() {
        counts.withLock { counts in
            counts.reporting = false
            counts.stopped = true
        }
    }
}
