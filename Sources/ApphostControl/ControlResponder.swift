import ApphostCore

/// What the control server needs from the host: answers to requests, and the event stream.
public protocol ControlResponder: Sendable {
    /// Answers `command` (anything but ``EventsCommand``) with one reply line, without its
    /// newline. `reply` runs once, on any thread; or never, when the server stops first and
    /// closes the connection.
    func respond(to command: any ControlCommand, reply: @escaping @Sendable (String) -> Void)

    /// Sends every host event from now on to `handler`, in order, until the subscription is cancelled.
    func follow(_ handler: @escaping @Sendable (HostEvent) -> Void) -> EventSubscription
}
