import Foundation
import Logging
import Synchronization

/// `--log-level-file`: the host's log level, read from a file at start and again on SIGHUP, so
/// that an operator turns on debug lines on a running host without restarting its guests. The
/// file's first line is a level: trace, debug, info, notice, warning, error or critical.
struct LogLevelFile: Sendable {
    let path: String

    func read() throws(CLIFailure) -> Logger.Level {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CLIFailure("cannot read the log level file \(path): \(String(cString: strerror(errno)))")
        }
        // The first line, even an empty one, as a token file's (BearerToken): a blank first line
        // is a mistake, not a separator.
        let line =
            String(decoding: data, as: UTF8.self).split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
            .first ?? ""
        let word = line.trimmingCharacters(in: .whitespaces).lowercased()
        guard let level = Logger.Level(rawValue: word) else {
            let levels = Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")
            throw CLIFailure("the log level file \(path) says \"\(word)\": expected one of \(levels)")
        }
        return level
    }
}

/// The level every log handler of the host consults, so that changing it reaches the loggers
/// already made (swift-log copies a handler into each Logger).
final class SharedLogLevel: Sendable {
    private let level: Mutex<Logger.Level>

    init(_ level: Logger.Level) { self.level = Mutex(level) }

    var current: Logger.Level {
        get { level.withLock { $0 } }
        set { level.withLock { $0 = newValue } }
    }
}

/// A log handler at the shared level, unless a logger set its own (as the HTTP server quiets
/// Hummingbird's).
struct SharedLevelLogHandler: LogHandler {
    var inner: any LogHandler
    let shared: SharedLogLevel
    private var own: Logger.Level?

    init(inner: any LogHandler, shared: SharedLogLevel) {
        self.inner = inner
        self.shared = shared
    }

    var logLevel: Logger.Level {
        get { own ?? shared.current }
        set { own = newValue }
    }

    var metadata: Logger.Metadata {
        get { inner.metadata }
        set { inner.metadata = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { inner[metadataKey: key] }
        set { inner[metadataKey: key] = newValue }
    }

    func log(event: LogEvent) {
        inner.log(event: event)
    }
}
