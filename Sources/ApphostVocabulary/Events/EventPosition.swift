import Foundation

/// An event's place in the host's event stream (CONTRACT O1): the run of the host it belongs to
/// and its number in that run, from 1, written `RUN.NUMBER` (`1795544430894.42`), the same over
/// the control socket (`position`) and HTTP (the SSE `id`), so that one taken from either resumes
/// on the other. The run is when that run of the host began, in milliseconds since the Unix epoch:
/// numbers begin at 1 again in each run, and a position of another run is told apart by it.
public struct EventPosition: Sendable, Hashable, CustomStringConvertible {
    public var run: UInt64
    public var number: UInt64

    public init(run: UInt64, number: UInt64) {
        self.run = run
        self.number = number
    }

    public var description: String { "\(run).\(number)" }

    /// Reads `RUN.NUMBER`, both in decimal digits; nil for anything else.
    public init?(_ text: some StringProtocol) {
        let parts = Substring(text).split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let run = Self.digits(parts[0]), let number = Self.digits(parts[1]) else { return nil }
        self.init(run: run, number: number)
    }

    /// A run from `date`: its milliseconds since the Unix epoch.
    public static func run(startedAt date: Date) -> UInt64 {
        UInt64(max(0, (date.timeIntervalSince1970 * 1000).rounded()))
    }

    private static func digits(_ text: Substring) -> UInt64? {
        guard !text.isEmpty, text.utf8.allSatisfy({ (48...57).contains($0) }) else { return nil }
        return UInt64(text)
    }
}

/// Where a follower's stream begins.
public enum EventStart: Sendable, Equatable {
    /// With the next event published.
    case live
    /// With the oldest event the journal holds: "after 0", which no run can mistake.
    case oldest
    /// After an event the follower saw, of this run or another.
    case after(EventPosition)

    /// Reads what a follower sends to resume: `RUN.NUMBER`, or `0` for ``oldest``. Any other bare
    /// number is refused: it could be a position of this run or of an earlier one, and taking it
    /// for this run's would skip as many of its events without a word.
    public init(resumingAfter text: String) throws(EventFilterError) {
        if text == "0" {
            self = .oldest
        } else if let position = EventPosition(text) {
            self = .after(position)
        } else if !text.isEmpty, text.utf8.allSatisfy({ (48...57).contains($0) }) {
            throw EventFilterError(
                "a bare position (\(text)) cannot tell this run of the host from another: give RUN.POSITION as the "
                    + "event stream's ids and ctl events show them, or 0 for everything the host holds")
        } else {
            throw EventFilterError(
                "malformed event position \"\(text)\": expected RUN.POSITION, as the event stream's ids and ctl events "
                    + "show them, or 0 for everything the host holds")
        }
    }
}

/// Which events a follower wants: those of some guests, of some kinds, or both. A notice of
/// events missed always passes, so that a filtered follower still hears of a gap or a restart.
public struct EventFilter: Sendable, Equatable {
    /// Guest ids, as events carry them; empty for every event, a guest's or not.
    public var guests: Set<String>
    /// Empty for every kind.
    public var kinds: Set<HostEvent.Kind>

    public init(guests: Set<String> = [], kinds: Set<HostEvent.Kind> = []) {
        self.guests = guests
        self.kinds = kinds
    }

    public static let everything = EventFilter()

    public func admits(_ event: HostEvent) -> Bool {
        (guests.isEmpty || event.guest.map(guests.contains) == true) && (kinds.isEmpty || kinds.contains(event.kind))
    }

    /// The kinds named in `names`, each a kind's name or a comma-separated list of them.
    public static func kinds(_ names: [String]) throws(EventFilterError) -> Set<HostEvent.Kind> {
        var kinds: Set<HostEvent.Kind> = []
        for name in names.flatMap({ $0.split(separator: ",", omittingEmptySubsequences: false) }) {
            let name = name.trimmingCharacters(in: .whitespaces)
            guard let kind = HostEvent.Kind(rawValue: name) else {
                let known = HostEvent.Kind.allCases.map(\.rawValue).joined(separator: ", ")
                throw EventFilterError("unknown event kind \"\(name)\" (known: \(known))")
            }
            kinds.insert(kind)
        }
        return kinds
    }

    /// The guest ids in `names`, each an id or a comma-separated list of them.
    public static func guests(_ names: [String]) throws(EventFilterError) -> Set<String> {
        var guests: Set<String> = []
        for name in names.flatMap({ $0.split(separator: ",", omittingEmptySubsequences: false) }) {
            let name = name.trimmingCharacters(in: .whitespaces)
            guard !name.isEmpty else { throw EventFilterError("an empty guest id in the event filter") }
            guests.insert(name)
        }
        return guests
    }
}

/// What is wrong with a follower's position or filter, in one line.
public struct EventFilterError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
