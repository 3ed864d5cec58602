import ApphostVocabulary
import Foundation

/// A clock that moves only when told to; for tests of policy with exact timing.
public final class ManualClock: HostClock, @unchecked Sendable {
    // Confined to the thread that drives the test, like the host core it serves.
    private var current: Date
    private var elapsed: Duration = .zero
    private var pending: [(deadline: Duration, order: Int, action: ManualScheduledAction)] = []
    private var nextOrder = 0

    public init(start: Date = Date(timeIntervalSince1970: 1_800_000_000)) { current = start }

    public func now() -> Date { current }

    public func uptime() -> Duration { elapsed }

    @discardableResult
    public func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> ScheduledAction {
        let scheduled = ManualScheduledAction(action: action)
        pending.append((elapsed + delay, nextOrder, scheduled))
        nextOrder += 1
        return scheduled
    }

    /// When the next scheduled action falls due, or nil when none is pending.
    public var nextDeadline: Duration? {
        pending.filter { !$0.action.isCancelled }.map(\.deadline).min()
    }

    /// Moves time forward by `delay`, running every action that falls due, in deadline order.
    public func advance(by delay: Duration) {
        let target = elapsed + delay
        while let index = pending.indices.filter({ pending[$0].deadline <= target })
            .min(by: { (pending[$0].deadline, pending[$0].order) < (pending[$1].deadline, pending[$1].order) })
        {
            let due = pending.remove(at: index)
            current += (due.deadline - elapsed).timeInterval
            elapsed = due.deadline
            due.action.fire()
        }
        current += (target - elapsed).timeInterval
        elapsed = target
    }
}

final class ManualScheduledAction: ScheduledAction, @unchecked Sendable {
    // Confined to the test's thread, as ManualClock is.
    private var action: (@Sendable () -> Void)?
    init(action: @escaping @Sendable () -> Void) { self.action = action }
    func cancel() { action = nil }
    var isCancelled: Bool { action == nil }
    func fire() {
        let run = action
        action = nil
        run?()
    }
}
