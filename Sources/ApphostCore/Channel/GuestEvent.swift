import Foundation

/// Guest log levels; raw values are the C ABI's `enum apphost_log_level`.
public enum GuestLogLevel: Int32, Sendable, CodableByName {
    case trace = 0
    case debug = 1
    case info = 2
    case warning = 3
    case error = 4

    public var description: String {
        switch self {
        case .trace: "trace"
        case .debug: "debug"
        case .info: "info"
        case .warning: "warning"
        case .error: "error"
        }
    }
}

/// One guest-to-host call, as plain data.
public enum GuestEvent: Sendable, Codable, Equatable {
    case log(GuestLogLevel, String)
    case saveSceneState(SceneHandle, Data)
}
