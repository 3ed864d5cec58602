/// An app's state (CONTRACT A1). Raw values are the C ABI's `enum apphost_app_state`.
public enum AppState: Int32, Sendable, CodableByName {
    case notRunning = 0
    case inactive = 1
    case active = 2
    case background = 3
    case suspended = 4
}
