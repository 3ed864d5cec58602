/// A scene's state (CONTRACT S1). Raw values are the C ABI's `enum apphost_scene_state`.
public enum SceneState: Int32, Sendable, Codable, CaseIterable, CustomStringConvertible {
    case unattached = 0
    case foregroundInactive = 1
    case foregroundActive = 2
    case background = 3

    public var description: String {
        switch self {
        case .unattached: "unattached"
        case .foregroundInactive: "foregroundInactive"
        case .foregroundActive: "foregroundActive"
        case .background: "background"
        }
    }

    public var isForeground: Bool { self == .foregroundActive || self == .foregroundInactive }

    public init(from decoder: Decoder) throws {
        let name = try decoder.singleValueContainer().decode(String.self)
        guard let state = Self.allCases.first(where: { $0.description == name }) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "unknown scene state \(name)"))
        }
        self = state
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

/// A scene's role. Raw values are the C ABI's `enum apphost_scene_role`.
public enum SceneRole: Int32, Sendable, Codable, CustomStringConvertible {
    case primary = 0
    case auxiliary = 1

    public var description: String { self == .primary ? "primary" : "auxiliary" }

    public init(from decoder: Decoder) throws {
        let name = try decoder.singleValueContainer().decode(String.self)
        self = name == "auxiliary" ? .auxiliary : .primary
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
