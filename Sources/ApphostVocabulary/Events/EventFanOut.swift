import Foundation
import Synchronization

/// Hands every host event to each subscriber: the launch command's printer, the control socket's
/// `events` followers and the HTTP API's. Subscribers are called on the publisher's thread (the
/// host queue), in order, so they must not block.
///
/// It numbers the events it publishes (from 1) and keeps the latest in a journal, so that a
/// follower that lost its connection can take up the stream where it left it (CONTRACT O1):
/// ``follow(from:filter:live:_:)`` replays what the journal still holds after a position, then goes
/// on live. Positions carry the run of the host (``EventPosition``), so that a follower that comes
/// back with one of an earlier run hears that the host restarted, never a silent skip.
public final class EventFanOut: Sendable {
    private struct Follower {
        var filter: EventFilter
        var handler: @Sendable (FollowedEvent) -> Void
    }

    private struct State: ~Copyable {
        var followers: [Int: Follower] = [:]
        var nextID = 0
        var journal: EventJournal
    }

    private let state: Mutex<State>
    /// This run of the host, as its positions carry it: when it began, in milliseconds since the
    /// Unix epoch (``EventPosition``).
    public let run: UInt64

    /// `run`: this run of the host (by default, now); `journalCapacity`: how many of the latest
    /// events a follower can resume from.
    public init(run: UInt64 = EventPosition.run(startedAt: Date()), journalCapacity: Int = 4096) {
        self.run = run
        state = Mutex(State(journal: EventJournal(capacity: journalCapacity)))
    }

    public func publish(_ event: HostEvent) {
        // Numbering and the snapshot of followers in one step: a follower that joins after it finds
        // the event in the journal, one that joined before gets it here; never both, never neither.
        let (number, followers) = state.withLock { state in
            let number = state.journal.append(event)
            return (number, state.followers.sorted { $0.key < $1.key }.map(\.value))
        }
        let followed = FollowedEvent.event(position: EventPosition(run: run, number: number), event)
        for follower in followers where follower.filter.admits(event) { follower.handler(followed) }
    }

    /// Calls `handler` with every event published from now on until the subscription is cancelled.
    public func subscribe(_ handler: @escaping @Sendable (HostEvent) -> Void) -> EventSubscription {
        follow(from: .live) { followed in
            if case .event(_, let event) = followed { handler(event) }
        }
    }

    /// Calls `handler` with the events the journal holds from `start` on that `filter` admits,
    /// then, when `live`, with every such event published from now on, until the subscription is
    /// cancelled. Before the replay, `handler` hears of the events after the position asked for
    /// that it will not get: those the journal no longer holds, counted, or, for a position of
    /// another run of the host (it restarted since), an unknown number, and then everything this
    /// run holds. The replay runs on the caller's thread, before this returns.
    public func follow(
        from start: EventStart, filter: EventFilter = .everything, live: Bool = true,
        _ handler: @escaping @Sendable (FollowedEvent) -> Void
    ) -> EventSubscription {
        let id = state.withLock { state -> Int? in
            let replay: EventJournal.Replay
            var restarted = false
            switch start {
            case .live:
                replay = EventJournal.Replay(entries: [], missed: 0)
            case .oldest:
                replay = state.journal.entries(after: 0)
            case .after(let position) where position.run == run:
                replay = state.journal.entries(after: position.number)
            case .after:
                restarted = true
                replay = state.journal.entries(after: 0)
            }
            if restarted || replay.missed != 0 {
                handler(.missed(count: restarted ? nil : replay.missed, restarted: restarted))
            }
            for (number, event) in replay.entries where filter.admits(event) {
                handler(.event(position: EventPosition(run: run, number: number), event))
            }
            guard live else { return nil }
            let id = state.nextID
            state.nextID += 1
            state.followers[id] = Follower(filter: filter, handler: handler)
            return id
        }
        guard let id else { return EventSubscription {} }
        return EventSubscription { [weak self] in
            _ = self?.state.withLock { $0.followers.removeValue(forKey: id) }
        }
    }

    /// The position of the newest event published, number 0 before any.
    public var latestPosition: EventPosition { EventPosition(run: run, number: state.withLock { $0.journal.latest }) }
}

/// What a follower hears: an event with its position in the stream, or, before a replay, how many
/// events after the position it asked for it will not hear.
public enum FollowedEvent: Sendable, Equatable {
    case event(position: EventPosition, HostEvent)
    /// `count` is nil when unknown: the position asked for is of another run of the host
    /// (`restarted`), or past this run's newest event.
    case missed(count: UInt64?, restarted: Bool)
}

/// A subscription to the event stream; cancelling it more than once is harmless.
public final class EventSubscription: Sendable {
    private let onCancel: @Sendable () -> Void

    public init(onCancel: @escaping @Sendable () -> Void) { self.onCancel = onCancel }

    public func cancel() { onCancel() }
}
