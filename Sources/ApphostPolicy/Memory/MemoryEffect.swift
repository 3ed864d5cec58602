import ApphostModel
import ApphostVocabulary

/// What the memory watch says should happen; its runner carries the effects out in order
/// (`MemoryRunner`).
enum MemoryEffect: Equatable, Sendable {
    /// Record this event, of the host's or of a guest's.
    case record(
        HostEvent.Kind, guest: String? = nil, reason: TransitionReason, name: String? = nil, message: String? = nil)
    /// Send the guest its memory warning (did_receive_memory_warning).
    case warn(String)
    /// Keep one memory warning for the stopped guest, for when it resumes (B8).
    case hold(String)
    /// Terminate the guest, reason memory; its saved state survives.
    case terminate(String)
}

/// What the memory watch needs to know of a guest from the core at the moment of an input:
/// where it is in its life (`life`), and whether it is shown.
struct MemoryFacts: CarriesGuestLife, Equatable, Sendable {
    var id: String
    var life: GuestLife
    /// One of its scenes is shown (in the layout).
    var visible: Bool
}

extension MemoryFacts {
    /// What `guest` is now, shown or not in `layout`.
    init(_ guest: GuestRecord, in layout: Layout) {
        self.init(id: guest.id, life: GuestLife(guest), visible: layout.visible.contains { $0.guest == guest.id })
    }
}
