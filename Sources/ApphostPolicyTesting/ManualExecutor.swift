import ApphostVocabulary
import Synchronization

/// The host's executor in tests, as `ManualClock` is its clock: work queued with `execute` runs
/// only when the test drains it, in order, on the test's own thread. No real queue and no other
/// thread, so a test sees every step the core takes, and the same ones every run.
public final class ManualExecutor: HostExecutor, @unchecked Sendable {
    /// Locked: a fake may queue work from a thread of its own.
    private let pending = Mutex<[@Sendable () -> Void]>([])
    /// How deep the test's thread is in work of the executor; touched on that thread alone.
    private var depth = 0

    public init() {}

    public func execute(_ work: @escaping @Sendable () -> Void) {
        pending.withLock { $0.append(work) }
    }

    public func executeAndWait(_ work: () -> Void) {
        inside(work)
    }

    public func preconditionCurrent() {
        precondition(depth > 0, "called off the host executor")
    }

    /// Runs `body` as work of the executor, then drains what it queued.
    @discardableResult
    public func run<T>(_ body: () throws -> T) rethrows -> T {
        let result = try inside(body)
        drain()
        return result
    }

    /// Runs queued work, and what that queues, until none is left.
    public func drain() {
        while let next = pending.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) { inside(next) }
    }

    private func inside<T>(_ body: () throws -> T) rethrows -> T {
        depth += 1
        defer { depth -= 1 }
        return try body()
    }
}
