/// The host's memory readings against its limit (CONTRACT A4): the first reading over it warns
/// the guests, each later one while still over ends one guest, and a reading back under starts
/// over. It decides; the core acts.
struct MemoryWatch {
    /// What a reading calls for.
    enum Verdict: Equatable {
        /// Under the limit, or no limit.
        case fine
        /// Just went over: warn the guests.
        case warn
        /// Still over since the last reading: end one guest.
        case terminateOne
    }

    /// The limit in bytes; nil for none.
    let limit: UInt64?
    /// The last reading was over the limit: the guests have been warned.
    private(set) var over = false
    /// When each guest was last in the foreground, or launched (host uptime): memory pressure
    /// ends the least recently used first. Kept across its runs.
    private var usedAt: [String: Duration] = [:]

    init(limit: UInt64?) {
        self.limit = limit
    }

    /// The guest `id` is in use at `now`: it came to the foreground or left it, or launched.
    mutating func used(_ id: String, at now: Duration) { usedAt[id] = now }

    /// When the guest `id` was last in use; zero if never.
    func lastUsed(_ id: String) -> Duration { usedAt[id] ?? .zero }

    mutating func reading(bytes: UInt64) -> Verdict {
        guard let limit, bytes > limit else {
            over = false
            return .fine
        }
        defer { over = true }
        return over ? .terminateOne : .warn
    }
}
