import ApphostVocabulary

/// X5 (ABI 1.7): the confirmations one guest's saves asked for (`save_scene_state_confirmed`),
/// from the save's arrival until its runtime is told that the store has it for good, or could not
/// take it. The session keeper opens one per confirmed save and closes it when the store finishes
/// the save; the closed ones wait here while the guest cannot hear them (stopped, B7) and are
/// taken, in the order they closed, when it can. A launch's confirmations go with it: a save that
/// finishes after its guest's runtime is gone confirms nothing to the next one.
///
/// Bounded: the runtime keeps at most `limit` confirmations waiting and refuses a save past it;
/// one that asks for more anyway (a worker whose frames are forged) gets its save kept and its
/// confirmation dropped, so that what the host holds here stays bounded.
struct SaveConfirmations {
    /// APPHOST_SAVE_CONFIRMATIONS_MAX (host.h).
    static let limit = 64

    /// A confirmation open for a save in the store's hands, of one launch of the guest.
    struct Ticket: Equatable {
        var id: SaveConfirmationID
        fileprivate var launch: Int
    }

    /// Which launch of the guest the confirmations belong to; `reset` starts the next.
    private var launch = 0
    /// Opened and not closed yet: their saves are in the store's hands.
    private(set) var openCount = 0
    /// Closed, in order, until the runtime is told.
    private var closed: [(id: SaveConfirmationID, stored: Bool)] = []

    /// A ticket for the save confirmation `id` asked for; nil when `limit` are open or closed and
    /// untold already (the save goes on, unconfirmed).
    mutating func open(_ id: SaveConfirmationID) -> Ticket? {
        guard openCount + closed.count < Self.limit else { return nil }
        openCount += 1
        return Ticket(id: id, launch: launch)
    }

    /// The store finished the ticket's save: `stored` for good, or not. A ticket of an earlier
    /// launch closes nothing.
    mutating func close(_ ticket: Ticket, stored: Bool) {
        guard ticket.launch == launch else { return }
        openCount -= 1
        closed.append((ticket.id, stored))
    }

    /// The calls that tell the runtime what closed, in order; taken as told.
    mutating func take() -> [GuestCall] {
        defer { closed.removeAll() }
        return closed.map { .saveConfirmation($0.id, stored: $0.stored) }
    }

    /// The guest's runtime is gone: none of its confirmations is told, and a later launch starts
    /// with none.
    mutating func reset() {
        launch += 1
        openCount = 0
        closed.removeAll()
    }
}
