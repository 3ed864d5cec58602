import Foundation

/// Time as the host core sees it. Production uses `DispatchHostClock`; tests use `ManualClock`
/// so that policy runs with exact, repeatable timing.
public protocol HostClock: AnyObject, Sendable {
    /// Wall-clock time, for event timestamps.
    func now() -> Date
    /// Monotonic time since an arbitrary origin, for windows and budgets: it never jumps.
    func uptime() -> Duration
    /// Runs `action` once after `delay` on the host's queue, unless cancelled first.
    @discardableResult
    func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> ScheduledAction
}

/// A scheduled action that can be cancelled before it runs.
public protocol ScheduledAction: AnyObject, Sendable {
    func cancel()
}
