import ApphostModel
import ApphostVocabulary

/// Carries out memory pressure (CONTRACT A4): hands the host's signals to `MemoryWatch` with what
/// the core knows of each guest, and does what the watch says. It owns the watch.
///
/// Confined to the host queue, like the core that keeps it.
final class MemoryRunner: @unchecked Sendable {
    private var memory: MemoryWatch
    private let outbox: GuestOutbox
    private let log: HostEventLog
    weak var lifecycle: (any LifecycleOrders)?

    init(limit: UInt64?, outbox: GuestOutbox, log: HostEventLog) {
        memory = MemoryWatch(limit: limit)
        self.outbox = outbox
        self.log = log
    }

    /// The guest `id` is in use at `now`: it came to the foreground or left it, or launched.
    func used(_ id: String, at now: Duration) { memory.used(id, at: now) }

    func take(_ signal: MemorySignal, _ guests: [MemoryFacts]) {
        switch signal {
        case .warning(let level): perform(memory.warning(level: level, guests))
        case .usage(let bytes): perform(memory.usage(bytes: bytes, guests))
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
