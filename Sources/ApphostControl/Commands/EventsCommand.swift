import ApphostVocabulary
import Foundation

/// `{"command":"events"}`: stream every host event as JSON lines until the connection closes.
/// A transport streams instead of replying (ControlConnectionHandler, and the HTTP API's
/// `GET /v1/events`, which builds one of these from its query); applied, it is refused.
///
/// Each line carries its `position` in the host's stream, `RUN.NUMBER` (``EventPosition``), the
/// same text as the HTTP stream's ids. With `"after"`, the stream begins with the events the host
/// still holds after that position, preceded by an `events-dropped` line when some of them are no
/// longer held or the position is of an earlier run of the host (`"name":"restarted"`: the host
/// restarted, and everything this run holds follows). `"after":"0"` begins with the oldest event
/// held; any other bare number is refused, since it cannot say which run it counts in.
/// `"guests"` and `"kinds"` keep only the events of those guests and of those kinds (each member
/// a name or a comma-separated list); notices of missed events always pass. With
/// `"follow":false` the stream ends after what the host holds.
///
/// Validated here, once for both transports: an unknown kind or a malformed position is one line.
public struct EventsCommand: ControlCommand, Equatable {
    public static let name = "events"
    public typealias Response = ControlMessage

    /// The position of the last event the follower has seen (`RUN.NUMBER`, or `0` for the
    /// oldest held); nil to begin with the next event.
    public var after: String?
    /// Guest ids, as events carry them; nil or empty for every event.
    public var guests: [String]?
    /// Event kinds, such as `log` or `app-state`; nil or empty for every kind.
    public var kinds: [String]?
    /// False: only what the host holds, then the end of the stream. Nil means true.
    public var follow: Bool?

    public init(after: String? = nil, guests: [String] = [], kinds: [String] = [], follow: Bool = true) {
        self.after = after
        self.guests = guests.isEmpty ? nil : guests
        self.kinds = kinds.isEmpty ? nil : kinds
        self.follow = follow ? nil : false
    }

    private enum CodingKeys: String, CodingKey { case after, guests, kinds, follow }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        // A number too, so that a client that sends one hears why it is refused (validate).
        if let number = try? container.decodeIfPresent(UInt64.self, forKey: .after) {
            after = String(number)
        } else {
            after = try container.decodeIfPresent(String.self, forKey: .after)
        }
        guests = try container.decodeIfPresent([String].self, forKey: .guests)
        kinds = try container.decodeIfPresent([String].self, forKey: .kinds)
        follow = try container.decodeIfPresent(Bool.self, forKey: .follow)
    }

    public func validate() throws(ControlProtocolError) {
        _ = try start
        _ = try filter
    }

    /// Where the stream begins.
    public var start: EventStart {
        get throws(ControlProtocolError) {
            guard let after else { return .live }
            do throws(EventFilterError) {
                return try EventStart(resumingAfter: after)
            } catch {
                throw ControlProtocolError(error.message)
            }
        }
    }

    /// Which events the follower gets.
    public var filter: EventFilter {
        get throws(ControlProtocolError) {
            do throws(EventFilterError) {
                return EventFilter(
                    guests: try EventFilter.guests(guests ?? []), kinds: try EventFilter.kinds(kinds ?? []))
            } catch {
                throw ControlProtocolError(error.message)
            }
        }
    }

    /// Whether the stream goes on after what the host holds.
    public var isLive: Bool { follow ?? true }

    /// What a follower of the control socket gets for `followed`: the event's JSON line with its
    /// position first, or, for events it missed, an `events-dropped` event saying how many.
    public static func streamLine(_ followed: FollowedEvent) -> String {
        switch followed {
        case .event(let position, let event):
            // The event's own object, with the position put in front of its members.
            return #"{"position":"\#(position)","# + event.jsonLine().dropFirst()
        case .missed(let count, let restarted):
            return notice(count: count, restarted: restarted).jsonLine()
        }
    }

    /// The `events-dropped` event that tells a follower what it missed.
    public static func notice(count: UInt64?, restarted: Bool) -> HostEvent {
        if restarted {
            return HostEvent(
                time: Date(), kind: .eventsDropped, name: "restarted",
                message:
                    "the host restarted since the position asked for: what came after it in that run is not held; "
                    + "everything this run holds follows")
        }
        let what = count.map { "\($0) event\($0 == 1 ? "" : "s")" } ?? "events"
        return HostEvent(
            time: Date(), kind: .eventsDropped, message: "\(what) after the position asked for are no longer held")
    }

    public func apply(to host: any ControlTarget, reply: @escaping Reply) throws(HostCommandError) {
        throw HostCommandError.invalid("\(line) cannot be answered with one reply")
    }
}
