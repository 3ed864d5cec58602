import ApphostService
import ApphostVocabulary
import ArgumentParser
import Foundation
import Logging

/// `--log-format`: whether `launch` writes its events and log for journald: as entries with fields
/// of their own to journald's native socket when it listens, as lines with syslog priorities on
/// the stream otherwise.
enum LogFormatOption: String, ExpressibleByArgument, CaseIterable {
    /// `journal` for a stream journald reads (`$JOURNAL_STREAM` names it), `plain` otherwise.
    case auto
    case plain
    case journal

    /// Whether what would be written to `descriptor` goes to the journal.
    func journal(_ descriptor: Int32, environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        switch self {
        case .plain: false
        case .journal: true
        case .auto: JournalFormat.isJournalStream(descriptor, environment: environment)
        }
    }
}

/// The host's events and log for journald. Entries for its native socket (`entry(of:)`,
/// `JournalLogHandler`): MESSAGE without a time (journald stamps each entry), PRIORITY,
/// SYSLOG_IDENTIFIER=apphost, and the event's parts as fields to filter on (`journalctl
/// GUEST_ID=org.example.notes EVENT=terminated`). Or, where that socket does not listen, lines as
/// journald reads them from a stream: each starts with its syslog priority, `<3>` to `<7>`
/// (sd-daemon(3)), which journald takes off and keeps as the entry's PRIORITY, and a line is one
/// entry, so text that would span lines is kept on one.
enum JournalFormat {
    static let error = 3
    static let warning = 4
    static let notice = 5
    static let info = 6
    static let debug = 7

    /// Whether `descriptor` is the stream `$JOURNAL_STREAM` names (its `device:inode`), as
    /// systemd.exec(5) tells programs to check: a descriptor redirected since is not.
    static func isJournalStream(_ descriptor: Int32, environment: [String: String]) -> Bool {
        guard let stream = environment["JOURNAL_STREAM"] else { return false }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return false }
        return stream == "\(info.st_dev):\(info.st_ino)"
    }

    /// `line` (one, without its newline) with the priority in front.
    static func line(_ line: String, priority: Int) -> String {
        let single =
            line.contains(where: \.isNewline) ? line.split(whereSeparator: \.isNewline).joined(separator: " ") : line
        return "<\(priority)>\(single)"
    }

    /// An event's entry for the native socket: its line without the time as MESSAGE, and its
    /// parts as fields (EVENT, GUEST_ID, SCENE, SESSION_ID, REASON, LEVEL for a guest's log line,
    /// EVENT_FROM and EVENT_TO for a transition, EVENT_NAME), each only when the event has it.
    static func entry(of event: HostEvent) -> JournalEntry {
        var entry = JournalEntry(message: event.untimedLine, priority: priority(of: event))
        entry.append("EVENT", event.kind.rawValue)
        entry.append("GUEST_ID", event.guest)
        entry.append("SCENE", event.scene.map { String($0) })
        entry.append("SESSION_ID", event.session)
        entry.append("REASON", event.reason?.rawValue)
        entry.append("LEVEL", event.level?.description)
        entry.append("EVENT_FROM", event.from)
        entry.append("EVENT_TO", event.to)
        entry.append("EVENT_NAME", event.name)
        // host-started: who the host is (CONTRACT O4).
        entry.append("HOST_ID", event.host?.id)
        entry.append("HOST_VERSION", event.host?.version)
        return entry
    }

    /// An event's priority: failures are errors, what the host did about a misbehaving guest or
    /// a shortage is a warning, a guest that stopped or is restarted a notice, a guest's log line
    /// keeps its level, a guest's callbacks, its loading progress and the meters (each many a
    /// second) are debug, and the rest is information.
    static func priority(of event: HostEvent) -> Int {
        switch event.kind {
        case .error, .launchFailed, .stateSaveFailed:
            return error
        case .storeRecovered:
            return event.name == HostEvent.savesLost ? error : warning
        case .watchdog, .overrun, .taskExpired, .memoryWarning, .eventsDropped, .requestRefused,
            .notificationRefused, .audioNonconforming, .audioXrun, .audioBadSamples, .audioDemoted, .throttled:
            return warning
        case .restarting, .hostStarted:
            return notice
        case .terminated:
            // The failure that ended it, if one did, has its own event (error, overrun): this
            // entry says what changed, once.
            return notice
        case .log:
            switch event.level {
            case .error: return error
            case .warning: return warning
            case .debug, .trace: return debug
            case .info, nil: return info
            }
        case .callback, .loading, .audioMeter, .audioLevel:
            return debug
        default:
            return info
        }
    }

    /// A log level's priority.
    static func priority(of level: Logger.Level) -> Int {
        switch level {
        case .critical: 2
        case .error: error
        case .warning: warning
        case .notice: notice
        case .info: info
        case .debug, .trace: debug
        }
    }
}

/// The host's own log under journald (swift-log's handler for `launch`): each record one entry
/// of the native socket, with its metadata as fields (`socket=...` is `SOCKET=...`, `guest` is
/// `GUEST_ID` as in the events' entries), its logger's label (`LOGGER`) and where it was logged
/// (`CODE_FILE`, `CODE_LINE`, `CODE_FUNC`, as libsystemd's sd_journal_print sends them); or, where
/// that socket does not listen, one line with its priority and no time. The handler hands over
/// what it makes and never waits (`HostOutput`'s writers).
///
/// A record that repeats what an event says has the event's kind as its metadata `event`
/// (`store-recovered`); `skipsRepeats` leaves it out, where the event's entry is in the same
/// journal: one entry per fact.
struct JournalLogHandler: LogHandler {
    let label: String
    let skipsRepeats: Bool
    /// Sends an entry, or writes a line (newline included), through a writer.
    let send: @Sendable (JournalEntry) -> Void
    let write: (@Sendable (String) -> Void)?
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    /// Native entries to `send`.
    init(label: String, skipsRepeats: Bool, send: @escaping @Sendable (JournalEntry) -> Void) {
        self.label = label
        self.skipsRepeats = skipsRepeats
        self.send = send
        self.write = nil
    }

    /// Lines with priorities to `write`, for a stream journald reads.
    init(label: String, skipsRepeats: Bool, write: @escaping @Sendable (String) -> Void) {
        self.label = label
        self.skipsRepeats = skipsRepeats
        self.send = { _ in }
        self.write = write
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let all = metadata.merging(event.metadata ?? [:]) { $1 }
        if skipsRepeats && all["event"] != nil { return }
        let priority = JournalFormat.priority(of: event.level)
        let message = "\(event.message)"
        if let write {
            let fields = all.sorted { $0.key < $1.key }.map { " \($0.key)=\($0.value)" }.joined()
            return write(JournalFormat.line("\(label): \(message)\(fields)", priority: priority) + "\n")
        }
        var entry = JournalEntry(message: message, priority: priority)
        entry.append("LOGGER", label)
        entry.append("CODE_FILE", event.file)
        entry.append("CODE_LINE", String(event.line))
        entry.append("CODE_FUNC", event.function)
        for (key, value) in all.sorted(by: { $0.key < $1.key }) {
            let name = key == "guest" ? "GUEST_ID" : JournalEntry.fieldName(key)
            // Metadata named like a field of the entry's own (`message`) does not replace it.
            entry.append(entry[name] == nil ? name : "LOG_" + name, "\(value)")
        }
        send(entry)
    }
}
