/// At most `limit` events within any `window` of time: systemd's StartLimitBurst= within
/// StartLimitIntervalSec=, which the restart policy (X2) and the notification limit (N1) both
/// keep. Times are host uptime.
struct RateWindow: Equatable {
    /// The events admitted within the last window, oldest first.
    private var times: [Duration] = []

    /// Admits an event at `now` if fewer than `limit` were admitted within `window` before it,
    /// and remembers it; returns false, remembering nothing, otherwise.
    mutating func admit(at now: Duration, limit: Int, window: Duration) -> Bool {
        times.removeAll { now - $0 >= window }
        guard times.count < limit else { return false }
        times.append(now)
        return true
    }
}
