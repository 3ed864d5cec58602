/// A scene's state (CONTRACT S1). Raw values are the C ABI's `enum apphost_scene_state`.
public enum SceneState: Int32, Sendable, CodableByName {
    case unattached = 0
    case foregroundInactive = 1
    case foregroundActive = 2
    case background = 3

    public var isForeground: Bool { self == .foregroundActive || self == .foregroundInactive }
}

/// A scene's role. Raw values are the C ABI's `enum apphost_scene_role`.
public enum SceneRole: Int32, Sendable, CodableByName {
    case primary = 0
    case auxiliary = 1
}
