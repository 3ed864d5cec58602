/// An app's state (CONTRACT A1). Raw values are the C ABI's `enum apphost_app_state`.
public enum AppState: Int32, Sendable, CodableByName {
    public init(from decoder: any Decoder) throws { try self.init(byName: decoder) }
    public func encode(to encoder: any Encoder) throws { try encodeByName(to: encoder) }

    case notRunning = 0
    case inactive = 1
    case active = 2
    case background = 3
    case suspended = 4

    public var description: String {
        switch self {
        case .notRunning: "notRunning"
        case .inactive: "inactive"
        case .active: "active"
        case .background: "background"
        case .suspended: "suspended"
        }
    }
}
