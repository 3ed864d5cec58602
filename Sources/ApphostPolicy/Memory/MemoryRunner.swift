import ApphostModel
import ApphostVocabulary

/// Carries out memory pressure (CONTRACT A4): hands the host's signals to `MemoryWatch` with what
/// the core knows of each guest, and does what the watch says. It owns the watch.
///
/// Confined to the host queue, like the core that keeps it.
public final class MemoryRunner: @unchecked Sendable {
    private var memory: MemoryWatch
    private let outbox: GuestOutbox
    private let log: HostEventLog
    private let hostQueue: any HostExecutor
    weak var lifecycle: (any LifecycleOrders)?
    /// What the watch needs to know of each guest now: where it is in its life, and whether it is shown.
    var facts: () -> [MemoryFacts] = { [] }

    init(limit: UInt64?, outbox: GuestOutbox, log: HostEventLog, hostQueue: any HostExecutor) {
        memory = MemoryWatch(limit: limit)
        (self.outbox, self.log, self.hostQueue) = (outbox, log, hostQueue)
    }

    /// The guest `id` is in use at `now`: it came to the foreground or left it, or launched.
    func used(_ id: String, at now: Duration) { memory.used(id, at: now) }

    /// What the host learns of its memory (A4): a warning, or a reading against its limit.
    public func take(_ signal: MemorySignal) {
        hostQueue.preconditionCurrent()
        switch signal {
        case .warning(let level): perform(memory.warning(level: level, facts()))
        case .usage(let bytes): perform(memory.usage(bytes: bytes, facts()))
        }
    }

    private func perform(_ effects: [MemoryEffect]) {
        for effect in effects {
            switch effect {
            case .record(let kind, let guest, let reason, let name, let message):
                log.record(kind, guest: guest, reason: reason, name: name, message: message)
            case .warn(let id):
                lifecycle?.guest(id).map { outbox.deliver($0, .didReceiveMemoryWarning) }
            case .hold(let id):
                lifecycle?.guest(id)?.held.holdMemoryWarning()
            case .terminate(let id):
                lifecycle?.terminate(id, reason: .memory) { _ in }
            }
        }
    }
}
