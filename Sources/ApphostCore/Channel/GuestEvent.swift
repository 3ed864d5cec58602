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

/// What reaches the host from a guest's side of the channel, as plain data: the guest's own
/// calls (log, save), and the channel's word that the guest is gone.
public enum GuestEvent: Sendable, Codable, Equatable {
    case log(GuestLogLevel, String)
    case saveSceneState(SceneHandle, Data)
    /// The guest's process ended without being asked (CONTRACT X2); the text names the signal
    /// or exit status, such as "killed by SIGSEGV" or "exited with status 3".
    case died(String)
}
