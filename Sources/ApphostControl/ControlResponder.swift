import ApphostVocabulary

/// What the control server needs from the host: answers to requests, and the event stream.
public protocol ControlResponder: Sendable {
    /// Answers `command` (anything but ``EventsCommand``) with one reply line, without its
    /// newline. `reply` runs once, on any thread.
    func respond(to command: any ControlCommand, reply: @escaping @Sendable (String) -> Void)

    /// Sends `handler` the events the host still holds from `start` on that `filter` admits (with
    /// what it will not get, first: events no longer held, or a restart since the position asked
    /// for), then, when `live`, every such event from now on, in order, until the subscription is
    /// cancelled. The replay runs before this returns. `handler` must not block.
    func follow(
        from start: EventStart, filter: EventFilter, live: Bool, _ handler: @escaping @Sendable (FollowedEvent) -> Void
    ) -> EventSubscription
}
