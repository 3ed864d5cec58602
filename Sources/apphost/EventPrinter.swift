import ApphostControl
import ApphostCore

/// Prints host events, one a line: `HostEvent.humanLine`, or `jsonLine` for `--json`. Shared by
/// `launch` and `ctl events` so that both print the same format.
struct EventPrinter: Sendable {
    let json: Bool
    /// Where the lines go: straight to standard output (`ctl events`), or, for `launch`, through
    /// the writer that never blocks the host.
    var write: @Sendable (String) -> Void = { Output.line($0) }

    func print(_ event: HostEvent) {
        write(line(event))
    }

    /// The event's line, as `print` writes it.
    func line(_ event: HostEvent) -> String {
        json ? event.jsonLine() : event.humanLine
    }

    /// Prints an event line from the control socket. JSON lines pass through as the host wrote
    /// them (decoding and encoding again could move a timestamp by a millisecond); a line this
    /// version cannot read (a newer host's event) is passed through rather than lost.
    func print(line: String) {
        guard !json, let event = try? ControlCoding.decode(HostEvent.self, from: line) else { return write(line) }
        print(event)
    }
}
