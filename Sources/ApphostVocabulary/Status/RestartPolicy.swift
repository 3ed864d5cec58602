import Foundation

/// What the host does when a guest crashes (CONTRACT X2), as systemd's Restart=, with its
/// StartLimitBurst= and StartLimitIntervalSec=: restart it after `delay`, unless it already
/// crashed `burst` times within `interval`, in which case it stays down until an operator acts.
public struct RestartPolicy: Sendable, Codable, Equatable {
    public enum Mode: String, Sendable, Codable, CaseIterable {
        case never
        case onFailure = "on-failure"
    }

    public var mode: Mode
    public var burst: Int
    public var interval: Duration
    public var delay: Duration

    public init(
        mode: Mode = .never, burst: Int = 5, interval: Duration = .seconds(10), delay: Duration = .milliseconds(100)
    ) {
        self.mode = mode
        self.burst = burst
        self.interval = interval
        self.delay = delay
    }

    public static let never = RestartPolicy()
}

/// A guest's restart history, as `ctl ps` shows it.
public struct RestartStatus: Sendable, Codable, Equatable {
    public var policy: RestartPolicy.Mode
    /// How many times the host restarted the guest since it was first launched.
    public var restarts: Int
    /// The burst limit was reached: the host no longer restarts it.
    public var gaveUp: Bool

    public init(policy: RestartPolicy.Mode, restarts: Int, gaveUp: Bool) {
        self.policy = policy
        self.restarts = restarts
        self.gaveUp = gaveUp
    }
}
