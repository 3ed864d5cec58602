import ApphostModel
import ApphostPolicy

/// One test of `apphost check`: what it checks, by contract rule, and how. Each runs in a fresh
/// host of its own (`CheckHost`), launches the guest and judges what it does.
public struct CheckTest: Sendable {
    /// Its name, as `--filter` and the report give it: "launch".
    public let id: String
    /// The contract rules it checks: ["A1", "A2"].
    public let rules: [String]
    /// What it checks, in one line.
    public let summary: String
    /// Why it does not apply to a guest (for a skip), or nil when it does; asked once the guest has
    /// launched and said what it declares.
    let skipReason: @Sendable (GuestDescriptor) -> String?
    /// The test itself, on the guest `descriptor` describes, active in the foreground of `host`.
    /// It throws `CheckFailure`, or `CheckSkip` for a guest it turns out not to apply to.
    let body: @Sendable (_ host: CheckHost, _ descriptor: GuestDescriptor, _ policy: CheckPolicy) throws -> Void

    /// Whether `--filter` `pattern` selects it: its name or one of its rules, whole.
    public func matches(_ pattern: String) -> Bool {
        id == pattern || rules.contains { $0.caseInsensitiveCompare(pattern) == .orderedSame }
    }
}

/// What a test expected and what the guest did instead.
public struct CheckFailure: Error, Sendable, Equatable {
    public var expected: String
    public var observed: String
    /// The last lines of the guest's log, for the report.
    public var log: [String]?

    public init(expected: String, observed: String) {
        self.expected = expected
        self.observed = observed
    }
}

/// A test that finds, once it has run the guest, that it does not apply: a skip with the reason.
struct CheckSkip: Error {
    var reason: String
}

/// The timings a check runs with: short, so that the whole suite is quick, but never shorter
/// than what the contract lets a guest take.
public struct CheckPolicy: Sendable {
    /// How long loading, init and did_finish_launching may take before the guest is active.
    public var launchLimit: Duration = .seconds(10)
    /// How long a callback or an action may take (A4's watchdog).
    public var watchdog = WatchdogPolicy(limit: .seconds(2), hardLimit: .seconds(4))
    /// A short budget, so that a guest that holds its tasks is caught in seconds; grace and
    /// suspension delay in proportion.
    public var background = BackgroundPolicy(
        budget: .seconds(3), expirationGrace: .seconds(1), suspendDelay: .milliseconds(200))
    /// How long a guest has to go once told to terminate (A3): the opener's stop timeout, and some.
    public var terminateLimit: Duration = .seconds(20)
    /// How long a guest is watched after each step for a death that follows it.
    public var settle: Duration = .milliseconds(100)
    /// The random walk's seed: the same seed, the same walk.
    public var seed: UInt64 = 1

    public init() {}
}
