import ApphostVocabulary

/// Memory pressure (CONTRACT A4): warnings to the guests, and terminations in jetsam order when
/// the host stays over its limit. A suspended guest gets its warning when it resumes (B8), which
/// `HeldDeliveries` keeps for it.
extension HostCore {
    /// Warns every running guest; a suspended one gets one warning when it resumes (B8). At
    /// `.critical` the host then terminates its suspended guests, least recently used first;
    /// their saved state survives, so they relaunch and restore later.
    public func memoryWarning(level: MemoryPressure = .warning) {
        assertOnHostQueue()
        record(.memoryWarning, reason: .memory, name: level.rawValue)
        for guest in guests where guest.phase == .running && guest.channel != nil {
            if guest.stopped {
                guest.held.holdMemoryWarning()
            } else {
                deliver(guest, .didReceiveMemoryWarning)
            }
        }
        guard level == .critical else { return }
        for guest in jetsamOrder() where guest.suspended { terminate(guest.id, reason: .memory) }
    }

    /// A reading of the host's memory (its own and its workers'), checked against its limit.
    /// Going over warns the guests; staying over at the next reading terminates one guest, the
    /// least recently used suspended one first, the foreground one last (A4). Call it at a steady
    /// pace, so that memory freed by a termination shows before the next one.
    public func memoryUsage(bytes: UInt64) {
        assertOnHostQueue()
        switch memory.reading(bytes: bytes) {
        case .fine: return
        case .warn: return memoryWarning()
        case .terminateOne: break
        }
        let limit = memory.limit ?? 0
        guard !guests.contains(where: { $0.phase == .terminating }),
            let victim = jetsamOrder().first(where: { !$0.changingSuspension })
        else { return }
        record(
            .error, guest: victim.id, reason: .memory,
            message: "host memory \(bytes / 1_048_576) MB is over its limit of \(limit / 1_048_576) MB")
        terminate(victim.id, reason: .memory)
    }

    /// Running guests in the order memory pressure ends them: suspended ones, then background
    /// ones, then the foreground one, each band least recently used first.
    private func jetsamOrder() -> [GuestRecord] {
        func band(_ guest: GuestRecord) -> Int {
            if guest.suspended { return 0 }
            return layout.visible.contains { $0.guest == guest.id } ? 2 : 1
        }
        return guests.filter { $0.phase == .running && $0.channel != nil }
            .sorted { (band($0), memory.lastUsed($0.id)) < (band($1), memory.lastUsed($1.id)) }
    }
}
