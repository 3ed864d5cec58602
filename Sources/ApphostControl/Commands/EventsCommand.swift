import ApphostCore
import Foundation

/// `{"command":"events"}`: stream every host event as JSON lines until the connection closes.
/// A transport streams instead of replying (ControlConnectionHandler); applied, it is refused.
///
/// Each line carries its `position` in the host's stream. With `"after": N`, the stream begins
/// with the events the host still holds after position N (CONTRACT O1: a follower that
/// reconnects resumes where it left off), preceded by an `events-dropped` line when some of them
/// are no longer held.
public struct EventsCommand: ControlCommand, Equatable {
    public static let name = "events"

    /// The position of the last event the follower has seen; nil to begin with the next event.
    public var after: UInt64?

    public init(after: UInt64? = nil) { self.after = after }

    /// What a follower of the control socket gets for `followed`: the event's JSON line with its
    /// position first, or, for events it missed, an `events-dropped` event saying how many.
    public static func streamLine(_ followed: FollowedEvent) -> String {
        switch followed {
        case .event(let position, let event):
            // The event's own object, with the position put in front of its members.
            return #"{"position":\#(position),"# + event.jsonLine().dropFirst()
        case .missed(let count):
            let what = count.map { "\($0) event\($0 == 1 ? "" : "s")" } ?? "events from before the host restarted"
            let message = "\(what) after the position asked for are no longer held"
            return HostEvent(time: Date(), kind: .eventsDropped, message: message).jsonLine()
        }
    }

    public func apply(
        to host: any ControlTarget, reply: @escaping @Sendable (Result<ControlMessage, HostCommandError>) -> Void
    ) throws(HostCommandError) {
        throw HostCommandError.invalid("\(line) cannot be answered with one reply")
    }
}
