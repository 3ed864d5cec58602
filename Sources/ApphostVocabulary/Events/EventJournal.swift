/// The latest host events with their positions in the stream, oldest first: a ring of a fixed
/// capacity, so that what a host keeps for followers that reconnect is bounded (CONTRACT O1).
struct EventJournal {
    /// Slots in the order written, wrapping at `capacity`.
    private var slots: [HostEvent] = []
    private var oldestSlot = 0
    let capacity: Int
    /// The position of the newest event, 0 before any.
    private(set) var latest: UInt64 = 0

    init(capacity: Int) {
        precondition(capacity > 0, "a journal holds at least one event")
        self.capacity = capacity
        slots.reserveCapacity(min(capacity, 1024))
    }

    /// The position of the oldest event held, or `latest + 1` when empty.
    var oldest: UInt64 { latest - UInt64(slots.count) + 1 }

    /// Appends `event`, dropping the oldest when full; answers its position.
    mutating func append(_ event: HostEvent) -> UInt64 {
        latest += 1
        if slots.count < capacity {
            slots.append(event)
        } else {
            slots[oldestSlot] = event
            oldestSlot = (oldestSlot + 1) % capacity
        }
        return latest
    }

    /// What a follower that has seen every event up to `position` is owed.
    struct Replay {
        var entries: [(position: UInt64, event: HostEvent)]
        /// Events after `position` the journal no longer holds: 0 for none, nil when `position`
        /// is past the newest, so that the follower's number is not one of this journal's and
        /// everything held is replayed. (A position of another run of the host never reaches
        /// here as one of this run's: the fan-out tells the runs apart, ``EventPosition``.)
        var missed: UInt64?
    }

    func entries(after position: UInt64) -> Replay {
        guard position <= latest else { return Replay(entries: entries(from: oldest), missed: nil) }
        let first = max(position + 1, oldest)
        return Replay(entries: entries(from: first), missed: first - (position + 1))
    }

    private func entries(from first: UInt64) -> [(position: UInt64, event: HostEvent)] {
        guard first <= latest else { return [] }
        return (first...latest).map { position in
            let offset = Int(position - oldest)
            return (position, slots[(oldestSlot + offset) % slots.count])
        }
    }
}
