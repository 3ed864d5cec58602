import ArgumentParser
import Logging

/// `--log-level`: how much the host logs to stderr.
enum LogLevelOption: String, ExpressibleByArgument, CaseIterable {
    case trace, debug, info, warning, error

    var level: Logger.Level {
        switch self {
        case .trace: .trace
        case .debug: .debug
        case .info: .info
        case .warning: .warning
        case .error: .error
        }
    }
}
