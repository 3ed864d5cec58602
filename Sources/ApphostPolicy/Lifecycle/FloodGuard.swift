import ApphostVocabulary

/// How many requests of one kind a guest may make, and for how long it may keep at that limit
/// before the host stops it (CONTRACT X7). The defaults are the guest runtime's own: it refuses
/// what goes past `limit` within a `window` with APPHOST_ERROR_LIMIT_REACHED, so a guest that
/// keeps reaching it is flooding.
public struct FloodPolicy: Sendable, Equatable {
    /// Requests within one window.
    public var limit: Int
    public var window: Duration
    /// How long a guest may keep at its limit, window after window, before it is stopped.
    public var stopAfter: Duration

    /// The audio session's requests (activate, deactivate, set_configuration, set_rendering,
    /// set_gain, override_output): as the guest runtime keeps them (`AHR_AUDIO_REQUEST_LIMIT`
    /// within `AHR_AUDIO_REQUEST_WINDOW_NS`).
    public static let audioRequests = FloodPolicy(limit: 100, window: .seconds(1), stopAfter: .seconds(10))

    public init(limit: Int, window: Duration, stopAfter: Duration) {
        self.limit = limit
        self.window = window
        self.stopAfter = stopAfter
    }
}

/// One guest's requests of one kind against a `FloodPolicy` (CONTRACT X2, X7), at a constant cost
/// a request: a bucket of `limit` requests, refilled at `limit` a `window`. A guest that empties
/// three quarters of it is at its limit (its runtime refuses what goes past `limit` within its own
/// window): that begins an episode, told once. The episode goes on while the guest comes back to
/// its limit within two windows, and one that lasts `stopAfter` stops the guest. A bucket, not
/// windows: the host's windows would not begin with the runtime's, and a burst cut in two by
/// their edges would look like two half bursts. The host refuses, on its side, what would take
/// the bucket below minus `limit`: more than a runtime that keeps the limit can send.
///
/// Owns its state and the rule; the core acts on what `admit` returns.
struct FloodGuard: Equatable {
    /// What to do with one request.
    enum Verdict: Equatable {
        /// Handle it.
        case allow
        /// Handle it, and tell the operator, once for the episode this request begins: the guest
        /// reached its limit and is being throttled.
        case throttle(notice: String)
        /// Past what even a runtime that keeps the limit could send: drop it.
        case refuse
        /// The episode lasted `stopAfter`: stop the guest (once); drop this request and the rest.
        case stop(reason: String)
    }

    /// The requests left in the bucket as of `last`; nil while full and untouched.
    private var tokens: Double?
    private var last: Duration = .zero
    /// When the episode under way began, and when the guest was last at its limit.
    private var episodeStart: Duration?
    private var lastAtLimit: Duration = .zero
    /// The guest was told to stop: everything is refused from then on.
    private(set) var stopped = false

    /// Whether an episode is under way at `now`.
    func flooding(at now: Duration, policy: FloodPolicy) -> Bool {
        episodeStart != nil && now - lastAtLimit <= policy.window * 2
    }

    /// Judges one request at `now` (host uptime) by `policy`.
    mutating func admit(at now: Duration, policy: FloodPolicy) -> Verdict {
        if stopped { return .refuse }
        let limit = Double(policy.limit)
        let refilled = (tokens ?? limit) + (now - last) / policy.window * limit
        last = now
        guard refilled - 1 >= -limit else {
            tokens = refilled
            return .refuse
        }
        tokens = min(limit, refilled) - 1
        guard let left = tokens, left < limit / 4 else { return .allow }
        defer { lastAtLimit = now }
        guard let began = episodeStart, flooding(at: now, policy: policy) else {
            episodeStart = now
            return .throttle(
                notice: "reached its limit of \(policy.limit) requests within \(policy.window.secondsText): throttled;"
                    + " stopped if it keeps at it for \(policy.stopAfter.secondsText)")
        }
        guard now - began >= policy.stopAfter else { return .allow }
        stopped = true
        return .stop(
            reason: "kept at its limit of \(policy.limit) requests within \(policy.window.secondsText)"
                + " for \(policy.stopAfter.secondsText)")
    }

    /// A new launch starts afresh.
    mutating func reset() { self = FloodGuard() }
}
