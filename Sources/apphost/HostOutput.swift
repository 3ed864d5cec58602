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

    /// Diverts standard output (`Output.divertStandardOutput`) so that nothing but the events
    /// reaches it, and starts the writers. The host's log must be bootstrapped before events flow.
    init(json: Bool) {
        let eventsDescriptor = Output.divertStandardOutput()
        errors = LineWriter(
            descriptor: STDERR_FILENO,
            notice: { "apphost: dropped \($0) lines: standard error is not being read\n" })
        events = LineWriter(
            descriptor: eventsDescriptor,
            notice: { count in
                let event = HostEvent(time: Date(), kind: .eventsDropped, message: Self.dropped(count))
                return (json ? event.jsonLine() : event.humanLine) + "\n"
            },
            onNotice: { count in Logger(label: "apphost").warning("\(Self.dropped(count))") })
    }

    static func dropped(_ count: Int) -> String {
        "dropped \(count) event line\(count == 1 ? "" : "s"): standard output is not being read"
    }

    /// An event line.
    func event(_ line: String) { events.write(line + "\n") }

    /// An error line, as `Output.error` writes it.
    func error(_ message: String) { errors.write("apphost: \(message)\n") }

    /// Before the process exits: lets the writers finish, unless their readers take nothing for
    /// `patience`.
    func flush() {
        events.flush(patience: Self.patience)
        errors.flush(patience: Self.patience)
    }
}
