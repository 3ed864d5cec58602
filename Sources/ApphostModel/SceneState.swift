/// A scene's state (CONTRACT S1). Raw values are the C ABI's `enum apphost_scene_state`.
public enum SceneState: Int32, Sendable, CodableByName {
    public init(from decoder: any Decoder) throws { try self.init(byName: decoder) }
    public func encode(to encoder: any Encoder) throws { try encodeByName(to: encoder) }

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
}

/// A scene's role. Raw values are the C ABI's `enum apphost_scene_role`.
public enum SceneRole: Int32, Sendable, CodableByName {
    public init(from decoder: any Decoder) throws { try self.init(byName: decoder) }
    public func encode(to encoder: any Encoder) throws { try encodeByName(to: encoder) }

    case primary = 0
    case auxiliary = 1

    public var description: String { self == .primary ? "primary" : "auxiliary" }
}
