import ApphostControl
import ApphostVocabulary

/// Prints host events, one a line: `HostEvent.humanLine`, or `jsonLine` for `--json`. Shared by
/// `launch`, `ctl events` and `ctl logs` so that they print the same format.
struct EventPrinter: Sendable {
    /// How a plain line from the control socket reads.
    enum Style: Sendable {
        /// The event's human line (`launch`).
        case plain
        /// Its position, then its human line, so that an operator sees where to resume
        /// (`ctl events`); a notice of missed events, which has none, has `-`.
        case positioned
        /// A log's line: time, level and message (`ctl logs`); a notice as its human line.
        case log
    }

    let json: Bool
    var style = Style.plain
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

    /// What a line of the control socket's stream holds beside the event.
    private struct Positioned: Decodable {
        var position: String?
    }

    /// Prints an event line from the control socket. JSON lines pass through as the host wrote
    /// them (decoding and encoding again could move a timestamp by a millisecond); a line this
    /// version cannot read (a newer host's event) is passed through rather than lost.
    func print(line: String) {
        guard !json, let event = try? ControlCoding.decode(HostEvent.self, from: line) else { return write(line) }
        switch style {
        case .plain:
            print(event)
        case .positioned:
            let position = (try? ControlCoding.decode(Positioned.self, from: line))?.position ?? "-"
            write("\(TerminalText.escaped(position)) \(event.humanLine)")
        case .log:
            write(event.kind == .log ? event.humanLogLine : event.humanLine)
        }
    }
}
