import ApphostVocabulary

/// What each guest's container refused (CONTRACT X6). The worker reports each system call its
/// filter refused once, by name; this part keeps the names of each guest's current worker (a
/// bounded list: a guest cannot make the host keep more) and says what operators see of each.
struct SandboxRefusals {
    /// More names than any guest needs to see what it tried; the rest are counted in no list.
    static let kept = 64

    private var refusals: [String: (worker: Int32, calls: [String])] = [:]

    /// The event for the guest `id`'s worker `worker` refusing `call`; nil for a name that worker
    /// already reported (a worker reports each once, so only a broken one repeats).
    mutating func refused(_ call: String, by id: String, worker: Int32) -> HostEvent.Kind? {
        var entry = refusals[id].flatMap { $0.worker == worker ? $0 : nil } ?? (worker: worker, calls: [])
        guard !entry.calls.contains(call) else { return nil }
        if entry.calls.count < Self.kept { entry.calls.append(call) }
        refusals[id] = entry
        return .sandboxRefused
    }

    /// What the guest `id`'s worker `worker` refused so far.
    func calls(of id: String, worker: Int32) -> [String] {
        refusals[id].flatMap { $0.worker == worker ? $0.calls : nil } ?? []
    }

    /// Why `call` is refused, for the operator: no entitlement allows the calls the filter
    /// refuses (sandbox.h lists them).
    static func explanation(of call: String) -> String {
        "the container refused \(call): no entitlement allows it (CONTRACT X6)"
    }
}

/// Carries out what `SandboxRefusals` says for each report of the worker's call filter; owns the
/// refusals. Confined to the host queue, like the core that keeps it.
public final class SandboxRunner: @unchecked Sendable {
    private var refusals = SandboxRefusals()
    private let log: HostEventLog

    init(log: HostEventLog) { self.log = log }

    func report(_ event: GuestEvent, from guest: GuestRecord) {
        guard case .sandboxRefused(let call) = event, let worker = guest.channel?.processID,
            let kind = refusals.refused(call, by: guest.id, worker: worker)
        else { return }
        log.record(kind, guest: guest.id, name: call, message: SandboxRefusals.explanation(of: call))
    }

    /// The guest's container, for operators: nil where it runs in the host's process or not at all.
    func status(of guest: GuestRecord) -> SandboxStatus? {
        guard let channel = guest.channel, let parts = channel.sandboxParts, let worker = channel.processID else {
            return nil
        }
        return SandboxStatus(parts: parts, refused: refusals.calls(of: guest.id, worker: worker))
    }
}
