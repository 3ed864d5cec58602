import Synchronization

/// Hands every host event to each subscriber: the launch command's printer, the control socket's
/// `events` followers and the HTTP API's. Subscribers are called on the publisher's thread (the
/// host queue), in order, so they must not block.
///
/// It numbers the events it publishes (from 1) and keeps the latest in a journal, so that a
/// follower that lost its connection can take up the stream where it left it (CONTRACT O1):
/// ``follow(after:_:)`` replays what the journal still holds after a position, then goes on live.
public final class EventFanOut: Sendable {
    private struct State: ~Copyable {
        var handlers: [Int: @Sendable (FollowedEvent) -> Void] = [:]
        var nextID = 0
        var journal: EventJournal
    }

    private let state: Mutex<State>

    /// `journalCapacity`: how many of the latest events a follower can resume from.
    public init(journalCapacity: Int = 4096) {
        state = Mutex(State(journal: EventJournal(capacity: journalCapacity)))
    }

    public func publish(_ event: HostEvent) {
        // Numbering and the snapshot of handlers in one step: a follower that joins after it finds
        // the event in the journal, one that joined before gets it here; never both, never neither.
        let (position, handlers) = state.withLock { state in
            let position = state.journal.append(event)
            return (position, state.handlers.sorted { $0.key < $1.key }.map(\.value))
        }
        for handler in handlers { handler(.event(position: position, event)) }
    }

    /// Calls `handler` with every event published from now on until the subscription is cancelled.
    public func subscribe(_ handler: @escaping @Sendable (HostEvent) -> Void) -> EventSubscription {
        follow(after: nil) { followed in
            if case .event(_, let event) = followed { handler(event) }
        }
    }

    /// Calls `handler` with the events the journal holds after `position`, then with every event
    /// published from now on, until the subscription is cancelled; with nil, only the ones from
    /// now on. When the journal no longer holds some events after `position` (or `position` is
    /// past the newest, as after a restart of the host), `handler` first hears how many were
    /// missed. The replay runs on the caller's thread, before this returns.
    public func follow(after position: UInt64?, _ handler: @escaping @Sendable (FollowedEvent) -> Void)
        -> EventSubscription
    {
        let id = state.withLock { state in
            if let position {
                let replay = state.journal.entries(after: position)
                if replay.missed != 0 { handler(.missed(count: replay.missed)) }
                for (position, event) in replay.entries { handler(.event(position: position, event)) }
            }
            let id = state.nextID
            state.nextID += 1
            state.handlers[id] = handler
            return id
        }
        return EventSubscription { [weak self] in
            _ = self?.state.withLock { $0.handlers.removeValue(forKey: id) }
        }
    }

    /// The position of the newest event published, 0 before any.
    public var latestPosition: UInt64 { state.withLock { $0.journal.latest } }
}

/// What a follower hears: an event with its position in the stream, or, before a replay, how many
/// events it asked for that the journal no longer holds.
public enum FollowedEvent: Sendable, Equatable {
    case event(position: UInt64, HostEvent)
    /// `count` is nil when the position asked for was past the newest event, so that how many
    /// were missed is unknown (the host restarted and numbers from 1 again).
    case missed(count: UInt64?)
}

/// A subscription to the event stream; cancelling it more than once is harmless.
public final class EventSubscription: Sendable {
    private let onCancel: @Sendable () -> Void

    public init(onCancel: @escaping @Sendable () -> Void) { self.onCancel = onCancel }

    public func cancel() { onCancel() }
}
