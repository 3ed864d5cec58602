import ApphostCore
import ApphostHost
import ArgumentParser
import Foundation

/// `--log-format`: whether `launch` marks each line with its syslog priority for journald.
enum LogFormatOption: String, ExpressibleByArgument, CaseIterable {
    /// `journal` for a stream journald reads (`$JOURNAL_STREAM` names it), `plain` otherwise.
    case auto
    case plain
    case journal

    /// Whether lines written to `descriptor` get priority prefixes.
    func journal(_ descriptor: Int32, environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        switch self {
        case .plain: false
        case .journal: true
        case .auto: JournalFormat.isJournalStream(descriptor, environment: environment)
        }
    }
}

/// Lines as journald reads them from a stream: each starts with its syslog priority, `<3>` to
/// `<7>` (sd-daemon(3)), which journald takes off and keeps as the entry's PRIORITY, and a line is
/// one entry, so text that would span lines is kept on one.
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

    /// An event's priority: failures are errors, what the host did about a misbehaving guest or
    /// a shortage is a warning, a guest's log line keeps its level, and the rest is information
    /// (meters, once a second, are debug).
    static func priority(of event: HostEvent) -> Int {
        switch event.kind {
        case .error, .launchFailed, .stateSaveFailed:
            return error
        case .watchdog, .overrun, .taskExpired, .memoryWarning, .storeRecovered, .eventsDropped, .requestRefused,
            .notificationRefused, .audioNonconforming, .audioXrun, .audioBadSamples, .audioDemoted, .throttled:
            return warning
        case .restarting:
            return notice
        case .terminated:
            switch event.reason {
            case .crash: return error
            case .watchdog, .memory, .budgetExpired, .flooding: return warning
            default: return info
            }
        case .log:
            switch event.level {
            case .error: return error
            case .warning: return warning
            case .debug, .trace: return debug
            case .info, nil: return info
            }
        case .audioMeter:
            return debug
        default:
            return info
        }
    }

    /// The priority of a line the host's log handler wrote (`StreamLogHandler`: a timestamp
    /// without spaces, then the level), info when it names none.
    static func priority(ofLogLine line: Substring) -> Int {
        let fields = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard fields.count > 1 else { return info }
        switch fields[1] {
        case "critical", "error": return error
        case "warning": return warning
        case "notice": return notice
        case "debug", "trace": return debug
        default: return info
        }
    }
}

/// The host's log on a `LineWriter`, each record one line with its priority: what `launch`'s log
/// handler writes to when standard error goes to the journal.
struct JournalLogStream: TextOutputStream, Sendable {
    let writer: LineWriter

    mutating func write(_ string: String) {
        var text = Substring(string)
        while text.last?.isNewline == true { text = text.dropLast() }
        guard !text.isEmpty else { return }
        writer.write(JournalFormat.line(String(text), priority: JournalFormat.priority(ofLogLine: text)) + "\n")
    }
}
