import ApphostVocabulary
import Synchronization

/// What one event-stream follower has been handed and not yet written, at most `limit` events,
/// written in batches: whatever came while the last write was under way goes out in the next one.
/// Under a flood, one write per event kept the server's event loops so busy with the followers'
/// writes that a new request waited seconds for its turn (issue 34, point 6); a batch costs the
/// loops one write, however many events it holds. Past `limit`, the follower is told so once and
/// its stream ends.
final class FollowerBacklog: Sendable {
    private struct Pending {
        var events: [FollowedEvent] = []
        var keepAlive = false
        var overflowed = false
    }

    let limit: Int
    private let pending = Mutex(Pending())
    /// Rung when something is pending; it holds one ring, however many were rung meanwhile.
    private let doorbell: AsyncStream<Void>.Continuation
    private let rings: AsyncStream<Void>

    init(limit: Int) {
        self.limit = limit
        (rings, doorbell) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    /// Hands over one event; never waits (the host queue calls it).
    func yield(_ followed: FollowedEvent) {
        let ring = pending.withLock { pending in
            if pending.overflowed { return false }
            if pending.events.count < limit {
                pending.events.append(followed)
            } else {
                pending.overflowed = true
            }
            return true
        }
        if ring { doorbell.yield() }
    }

    /// Asks for a keep-alive comment, written only if no event is.
    func keepAlive() {
        pending.withLock { $0.keepAlive = true }
        doorbell.yield()
    }

    /// Ends ``drain(message:overflowNotice:write:)`` once it has written what it was ringing for.
    func finish() { doorbell.finish() }

    /// Writes what is handed over, each batch with one call of `write`, until ``finish()`` or an
    /// overflow, whose notice ends the last batch. True when it ended for an overflow.
    func drain(
        message: (FollowedEvent) -> String, overflowNotice: String, write: (String) async throws -> Void
    ) async throws -> Bool {
        for await _ in rings {
            let (events, keepAlive, overflowed) = pending.withLock { pending in
                defer {
                    pending.events = []
                    pending.keepAlive = false
                }
                return (pending.events, pending.keepAlive, pending.overflowed)
            }
            var text = ""
            for followed in events { text += message(followed) }
            if overflowed {
                try await write(text + overflowNotice)
                return true
            }
            if text.isEmpty {
                guard keepAlive else { continue }
                text = ": keep-alive\n\n"
            }
            try await write(text)
        }
        return false
    }
}
