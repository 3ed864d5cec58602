/// The scene delegate: what `UISceneDelegate` is to an iOS scene.
///
/// ``GuestApp/makeSceneDelegate(for:)`` returns one per connected scene.
/// Every method has an empty default, so implement only what you need. The
/// host calls them on the guest's main queue, one at a time, in the orders of
/// CONTRACT S2 to S5:
///
/// - connect for the user: `sceneWillConnect`, `sceneWillEnterForeground`,
///   `sceneDidBecomeActive` (S2); for background work, `sceneWillConnect` only;
/// - switch away: `sceneWillResignActive`, `sceneDidEnterBackground` (S3);
/// - a temporary interruption: `sceneWillResignActive`, later
///   `sceneDidBecomeActive` (S4);
/// - return: `sceneWillEnterForeground`, `sceneDidBecomeActive` (S5);
/// - the host drops a background scene: `sceneDidDisconnect` (S6);
/// - with the scenes extension (``Scenes``): sizes, user actions and modal
///   dismissals (S9, S11, N3).
@GuestActor
public protocol SceneDelegate: AnyObject {
    /// The scene connects. `restorationData` is what its session last saved
    /// with ``Scene/saveState(_:)``, or nil if it saved nothing (CONTRACT S12).
    func sceneWillConnect(_ scene: Scene, restorationData: [UInt8]?)
    /// The scene is about to be visible.
    func sceneWillEnterForeground(_ scene: Scene)
    /// The scene now receives user actions.
    func sceneDidBecomeActive(_ scene: Scene)
    /// The scene stops receiving user actions, for a switch or a while (S4).
    func sceneWillResignActive(_ scene: Scene)
    /// The scene is no longer visible: save its state now. The host may
    /// disconnect it at any time from here on without asking (CONTRACT S6).
    func sceneDidEnterBackground(_ scene: Scene)
    /// The host disconnected the scene. Its handle is no longer valid (saving
    /// fails now), but its session and saved state survive.
    func sceneDidDisconnect(_ scene: Scene)

    /// The scene has a new size (CONTRACT S11): before it first enters the
    /// foreground, and whenever the host rearranges the display. Lay out for
    /// the size class; the guest never learns the layout itself.
    func sceneDidChangeSize(_ scene: Scene, to size: SceneSize)
    /// The user performed `action` on the scene, with `payload`. From now on,
    /// for a few seconds, the guest may open one scene
    /// (``Scenes/requestScene(from:role:style:state:)``, CONTRACT S9).
    func scene(_ scene: Scene, perform action: String, payload: [UInt8])
    /// The user asks to dismiss `modal`. Return false to keep it, for instance
    /// to ask them to confirm discarding unsaved changes (CONTRACT N3). By
    /// default it goes.
    func scene(_ scene: Scene, shouldDismiss modal: Modal) -> Bool
    /// The host dismissed `modal`, and those above it, as the user asked.
    func scene(_ scene: Scene, didDismiss modal: Modal)
}

extension SceneDelegate {
    public func sceneWillConnect(_ scene: Scene, restorationData: [UInt8]?) {}
    public func sceneWillEnterForeground(_ scene: Scene) {}
    public func sceneDidBecomeActive(_ scene: Scene) {}
    public func sceneWillResignActive(_ scene: Scene) {}
    public func sceneDidEnterBackground(_ scene: Scene) {}
    public func sceneDidDisconnect(_ scene: Scene) {}
    public func sceneDidChangeSize(_ scene: Scene, to size: SceneSize) {}
    public func scene(_ scene: Scene, perform action: String, payload: [UInt8]) {}
    public func scene(_ scene: Scene, shouldDismiss modal: Modal) -> Bool { true }
    public func scene(_ scene: Scene, didDismiss modal: Modal) {}
}

/// The delegate of ``GuestApp/makeSceneDelegate(for:)``'s default.
final class IgnoringSceneDelegate: SceneDelegate {}

/// A scene's persistent identity: it never changes and survives host
/// restarts (CONTRACT S8).
public struct SceneSession: Sendable, Hashable, Identifiable {
    /// The session's persistent identifier.
    public let id: ID
    /// The scene's role.
    public let role: SceneRole

    /// A session's persistent identifier: the C ABI's `session_id` string, typed so that it
    /// is not mistaken for other strings. Codable, to keep in a guest's own saved state.
    public struct ID: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }
    }
}

/// One connection of a scene: valid from `sceneWillConnect` until
/// `sceneDidDisconnect` or ``GuestApp/willTerminate()``. Keep it if you like;
/// the SDK passes the same object to every callback of the connection.
///
/// Sendable: its properties are constant and ``saveState(_:)`` is
/// thread-safe in the C ABI.
public final class Scene: Sendable {
    /// The host's handle for this connection (never 0). A reconnection of the
    /// same session gets a new handle.
    public let handle: UInt64
    /// The session this connection belongs to.
    public let session: SceneSession
    /// The state the scene connects into: `.foregroundInactive` for a scene
    /// the user asked for, `.background` for one connected for background work.
    public let initialState: SceneState
    /// The host that connected the scene.
    public let host: Apphost

    init(handle: UInt64, session: SceneSession, initialState: SceneState, host: Apphost) {
        self.handle = handle
        self.session = session
        self.initialState = initialState
        self.host = host
    }

    /// The session's persistent identifier.
    public var sessionID: SceneSession.ID { session.id }
    /// The scene's role.
    public var role: SceneRole { session.role }

    /// Hands the host the state to give back in `sceneWillConnect` when the
    /// session reconnects or the guest relaunches (CONTRACT S12). The host
    /// copies the bytes; at most 1 MiB (else ``ApphostError/tooLarge``).
    /// Throws ``ApphostError/internalError`` while the host cannot store
    /// this scene's saves (CONTRACT X5: its disk is full, say): the bytes
    /// still reach the host, which keeps trying, but may not survive it.
    /// Thread-safe.
    public func saveState(_ bytes: [UInt8]) throws {
        try host.saveState(bytes, for: self)
    }

    /// ABI 1.7: ``saveState(_:)``, and `confirmed` on the main queue once the host has stored
    /// the bytes for good (nil) or could not (an error): see
    /// ``Apphost/saveState(_:for:confirmed:)``. Thread-safe.
    public func saveState(_ bytes: [UInt8], confirmed: sending @escaping @GuestActor (ApphostError?) -> Void) throws {
        try host.saveState(bytes, for: self, confirmed: confirmed)
    }

    /// The scene's state as of the callback being delivered.
    @GuestActor
    public func state() throws -> SceneState {
        try host.sceneState(for: self)
    }
}

/// Scene states (CONTRACT S1): the C ABI's `enum apphost_scene_state`.
/// A struct rather than an enum because a later minor version of the ABI may
/// add values: switch over it with a `default`.
public struct SceneState: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    public static let unattached = SceneState(rawValue: 0)
    public static let foregroundInactive = SceneState(rawValue: 1)
    public static let foregroundActive = SceneState(rawValue: 2)
    public static let background = SceneState(rawValue: 3)

    public var description: String {
        switch self {
        case .unattached: "unattached"
        case .foregroundInactive: "foregroundInactive"
        case .foregroundActive: "foregroundActive"
        case .background: "background"
        default: "sceneState(\(rawValue))"
        }
    }
}

/// Scene roles: the C ABI's `enum apphost_scene_role`.
public struct SceneRole: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    public static let primary = SceneRole(rawValue: 0)
    public static let auxiliary = SceneRole(rawValue: 1)

    public var description: String {
        switch self {
        case .primary: "primary"
        case .auxiliary: "auxiliary"
        default: "sceneRole(\(rawValue))"
        }
    }
}
