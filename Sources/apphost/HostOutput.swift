import ApphostService
import ApphostVocabulary
import Foundation
import Logging

/// What `apphost launch` prints: its events on standard output, and its log and errors on standard
/// error, each through a `LineWriter`, so that a reader that stops reading never stops the host
/// (CONTRACT X2). What a writer cannot keep is dropped, counted and said: in the stream itself once
/// it can write again, in the host's log, and (for events) in `ctl ps`.
///
/// Under journald (`--log-format`), what would go to a stream the journal reads goes to journald's
/// native socket instead when it listens, each event and each log record one entry with fields of
/// its own (`JournalFormat`), through a writer of its own: the host never waits for journald
/// either. Without that socket, the lines on the stream carry syslog priorities.
final class HostOutput: Sendable {
    /// How long `flush` waits for a reader that takes nothing.
    static let patience = Duration.seconds(2)

    let events: LineWriter
    let errors: LineWriter
    /// Whether the event lines, and the log and error lines, go to the journal (`--log-format`):
    /// each stream as its own descriptor goes to the journal or not.
    let journalEvents: Bool
    let journalErrors: Bool
    /// The entries for journald's native socket, when either stream goes to the journal and the
    /// socket listens; what goes to the journal goes there then, not to the stream.
    let journal: LineWriter?

    /// Diverts standard output (`Output.divertStandardOutput`) so that nothing but the events
    /// reaches it, and starts the writers. The host's log must be bootstrapped before events flow.
    init(
        json: Bool, format: LogFormatOption = .plain,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) {
        // Before the diversion, which points descriptor 1 at standard error.
        let journalEvents = format.journal(STDOUT_FILENO, environment: environment)
        let journalErrors = format.journal(STDERR_FILENO, environment: environment)
        self.journalEvents = journalEvents
        self.journalErrors = journalErrors
        if journalEvents || journalErrors, let socket = JournalSocket(environment: environment), socket.isListening {
            journal = LineWriter(
                sendingEach: { socket.send(datagram: $0) == 0 }, name: "apphost.journal",
                notice: { count in
                    JournalEntry(
                        message: "dropped \(count) journal entr\(count == 1 ? "y" : "ies"): journald did not take them",
                        priority: JournalFormat.warning
                    ).datagram
                })
        } else {
            journal = nil
        }
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

    /// The events' entries go to journald's socket.
    private var nativeEvents: LineWriter? { journalEvents ? journal : nil }
    /// The log's and the errors' entries go to journald's socket.
    private var nativeErrors: LineWriter? { journalErrors ? journal : nil }

    /// The handler of the host's log records: the error writer, one line a record (with its
    /// priority and without a time when standard error goes to the journal), or entries for
    /// journald's socket.
    func logHandler(label: String) -> any LogHandler {
        // A record that repeats an event (metadata `event`) is left to the event's entry where
        // both go to the same journal.
        let repeats = journalEvents && journalErrors
        if let journal = nativeErrors {
            return JournalLogHandler(label: label, skipsRepeats: repeats, send: { journal.write(item: $0.datagram) })
        }
        if journalErrors {
            return JournalLogHandler(label: label, skipsRepeats: repeats, write: { [errors] in errors.write($0) })
        }
        return StreamLogHandler(label: label, stream: LineWriterStream(errors))
    }

    /// Event lines dropped, or entries when the events go to journald's socket (`ctl ps`).
    var droppedEvents: Int { (nativeEvents ?? events).droppedLines }

    static func dropped(_ count: Int) -> String {
        "dropped \(count) event line\(count == 1 ? "" : "s"): standard output is not being read"
    }

    /// An event's line, with the event's priority when the events go to the journal; its entry
    /// when they go to journald's socket.
    func event(_ event: HostEvent, line: String) {
        if let journal = nativeEvents {
            return journal.write(item: JournalFormat.entry(of: event).datagram)
        }
        events.write(
            (journalEvents ? JournalFormat.line(line, priority: JournalFormat.priority(of: event)) : line) + "\n")
    }

    /// An error line, as `Output.error` writes it, or an entry for journald's socket.
    /// `repeatsAnEvent`: the error is one an event says too (a guest that failed to launch); where
    /// the events and the errors go to the same journal, the event's entry is the one said.
    func error(_ message: String, repeatsAnEvent: Bool = false) {
        if repeatsAnEvent && journalEvents && journalErrors { return }
        if let journal = nativeErrors {
            return journal.write(
                item: JournalEntry(message: TerminalText.escaped(message), priority: JournalFormat.error).datagram)
        }
        let line = "apphost: \(TerminalText.escaped(message))"
        errors.write((journalErrors ? JournalFormat.line(line, priority: JournalFormat.error) : line) + "\n")
    }

    /// Before the process exits: lets the writers finish, unless their readers take nothing for
    /// `patience`.
    func flush() {
        journal?.flush(patience: Self.patience)
        events.flush(patience: Self.patience)
        errors.flush(patience: Self.patience)
    }
}
