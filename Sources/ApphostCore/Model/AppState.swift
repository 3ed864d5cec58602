/// An app's state (CONTRACT A1). Raw values are the C ABI's `enum apphost_app_state`.
public enum AppState: Int32, Sendable, Codable, CaseIterable, CustomStringConvertible {
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

    public init(from decoder: Decoder) throws {
        let name = try decoder.singleValueContainer().decode(String.self)
        guard let state = Self.allCases.first(where: { $0.description == name }) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "unknown app state \(name)"))
        }
        self = state
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
