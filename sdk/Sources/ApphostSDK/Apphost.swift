import CApphost

/// The host, as the guest sees it: the C ABI's `apphost_host_t`.
///
/// Valid from launch until the guest is unloaded. Members marked
/// thread-safe may be called from any thread, including threads the guest
/// started; the others are isolated to ``GuestActor``, the guest's main queue,
/// where the C ABI allows them.
///
/// Not `Host`, which Foundation has too.
///
/// `@unchecked Sendable`: the wrapped C struct is constant and owned by the
/// host until deinit, and the host's header makes its log, data directory and
/// save functions thread-safe; the main-queue members say so.
public final class Apphost: @unchecked Sendable {
    /// Internal so that extension wrappers such as ``Background`` can pass it to the host.
    let raw: UnsafePointer<apphost_host_t>

    /// The host program's name, such as "apphost".
    public let name: String
    /// The host program's version.
    public let version: String
    /// The ABI version the host implements.
    public let abiVersion: ABIVersion
    /// The guest's one audio session (``audioSession``), made with the host.
    let audio: AudioSession

    /// The members the SDK reads, up to `get_extension`: all of ABI 1.0's,
    /// which every host of major version 1 has.
    static let requiredSize =
        MemoryLayout<apphost_host_t>.offset(of: \apphost_host_t.get_extension)!
        + MemoryLayout<UnsafeRawPointer>.size

    /// Wraps `raw`, or returns nil when the host's struct lacks a member the
    /// SDK reads, which only a broken host's does. A host of an older minor
    /// version than these headers may have a smaller struct than theirs: the
    /// SDK reads no member past ``requiredSize`` without checking its
    /// `struct_size` first.
    init?(_ raw: UnsafePointer<apphost_host_t>) {
        guard Int(raw.pointee.struct_size) >= Self.requiredSize else { return nil }
        self.raw = raw
        let host = raw.pointee
        name = host.name.map { String(cString: $0) } ?? ""
        version = host.version.map { String(cString: $0) } ?? ""
        abiVersion = ABIVersion(
            major: host.abi_version.major, minor: host.abi_version.minor,
            revision: host.abi_version.revision)
        audio = AudioSession(host: raw)
    }

    /// Writes `message` to the host's event stream. Thread-safe. The host
    /// keeps at most 4096 bytes of it; a NUL byte ends it early.
    public func log(level: LogLevel = .info, _ message: String) {
        guard let log = raw.pointee.log else { return }
        _ = log(raw, level.rawValue, message)
    }

    /// The absolute path of this guest's own data directory, which exists and
    /// which only this guest uses. Thread-safe.
    public var dataDirectory: String {
        guard let function = raw.pointee.data_directory,
            let path = function(raw)
        else { return "" }
        return String(cString: path)
    }

    /// The guest's app state as of the callback being delivered.
    @GuestActor
    public var appState: AppState {
        guard let function = raw.pointee.app_state else { return .notRunning }
        return AppState(rawValue: function(raw))
    }

    /// The state of `scene` as of the callback being delivered. Throws
    /// ``ApphostError/invalidHandle`` for a scene that is no longer connected.
    @GuestActor
    public func sceneState(for scene: Scene) throws -> SceneState {
        guard let function = raw.pointee.scene_state else {
            throw ApphostError.unsupported
        }
        var state: Int32 = 0
        try ApphostError.check(function(raw, scene.handle, &state))
        return SceneState(rawValue: state)
    }

    /// Hands the host the state of `scene` to give back when its session
    /// reconnects (CONTRACT S12). The host copies the bytes. Thread-safe.
    /// Throws ``ApphostError/tooLarge`` past 1 MiB and
    /// ``ApphostError/invalidHandle`` for a scene that is no longer connected.
    public func saveState(_ bytes: [UInt8], for scene: Scene) throws {
        guard let function = raw.pointee.save_scene_state else {
            throw ApphostError.unsupported
        }
        let status = bytes.withUnsafeBytes { buffer in
            function(raw, scene.handle, buffer.baseAddress, buffer.count)
        }
        try ApphostError.check(status)
    }

    /// ABI 1.7: ``saveState(_:for:)``, and a word once the save is stored for good, as a
    /// database's commit tells its client (CONTRACT X5): `confirmed` runs once on the guest's
    /// main queue, after the host's event stream reported the save, with nil when the host has
    /// stored it (a host killed from then on restores it, or a later save), or
    /// ``ApphostError/internalError`` when it could not (its disk is full, say; it keeps trying
    /// to store what the scene saved last) or the scene's session closed first. It does not run
    /// if the guest is terminated first. Thread-safe, but do not wait for it on the main queue:
    /// it runs there. Throws as ``saveState(_:for:)``, and ``ApphostError/limitReached``, saving
    /// nothing, while 64 saves wait for theirs; ``ApphostError/unsupported`` from a host older
    /// than ABI 1.7. After ``ApphostError/internalError`` the bytes still reached the host and
    /// `confirmed` still runs.
    public func saveState(
        _ bytes: [UInt8], for scene: Scene, confirmed: sending @escaping @GuestActor (ApphostError?) -> Void
    ) throws {
        guard Int(raw.pointee.struct_size) >= Self.confirmedSaveSize,
            let function = raw.pointee.save_scene_state_confirmed
        else {
            throw ApphostError.unsupported
        }
        let callout = HostCallout(oneShot: true) { status in
            confirmed(ApphostError(status: Int32(bitPattern: UInt32(truncatingIfNeeded: status))))
        }
        let status = bytes.withUnsafeBytes { buffer in
            function(
                raw, scene.handle, buffer.baseAddress, buffer.count, hostCalloutConfirmationTrampoline,
                callout.retainForHost())
        }
        if let error = ApphostError(status: status) {
            // Handed over all the same, and confirmed later (host.h).
            if error != .internalError { callout.hostRefused() }
            throw error
        }
    }

    /// The members up to `save_scene_state_confirmed` (ABI 1.7).
    static let confirmedSaveSize =
        MemoryLayout<apphost_host_t>.offset(of: \apphost_host_t.save_scene_state_confirmed)!
        + MemoryLayout<UnsafeRawPointer>.size

    /// The host extension with id `id` ("apphost.<area>/<revision>"), as a
    /// pointer to the C struct its header declares, or nil when the host does
    /// not offer it. Thread-safe. The struct stays valid until the guest is
    /// unloaded.
    public func extensionInterface(_ id: String) -> UnsafeRawPointer? {
        guard let function = raw.pointee.get_extension else { return nil }
        return function(raw, id)
    }
}

/// Log levels: the C ABI's `enum apphost_log_level`.
public enum LogLevel: Int32, Sendable, CaseIterable {
    case trace = 0
    case debug = 1
    case info = 2
    case warning = 3
    case error = 4
}

/// App states (CONTRACT A1): the C ABI's `enum apphost_app_state`. A struct
/// rather than an enum because a later minor version of the ABI may add
/// values: switch over it with a `default`.
public struct AppState: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    public static let notRunning = AppState(rawValue: 0)
    public static let inactive = AppState(rawValue: 1)
    public static let active = AppState(rawValue: 2)
    public static let background = AppState(rawValue: 3)
    public static let suspended = AppState(rawValue: 4)

    public var description: String {
        switch self {
        case .notRunning: "notRunning"
        case .inactive: "inactive"
        case .active: "active"
        case .background: "background"
        case .suspended: "suspended"
        default: "appState(\(rawValue))"
        }
    }
}

/// An ABI version, as in `apphost_version_t`.
public struct ABIVersion: Sendable, Hashable, CustomStringConvertible {
    public let major: UInt32
    public let minor: UInt32
    public let revision: UInt32

    public init(major: UInt32, minor: UInt32, revision: UInt32) {
        self.major = major
        self.minor = minor
        self.revision = revision
    }

    /// The version this SDK was built for.
    public static let sdk = ABIVersion(
        major: UInt32(APPHOST_ABI_VERSION_MAJOR),
        minor: UInt32(APPHOST_ABI_VERSION_MINOR),
        revision: UInt32(APPHOST_ABI_VERSION_REVISION))

    public var description: String { "\(major).\(minor).\(revision)" }
}
