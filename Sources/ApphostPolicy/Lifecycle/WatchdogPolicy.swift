/// How long a lifecycle callback may run (CONTRACT B5). Past `limit` the guest is flagged in the
/// event stream; past `hardLimit` it is stopped: killed (then reported, and restarted by the
/// restart policy, like a crash) or frozen where it stands, for someone to look at.
public struct WatchdogPolicy: Sendable, Equatable {
    public enum Action: String, Sendable, CaseIterable {
        case kill
        case freeze
    }

    public var limit: Duration
    public var hardLimit: Duration
    public var action: Action

    public init(limit: Duration = .seconds(5), hardLimit: Duration = .seconds(10), action: Action = .kill) {
        self.limit = limit
        self.hardLimit = max(hardLimit, limit)
        self.action = action
    }
}
