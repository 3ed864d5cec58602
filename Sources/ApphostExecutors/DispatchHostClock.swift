import ApphostVocabulary
import Dispatch
import Foundation
import HeapModule
import Synchronization

/// The production clock: one strict Dispatch timer, on the host queue or beside it, always set for
/// the earliest action due, and the actions in a heap by deadline.
///
/// A DispatchSource of its own for each action cost 6 to 9 us to create and as much to cancel,
/// on the host queue: resuming 100 guests schedules 300 actions (budgets and watchdogs). Adding
/// to the heap costs well under a microsecond, and the timer is set again only when an action
/// comes due before every other.
///
/// Actions due at the same instant run in the order they were scheduled, as on `ManualClock`.
/// An action scheduled while others run waits for the timer's next turn, even if already due.
public final class DispatchHostClock: HostClock, @unchecked Sendable {
    // A DispatchSource may be set and cancelled from any thread; the rest is in the Mutex.
    private let timer: DispatchSourceTimer
    private let state = Mutex(Schedule())

    public convenience init(queue: DispatchQueue) {
        self.init(executor: queue)
    }

    /// The due actions run on `executor`. The timer fires on it when it is a Dispatch queue, and
    /// otherwise (the host's event loop) on a queue of its own, then hops onto it.
    public init(executor: any HostExecutor) {
        if let queue = executor as? DispatchQueue {
            timer = DispatchSource.makeTimerSource(flags: .strict, queue: queue)
            timer.setEventHandler { [weak self] in self?.runDue() }
        } else {
            timer = DispatchSource.makeTimerSource(flags: .strict, queue: DispatchQueue(label: "apphost.clock"))
            timer.setEventHandler { [weak self] in
                executor.execute { [weak self] in self?.runDue() }
            }
        }
        timer.activate()
    }

    deinit { timer.cancel() }

    public func now() -> Date { Date() }

    public func uptime() -> Duration { .nanoseconds(DispatchTime.now().uptimeNanoseconds) }

    @discardableResult
    public func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> ScheduledAction {
        let deadline = DispatchTime.now().uptimeNanoseconds.addingSaturated(delay.saturatedNanoseconds)
        let scheduled = HeapScheduledAction(action: action) { [weak self] in
            self?.state.withLock { $0.noteCancelled() }
        }
        state.withLock { schedule in
            schedule.add(scheduled, at: deadline)
            // Under the lock, so that two threads cannot set the timer in the wrong order. While
            // due actions run, `runDue` sets it afterwards for whatever is then earliest.
            guard !schedule.running else { return }
            if schedule.timerSetFor.map({ deadline < $0 }) ?? true { setTimer(for: deadline, in: &schedule) }
        }
        return scheduled
    }

    /// On the host queue, when the timer fires: runs every action due by now, one at a time so
    /// that an action may cancel another due with it.
    private func runDue() {
        let now = DispatchTime.now().uptimeNanoseconds
        let scheduledBefore = state.withLock { schedule in
            schedule.timerSetFor = nil
            schedule.running = true
            return schedule.nextOrder
        }
        while let due = state.withLock({ $0.popDue(by: now, scheduledBefore: scheduledBefore) }) { due.fire() }
        state.withLock { schedule in
            schedule.running = false
            if let next = schedule.earliest { setTimer(for: next, in: &schedule) }
        }
    }

    /// Actions in the heap, cancelled ones not yet swept included: for tests of the sweep.
    var heapCount: Int { state.withLock { $0.count } }

    private func setTimer(for deadline: UInt64, in schedule: inout Schedule) {
        schedule.timerSetFor = deadline
        timer.schedule(deadline: DispatchTime(uptimeNanoseconds: deadline), leeway: .nanoseconds(0))
    }
}

/// The actions waiting on a `DispatchHostClock`, by deadline.
private struct Schedule {
    struct Entry: Comparable {
        let deadline: UInt64
        let order: Int
        let action: HeapScheduledAction
        static func < (left: Entry, right: Entry) -> Bool {
            (left.deadline, left.order) < (right.deadline, right.order)
        }
        static func == (left: Entry, right: Entry) -> Bool { left.order == right.order }
    }

    private var heap = Heap<Entry>()
    private(set) var nextOrder = 0
    /// The deadline the timer is set for; nil while it is not set.
    var timerSetFor: UInt64?
    /// Due actions are running: `schedule` only adds to the heap, and the timer is set once they
    /// are done. Setting it from `schedule` meanwhile would set it for a later action than one
    /// already waiting in the heap, which would then wait as long.
    var running = false
    /// Entries cancelled but still in the heap; they are dropped when they come up, or all at
    /// once when they make up most of it.
    private var cancelled = 0

    var count: Int { heap.count }

    mutating func add(_ action: HeapScheduledAction, at deadline: UInt64) {
        heap.insert(Entry(deadline: deadline, order: nextOrder, action: action))
        nextOrder += 1
    }

    /// The next action due by `now` that was scheduled before `order`, dropping cancelled ones.
    mutating func popDue(by now: UInt64, scheduledBefore order: Int) -> HeapScheduledAction? {
        dropCancelledFirst()
        guard let first = heap.min, first.deadline <= now, first.order < order else { return nil }
        return heap.removeMin().action
    }

    /// When the first action that is not cancelled is due.
    var earliest: UInt64? {
        mutating get {
            dropCancelledFirst()
            return heap.min?.deadline
        }
    }

    /// Removes cancelled entries from the top of the heap, so that its minimum is a live one.
    private mutating func dropCancelledFirst() {
        while let first = heap.min, first.action.isCancelled {
            heap.removeMin()
            cancelled -= 1
        }
    }

    /// Counts a cancellation; a heap that is mostly cancelled entries is swept, so that actions
    /// scheduled and cancelled at a high rate (watchdogs) do not pile up until they fall due.
    mutating func noteCancelled() {
        cancelled += 1
        guard cancelled > 64, cancelled * 2 > heap.count else { return }
        heap.removeAll { $0.action.isCancelled }
        cancelled = 0
    }
}

/// An action on a `DispatchHostClock`: runs at most once, never after it was cancelled.
final class HeapScheduledAction: ScheduledAction, Sendable {
    private let action: Mutex<(@Sendable () -> Void)?>
    /// Tells the clock of a cancellation, so that it can sweep its heap.
    private let onCancel: @Sendable () -> Void

    init(action: @escaping @Sendable () -> Void, onCancel: @escaping @Sendable () -> Void) {
        self.action = Mutex(action)
        self.onCancel = onCancel
    }

    /// Cancelled, or already run.
    var isCancelled: Bool { action.withLock { $0 == nil } }

    func cancel() {
        let pending = action.withLock { action in
            defer { action = nil }
            return action != nil
        }
        if pending { onCancel() }
    }

    func fire() {
        let run = action.withLock { action in
            defer { action = nil }
            return action
        }
        run?()
    }
}

extension UInt64 {
    fileprivate func addingSaturated(_ other: UInt64) -> UInt64 {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? .max : sum
    }
}

extension Duration {
    /// Whole nanoseconds; 0 for a negative duration, and at most UInt64.max.
    fileprivate var saturatedNanoseconds: UInt64 {
        guard self > .zero else { return 0 }
        let (seconds, attoseconds) = components
        let (whole, overflow) = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
        return overflow ? .max : whole.addingSaturated(UInt64(attoseconds) / 1_000_000_000)
    }
}
