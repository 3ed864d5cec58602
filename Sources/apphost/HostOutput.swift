import ApphostCore
import ApphostHost
import Foundation
import Logging

/// What `apphost launch` prints: its events on standard output, and its log and errors on standard
/// error, each through a `LineWriter`, so that a reader that stops reading never stops the host
/// (CONTRACT X2). What a writer cannot keep is dropped, counted and said: in the stream itself once
/// it can write again, in the host's log, and (for events) in `ctl ps`.
final class HostOutput: Sendable {
    /// How long `flush` waits for a reader that takes nothing.
    static let patience = Duration.seconds(2)

    let events: LineWriter
    let errors: LineWriter
    /// Whether the event lines, and the log and error lines, carry syslog priorities for journald
    /// (`--log-format`): each stream as its own descriptor goes to the journal or not.
    let journalEvents: Bool
    let journalErrors: Bool

    /// Diverts standard output (`Output.divertStandardOutput`) so that nothing but the events
    /// reaches it, and starts the writers. The host's log must be bootstrapped before events flow.
    init(json: Bool, format: LogFormatOption = .plain) {
        // Before the diversion, which points descriptor 1 at standard error.
        let journalEvents = format.journal(STDOUT_FILENO)
        let journalErrors = format.journal(STDERR_FILENO)
        self.journalEvents = journalEvents
        self.journalErrors = journalErrors
        let eventsDescriptor = Output.divertStandardOutput()
        errors = LineWriter(
            descriptor: STDERR_FILENO,
            notice: { count in
                let line = "apphost: dropped \(count) lines: standard error is not being read"
                return (journalErrors ? JournalFormat.line(line, priority: JournalFormat.warning) : line) + "\n"
            })
        events = LineWriter(
            descriptor: eventsDescriptor,
            notice: { count in
                let event = HostEvent(time: Date(), kind: .eventsDropped, message: Self.dropped(count))
                let line = json ? event.jsonLine() : event.humanLine
                return (journalEvents ? JournalFormat.line(line, priority: JournalFormat.priority(of: event)) : line)
                    + "\n"
            },
            onNotice: { count in Logger(label: "apphost").warning("\(Self.dropped(count))") })
    }

    /// Where the host's log handler writes: the error writer, one line a record, with its
    /// priority when standard error goes to the journal.
    var logStream: any TextOutputStream & Sendable {
        journalErrors ? JournalLogStream(writer: errors) : LineWriterStream(errors)
    }

    static func dropped(_ count: Int) -> String {
        "dropped \(count) event line\(count == 1 ? "" : "s"): standard output is not being read"
    }

    /// An event's line, with the event's priority when the events go to the journal.
    func event(_ event: HostEvent, line: String) {
        events.write(
            (journalEvents ? JournalFormat.line(line, priority: JournalFormat.priority(of: event)) : line) + "\n")
    }

    /// An error line, as `Output.error` writes it.
    func error(_ message: String) {
        let line = "apphost: \(TerminalText.escaped(message))"
        errors.write((journalErrors ? JournalFormat.line(line, priority: JournalFormat.error) : line) + "\n")
    }

    /// Before the process exits: lets the writers finish, unless their readers take nothing for
    /// `patience`.
    func flush() {
        events.flush(patience: Self.patience)
        errors.flush(patience: Self.patience)
    }
}
