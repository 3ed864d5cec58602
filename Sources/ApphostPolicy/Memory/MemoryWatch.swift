import ApphostModel
import ApphostVocabulary

/// The host's memory readings against its limit (CONTRACT A4): the first reading over it warns
/// the guests, each later one while still over ends one guest, and a reading back under starts
/// over. It decides whom to warn and whom to end, least recently used first, and returns that as
/// values (`MemoryEffect`) for its runner to carry out; it owns its readings and each guest's last
/// use, and nothing else writes them.
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

    // MARK: Decisions

    /// Warns every running guest; a stopped one gets one warning when it resumes (B8). At
    /// `.critical` the suspended guests are then terminated, least recently used first; their
    /// saved state survives, so they relaunch and restore later. `guests` in the core's order.
    func warning(level: MemoryPressure = .warning, _ guests: [MemoryFacts]) -> [MemoryEffect] {
        var effects: [MemoryEffect] = [.record(.memoryWarning, reason: .memory, name: level.rawValue)]
        for guest in guests where guest.running {
            effects.append(guest.stopped ? .hold(guest.id) : .warn(guest.id))
        }
        guard level == .critical else { return effects }
        for guest in jetsamOrder(guests) where guest.suspended { effects.append(.terminate(guest.id)) }
        return effects
    }

    /// A reading of the host's memory (its own and its workers'), checked against its limit.
    /// Going over warns the guests; staying over at the next reading terminates one guest, the
    /// least recently used suspended one first, the foreground one last (A4), unless one is being
    /// terminated already.
    mutating func usage(bytes: UInt64, _ guests: [MemoryFacts]) -> [MemoryEffect] {
        switch reading(bytes: bytes) {
        case .fine: return []
        case .warn: return warning(guests)
        case .terminateOne: break
        }
        guard !guests.contains(where: { $0.phase == .terminating }),
            let victim = jetsamOrder(guests).first(where: { !$0.changingSuspension })
        else { return [] }
        let limit = limit ?? 0
        return [
            .record(
                .error, guest: victim.id, reason: .memory,
                message: "host memory \(bytes / 1_048_576) MB is over its limit of \(limit / 1_048_576) MB"),
            .terminate(victim.id),
        ]
    }

    /// Running guests in the order memory pressure ends them: suspended ones, then background
    /// ones, then the shown ones, each band least recently used first.
    private func jetsamOrder(_ guests: [MemoryFacts]) -> [MemoryFacts] {
        func band(_ guest: MemoryFacts) -> Int {
            if guest.suspended { return 0 }
            return guest.visible ? 2 : 1
        }
        return guests.filter(\.running).sorted { (band($0), lastUsed($0.id)) < (band($1), lastUsed($1.id)) }
    }
}
