import ApphostVocabulary

/// The core's side of memory pressure (CONTRACT A4): it hands the warnings and readings to
/// `MemoryWatch` with what it knows of each guest, and carries out what the watch says.
extension HostCore {
    /// Warns every running guest; a suspended one gets one warning when it resumes (B8). At
    /// `.critical` the host then terminates its suspended guests, least recently used first.
    public func memoryWarning(level: MemoryPressure = .warning) {
        assertOnHostQueue()
        perform(memory.warning(level: level, guests.map { MemoryFacts($0, in: layout) }))
    }

    /// A reading of the host's memory (its own and its workers'), checked against its limit (A4).
    /// Call it at a steady pace, so that memory freed by a termination shows before the next one.
    public func memoryUsage(bytes: UInt64) {
        assertOnHostQueue()
        perform(memory.usage(bytes: bytes, guests.map { MemoryFacts($0, in: layout) }))
    }

    /// Carries out what the memory watch said, in order.
    private func perform(_ effects: [MemoryEffect]) {
        for effect in effects {
            switch effect {
            case .record(let kind, let guest, let reason, let name, let message):
                record(kind, guest: guest, reason: reason, name: name, message: message)
            case .warn(let id):
                if let guest = guest(id) { deliver(guest, .didReceiveMemoryWarning) }
            case .hold(let id):
                guest(id)?.held.holdMemoryWarning()
            case .terminate(let id):
                terminate(id, reason: .memory)
            }
        }
    }
}
