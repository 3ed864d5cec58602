/// How the host runs guests in background (CONTRACT B2 to B6, A4). Every number is a default
/// the operator can change on `apphost launch`.
public struct BackgroundPolicy: Sendable, Equatable {
    /// What happens to a guest still holding tasks when its budget ends (B4).
    public enum OverrunAction: String, Sendable, CaseIterable {
        case suspend
        case terminate
    }

    /// B2: counted from entering background, shared by all of a guest's tasks.
    public var budget: Duration
    /// B3: expiration handlers run this long before the budget ends.
    public var expirationGrace: Duration
    /// B6: a background guest with no open task is suspended this long after it went idle.
    public var suspendDelay: Duration
    public var overrun: OverrunAction

    public init(
        budget: Duration = .seconds(30), expirationGrace: Duration = .seconds(5), suspendDelay: Duration = .seconds(1),
        overrun: OverrunAction = .suspend
    ) {
        self.budget = budget
        self.expirationGrace = min(expirationGrace, budget)
        self.suspendDelay = suspendDelay
        self.overrun = overrun
    }
}
