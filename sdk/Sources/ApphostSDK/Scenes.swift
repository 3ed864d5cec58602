import CApphost

extension Apphost {
    /// The scenes extension, "apphost.scenes/1" (`scenes.h`): opening and showing scenes, sizes,
    /// loading progress, modals and notifications. Nil when the host does not offer it.
    /// Thread-safe; each access asks the host again, so keep the result.
    public var scenes: Scenes? { Scenes(host: self) }
}

/// What a guest asks of the host for its windows: the C ABI's `apphost_scenes_t`. Get it from
/// ``Apphost/scenes``.
///
/// A guest opens a scene only at a person's request: a user action
/// (``SceneDelegate/scene(_:perform:payload:)``) grants one activation (CONTRACT S9).
/// ``requestScene(from:role:style:state:)`` spends it while that callback runs; work that opens
/// the scene later takes the action's ``Activation`` there with ``activationToken()`` and
/// presents it to ``requestScene(with:from:role:style:state:)`` within a few seconds. Without
/// one, both throw ``ApphostError/noActivation``. Give the new scene what it should show as its
/// `state`: its delegate gets it back as the restoration data of `sceneWillConnect`.
///
/// ```swift
/// func scene(_ scene: Scene, perform action: String, payload: [UInt8]) {
///     guard action == "open" else { return }
///     try? host.scenes?.requestScene(from: scene, role: .auxiliary, style: .standard, state: payload)
/// }
/// ```
///
/// Every method is thread-safe except ``size(of:)``, ``activationToken()`` and ``sessions()``,
/// which answer as of the callback being delivered and are isolated to ``GuestActor``.
///
/// `@unchecked Sendable`: it holds the host's constant table, whose functions are thread-safe.
public final class Scenes: @unchecked Sendable {
    public let host: Apphost
    let table: UnsafePointer<apphost_scenes_t>

    /// The members the SDK calls, up to `post_notification`: all of ABI 1.1's, which every host
    /// that offers revision 1 has.
    static let requiredSize =
        MemoryLayout<apphost_scenes_t>.offset(of: \apphost_scenes_t.post_notification)!
        + MemoryLayout<UnsafeRawPointer>.size

    /// Wraps the host's table, or nil when the host does not offer the extension or its table
    /// lacks a member the SDK calls. A host of an older minor version than these headers may
    /// offer a smaller table than theirs: the SDK reads no member past ``requiredSize`` without
    /// checking its `struct_size` first.
    init?(host: Apphost) {
        guard let pointer = host.extensionInterface(APPHOST_SCENES_EXTENSION_ID) else { return nil }
        let table = pointer.assumingMemoryBound(to: apphost_scenes_t.self)
        guard Int(table.pointee.struct_size) >= Self.requiredSize else { return nil }
        self.host = host
        self.table = table
    }

    /// Asks for a new scene of `role`, shown as `style` (beside `scene` for `.standard`), whose
    /// session starts with `state` as its saved state (at most 1 MiB). Consumes the transient
    /// activation of a user action; throws ``ApphostError/noActivation`` without one. The new
    /// scene connects later, on the main queue, unless the host refuses it (its event stream
    /// says why, and since ABI 1.8 ``GuestApp/didRefuseSceneRequest(_:reason:)``).
    public func requestScene(
        from scene: Scene, role: SceneRole = .auxiliary, style: PresentationStyle = .automatic, state: [UInt8] = []
    ) throws {
        guard let request = table.pointee.request_scene else { throw ApphostError.unsupported }
        let status = state.withUnsafeBytes { bytes in
            request(host.raw, scene.handle, role.rawValue, style.rawValue, bytes.baseAddress, bytes.count)
        }
        try ApphostError.check(status)
    }

    /// Since ABI 1.2: the activation of the user action being delivered, to open a scene later
    /// with ``requestScene(with:from:role:style:state:)``. Call it inside
    /// ``SceneDelegate/scene(_:perform:payload:)``; elsewhere, or once the activation is spent
    /// or has run out, it throws ``ApphostError/noActivation`` (``ApphostError/unsupported`` on a
    /// host of 1.1).
    @GuestActor
    public func activationToken() throws -> Activation {
        guard let function = member(\.activation_token) else { throw ApphostError.unsupported }
        var token: apphost_activation_t = 0
        try ApphostError.check(function(host.raw, &token))
        return Activation(token: token)
    }

    /// Since ABI 1.2: ``requestScene(from:role:style:state:)``, spending `activation` instead of
    /// the running action's: from any thread, until the activation's window closes (S9).
    public func requestScene(
        with activation: Activation, from scene: Scene, role: SceneRole = .auxiliary,
        style: PresentationStyle = .automatic, state: [UInt8] = []
    ) throws {
        guard let request = member(\.request_scene_with_activation) else { throw ApphostError.unsupported }
        let status = state.withUnsafeBytes { bytes in
            request(
                host.raw, activation.token, scene.handle, role.rawValue, style.rawValue, bytes.baseAddress, bytes.count)
        }
        try ApphostError.check(status)
    }

    /// Since ABI 1.8: ``requestScene(from:role:style:state:)`` (or, with `activation`,
    /// ``requestScene(with:from:role:style:state:)``) that returns the request's id: should the
    /// host refuse the request after all, ``GuestApp/didRefuseSceneRequest(_:reason:)`` names it.
    /// Older hosts: ``ApphostError/unsupported``.
    public func submitSceneRequest(
        from scene: Scene, role: SceneRole = .auxiliary, style: PresentationStyle = .automatic, state: [UInt8] = [],
        activation: Activation? = nil
    ) throws -> SceneRequestID {
        guard let submit = member(\.submit_scene_request) else { throw ApphostError.unsupported }
        var id: apphost_request_t = 0
        let status = state.withUnsafeBytes { bytes in
            var request = apphost_scene_request_t(
                struct_size: UInt32(MemoryLayout<apphost_scene_request_t>.size), activation: activation?.token ?? 0,
                from: scene.handle, role: role.rawValue, style: style.rawValue, state: bytes.baseAddress,
                length: bytes.count)
            return submit(host.raw, &request, &id)
        }
        try ApphostError.check(status)
        return SceneRequestID(rawValue: id)
    }

    /// Since ABI 1.2: the seconds `activation` can still open a scene, or nil once it is spent or
    /// has run out.
    public func timeLeft(of activation: Activation) throws -> Double? {
        guard let function = member(\.activation_time_left) else { throw ApphostError.unsupported }
        var seconds = 0.0
        let status = function(host.raw, activation.token, &seconds)
        if status == Int32(APPHOST_ERROR_NO_ACTIVATION.rawValue) { return nil }
        try ApphostError.check(status)
        return seconds
    }

    /// Since ABI 1.2: the guest's scene sessions, connected or not, in the order they first
    /// connected, with the handle of each connected one's scene (S8).
    @GuestActor
    public func sessions() throws -> [(session: SceneSession, scene: UInt64?)] {
        guard let list = member(\.list_sessions) else { throw ApphostError.unsupported }
        final class Gathered {
            var sessions: [(session: SceneSession, scene: UInt64?)] = []
        }
        let gathered = Gathered()
        let status = withExtendedLifetime(gathered) {
            list(
                host.raw,
                { context, info in
                    guard let context, let info, let id = info.pointee.session_id else { return }
                    let gathered = Unmanaged<Gathered>.fromOpaque(context).takeUnretainedValue()
                    let session = SceneSession(
                        id: SceneSession.ID(rawValue: String(cString: id)), role: SceneRole(rawValue: info.pointee.role)
                    )
                    let scene = info.pointee.scene
                    gathered.sessions.append((session, scene == 0 ? nil : scene))
                }, Unmanaged.passUnretained(gathered).toOpaque())
        }
        try ApphostError.check(status)
        return gathered.sessions
    }

    /// Since ABI 1.2: closes the guest's own session `id` for good, as the user's close does
    /// (S7): its scene disconnects and ``GuestApp/didDiscardSession(id:)`` follows. Thread-safe.
    /// Throws ``ApphostError/invalidHandle`` for a session the guest does not have.
    public func closeSession(_ id: SceneSession.ID) throws {
        guard let close = member(\.close_session) else { throw ApphostError.unsupported }
        try ApphostError.check(close(host.raw, id.rawValue))
    }

    /// A member of the host's table that these headers added after ABI 1.1, or nil when the
    /// host's table ends before it (a host of an older minor version).
    private func member<Function>(_ path: KeyPath<apphost_scenes_t, Function?>) -> Function? {
        guard let offset = MemoryLayout<apphost_scenes_t>.offset(of: path),
            offset + MemoryLayout<UnsafeRawPointer>.size <= Int(table.pointee.struct_size)
        else { return nil }
        return table.pointee[keyPath: path]
    }

    /// Asks the host to show the existing session `id` as `style`, connecting it if needed. Needs
    /// no activation (S9). A session the guest does not have is refused in the host's event stream.
    public func activateSession(_ id: SceneSession.ID, style: PresentationStyle = .automatic) throws {
        guard let activate = table.pointee.activate_session else { throw ApphostError.unsupported }
        try ApphostError.check(activate(host.raw, id.rawValue, style.rawValue))
    }

    /// The size of `scene` as of the callback being delivered (CONTRACT S11); 0 by 0 until it
    /// is first shown.
    @GuestActor
    public func size(of scene: Scene) throws -> SceneSize {
        guard let query = table.pointee.scene_size else { throw ApphostError.unsupported }
        var size = apphost_scene_size_t()
        size.struct_size = UInt32(MemoryLayout<apphost_scene_size_t>.size)
        try ApphostError.check(query(host.raw, scene.handle, &size))
        return SceneSize(size)
    }

    /// Reports `scene`'s loading progress, which the host shows to operators (CONTRACT N2).
    public func setLoadingProgress(_ progress: LoadingProgress, for scene: Scene) throws {
        guard let report = table.pointee.set_loading_progress else { throw ApphostError.unsupported }
        let value: Double
        switch progress {
        case .none: value = APPHOST_PROGRESS_NONE
        case .indeterminate: value = APPHOST_PROGRESS_INDETERMINATE
        case .fraction(let fraction): value = fraction
        }
        try ApphostError.check(report(host.raw, scene.handle, value))
    }

    /// Since ABI 1.3: names `scene` for people, as a window's title names it in a switcher, until
    /// you set another or the scene disconnects; nil or "" takes the title away. A scene has no
    /// title when it connects: set it in `sceneWillConnect`. Older hosts: `ApphostError.unsupported`.
    public func setTitle(_ title: String?, for scene: Scene) throws {
        guard let name = member(\.set_scene_title) else { throw ApphostError.unsupported }
        try ApphostError.check(name(host.raw, scene.handle, title))
    }

    /// Presents modal content titled `title` over `scene`, on top of its modal stack (CONTRACT
    /// N3). The user can always ask to dismiss it: ``SceneDelegate/scene(_:shouldDismiss:)``
    /// decides.
    public func presentModal(on scene: Scene, style: ModalStyle = .sheet, title: String) throws -> Modal {
        guard let present = table.pointee.present_modal else { throw ApphostError.unsupported }
        var id: apphost_modal_t = 0
        try ApphostError.check(present(host.raw, scene.handle, style.rawValue, title, &id))
        return Modal(id: id, sceneHandle: scene.handle)
    }

    /// Dismisses `modal` and every modal presented above it, without asking.
    public func dismiss(_ modal: Modal) throws {
        guard let dismiss = table.pointee.dismiss_modal else { throw ApphostError.unsupported }
        try ApphostError.check(dismiss(host.raw, modal.sceneHandle, modal.id))
    }

    /// Posts a user notification to the host's operators (CONTRACT N1). The host limits how many
    /// a guest may post in a while and reports the rest as refused: post sparingly.
    public func postNotification(title: String, body: String? = nil) throws {
        guard let post = table.pointee.post_notification else { throw ApphostError.unsupported }
        try ApphostError.check(post(host.raw, title, body))
    }
}

/// How a requested scene is shown (CONTRACT S10): the C ABI's `enum apphost_presentation_style`.
public struct PresentationStyle: RawRepresentable, Sendable, Hashable {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// The host chooses.
    public static let automatic = PresentationStyle(rawValue: 0)
    /// Beside the requesting scene.
    public static let standard = PresentationStyle(rawValue: 1)
    /// Above every other scene, which stay visible but inactive until it closes.
    public static let prominent = PresentationStyle(rawValue: 2)
}

/// A scene's size class (CONTRACT S11): the C ABI's `enum apphost_size_class`.
public struct SizeClass: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    public static let compact = SizeClass(rawValue: 0)
    public static let regular = SizeClass(rawValue: 1)

    public var description: String { self == .compact ? "compact" : self == .regular ? "regular" : "\(rawValue)" }
}

/// A scene's size in points of the host's virtual display, and its size class: all a guest
/// learns of the layout it is in (CONTRACT S11).
public struct SceneSize: Sendable, Hashable, CustomStringConvertible {
    public var width: UInt32
    public var height: UInt32
    public var sizeClass: SizeClass

    public init(width: UInt32, height: UInt32, sizeClass: SizeClass) {
        self.width = width
        self.height = height
        self.sizeClass = sizeClass
    }

    init(_ size: apphost_scene_size_t) {
        self.init(width: size.width, height: size.height, sizeClass: SizeClass(rawValue: size.size_class))
    }

    public var description: String { "\(width)x\(height) \(sizeClass)" }
}

/// A scene's loading progress (CONTRACT N2).
public enum LoadingProgress: Sendable, Hashable {
    /// Finished loading.
    case none
    case indeterminate
    /// From 0 to 1.
    case fraction(Double)
}

/// How modal content covers its scene (CONTRACT N3): the C ABI's `enum apphost_modal_style`.
public struct ModalStyle: RawRepresentable, Sendable, Hashable {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    public static let sheet = ModalStyle(rawValue: 0)
    public static let fullScreen = ModalStyle(rawValue: 1)
}

/// A modal presented over a scene.
public struct Modal: Sendable, Hashable {
    /// The modal's id, unique within the guest (never 0).
    public let id: UInt64
    /// The handle of the scene it covers.
    public let sceneHandle: UInt64
}

/// A user action's activation (CONTRACT S9; ABI 1.2): the permission to open one scene, which
/// ``Scenes/activationToken()`` hands out while the action is delivered. Keep it for work that
/// opens the scene later, from any thread, within the activation's window.
public struct Activation: Sendable, Hashable {
    /// The C ABI's `apphost_activation_t`; never 0.
    public let token: UInt64
}

/// Since ABI 1.8: a scene request the host has, as ``Scenes/submitSceneRequest(from:role:style:state:activation:)``
/// returns it (the C ABI's `apphost_request_t`; never 0).
public struct SceneRequestID: RawRepresentable, Sendable, Hashable {
    public let rawValue: UInt64
    public init(rawValue: UInt64) { self.rawValue = rawValue }
}

/// Since ABI 1.8: why the host refused a scene request after accepting it (the C ABI's
/// `enum apphost_request_refusal`); more may come.
public struct SceneRequestRefusal: RawRepresentable, Sendable, Hashable {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// No unspent activation of a user action on the host's account (S9).
    public static let noActivation = SceneRequestRefusal(
        rawValue: Int32(APPHOST_REQUEST_REFUSED_NO_ACTIVATION.rawValue))
    /// The guest does not declare several scenes (S13).
    public static let notDeclared = SceneRequestRefusal(rawValue: Int32(APPHOST_REQUEST_REFUSED_NOT_DECLARED.rawValue))
    /// The guest was suspended, or being suspended or resumed.
    public static let suspended = SceneRequestRefusal(rawValue: Int32(APPHOST_REQUEST_REFUSED_SUSPENDED.rawValue))
    /// The guest asked too often.
    public static let rateLimited = SceneRequestRefusal(rawValue: Int32(APPHOST_REQUEST_REFUSED_RATE_LIMITED.rawValue))
}
