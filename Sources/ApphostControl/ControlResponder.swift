import ApphostCore

/// What the control server needs from the host: answers to requests, and the event stream.
public protocol ControlResponder: Sendable {
    /// Answers `command` (anything but ``EventsCommand``) with one reply line, without its
    /// newline. `reply` runs once, on any thread.
    func respond(to command: any ControlCommand, reply: @escaping @Sendable (String) -> Void)

    /// Sends `handler` the events the host still holds after `position` (with how many it no
    /// longer holds, first), then every event from now on, in order, until the subscription is
    /// cancelled; with nil, only the events from now on. `handler` must not block.
    func follow(after position: UInt64?, _ handler: @escaping @Sendable (FollowedEvent) -> Void) -> EventSubscription
}
