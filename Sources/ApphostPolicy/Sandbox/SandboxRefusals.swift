import ApphostModel
import ApphostVocabulary

/// What each guest's container refused (CONTRACT X6, A6). The worker reports each system call its
/// filter refused once, by name, and the runtime each host function refused for an entitlement;
/// this part keeps the names of each guest's current worker (a bounded list: a guest cannot make
/// the host keep more) and says what operators see of each.
struct SandboxRefusals {
    /// More names than any guest needs to see what it tried; the rest are counted in no list.
    static let kept = 64

    private var refusals: [String: (worker: Int32, calls: [String])] = [:]

    /// The event for the guest `id`'s worker `worker` (0 in the host's process) refusing `call`,
    /// with its name and message; nil for a name that worker already reported.
    mutating func refused(_ call: String, by id: String, worker: Int32) -> (
        kind: HostEvent.Kind, name: String, message: String
    )? {
        var entry = refusals[id].flatMap { $0.worker == worker ? $0 : nil } ?? (worker: worker, calls: [])
        guard !entry.calls.contains(call) else { return nil }
        if entry.calls.count < Self.kept { entry.calls.append(call) }
        refusals[id] = entry
        guard let entitlement = Self.entitlement(allowing: call), let name = entitlement.name else {
            return (.sandboxRefused, call, "the container refused \(call): no entitlement allows it (CONTRACT X6)")
        }
        return (
            .entitlementMissing, name,
            "the container refused \(call): the guest does not declare the \(name) entitlement (CONTRACT A6)"
        )
    }

    /// The entitlement that would have allowed `call`, by the names the worker and the runtime give
    /// (apphost_messages.h, SANDBOX_REFUSED); nil for a call none allows.
    static func entitlement(allowing call: String) -> GuestDescriptor.Capabilities? {
        if call.hasPrefix("socket(") { return .network }
        if call.hasPrefix("set_configuration(") { return .audioInput }
        return nil
    }

    /// What the guest `id`'s worker `worker` refused so far.
    func calls(of id: String, worker: Int32) -> [String] {
        refusals[id].flatMap { $0.worker == worker ? $0.calls : nil } ?? []
    }
}

/// Carries out what `SandboxRefusals` says for each report of the worker's call filter; owns the
/// refusals. Confined to the host queue, like the core that keeps it.
public final class SandboxRunner: @unchecked Sendable {
    private var refusals = SandboxRefusals()
    private let log: HostEventLog

    init(log: HostEventLog) { self.log = log }

    func report(_ event: GuestEvent, from guest: GuestRecord) {
        guard case .sandboxRefused(let call) = event,
            let refusal = refusals.refused(call, by: guest.id, worker: guest.channel?.processID ?? 0)
        else { return }
        log.record(refusal.kind, guest: guest.id, name: refusal.name, message: refusal.message)
    }

    /// The guest's container, for operators: nil where it runs in the host's process or not at all.
    func status(of guest: GuestRecord) -> SandboxStatus? {
        guard let channel = guest.channel, let parts = channel.sandboxParts, let worker = channel.processID else {
            return nil
        }
        return SandboxStatus(parts: parts, refused: refusals.calls(of: guest.id, worker: worker))
    }
}
