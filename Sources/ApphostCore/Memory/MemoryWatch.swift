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

    init(limit: UInt64?) {
        self.limit = limit
    }

    mutating func reading(bytes: UInt64) -> Verdict {
        guard let limit, bytes > limit else {
            over = false
            return .fine
        }
        defer { over = true }
        return over ? .terminateOne : .warn
    }
}
