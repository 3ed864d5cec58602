import ApphostModel
import Foundation

/// A snapshot of the host for operators (`apphost ctl ps`).
public struct HostStatus: Sendable, Codable, Equatable {
    /// The guest in the foreground, if any.
    public var foreground: String?
    /// Whether a host alert is shown (S4).
    public var alert: Bool
    public var guests: [GuestStatus]
    /// The virtual display, e.g. "1920x1080", and how its scenes are arranged (S11).
    public var display: String
    public var layout: Layout
    /// Event lines `apphost launch` has dropped since it started because its standard output was
    /// not being read (CONTRACT X2); nil when it dropped none, or prints no events.
    public var droppedEventLines: Int? = nil
    /// The host's side of audio: volume, silence switch, call, devices (C9, C10, C12).
    public var audio: AudioHostStatus? = nil
    /// Who the host is (CONTRACT O4); nil before it started.
    public var host: HostIdentity? = nil

    /// The layout in one line, scenes named "<guest>/<session's first 8 characters>".
    public var layoutLine: String { layout.describe(Layout.shortName) }

    public init(
        foreground: String?, alert: Bool, guests: [GuestStatus], display: String, layout: Layout,
        droppedEventLines: Int? = nil, audio: AudioHostStatus? = nil, host: HostIdentity? = nil
    ) {
        self.foreground = foreground
        self.alert = alert
        self.guests = guests
        self.display = display
        self.layout = layout
        self.droppedEventLines = droppedEventLines
        self.audio = audio
        self.host = host
    }
}

public struct GuestStatus: Sendable, Codable, Equatable {
    public var id: String
    public var name: String
    public var version: String
    public var path: String
    public var appState: AppState
    public var phase: GuestPhase
    /// The reason of the last transition (A5) and when it happened.
    public var lastReason: TransitionReason
    public var since: Date
    public var scenes: [SceneStatus]
    public var restart: RestartStatus
    /// Seconds left of its background budget (B2); nil while unlimited (foreground) or not running.
    public var backgroundTimeRemaining: Double?
    /// Its open background tasks, oldest first.
    public var tasks: [TaskStatus]
    /// Since when and why it is suspended; nil while it is not.
    public var suspension: SuspensionStatus?
    /// The process of its worker while it runs in one (`--isolation process`); nil in the host's
    /// process or when it is not running.
    public var pid: Int32? = nil
    /// Its audio session while it runs (C1 to C12).
    public var audio: AudioSessionStatus? = nil
    /// The actions its descriptor declares, which `ctl call` calls (F1).
    public var actions: [GuestAction] = []
    /// Its container while it runs in a worker (X6); nil in the host's process or when it is not
    /// running.
    public var sandbox: SandboxStatus? = nil

    public init(
        id: String, name: String, version: String, path: String, appState: AppState, phase: GuestPhase,
        lastReason: TransitionReason, since: Date, scenes: [SceneStatus], restart: RestartStatus,
        backgroundTimeRemaining: Double?, tasks: [TaskStatus], suspension: SuspensionStatus?, pid: Int32? = nil,
        audio: AudioSessionStatus? = nil, actions: [GuestAction] = [], sandbox: SandboxStatus? = nil
    ) {
        self.id = id
        self.name = name
        self.version = version
        self.path = path
        self.appState = appState
        self.phase = phase
        self.lastReason = lastReason
        self.since = since
        self.scenes = scenes
        self.restart = restart
        self.backgroundTimeRemaining = backgroundTimeRemaining
        self.tasks = tasks
        self.suspension = suspension
        self.pid = pid
        self.audio = audio
        self.actions = actions
        self.sandbox = sandbox
    }
}

public struct TaskStatus: Sendable, Codable, Equatable {
    public var id: TaskID
    public var name: String
    /// Its expiration handler has been called (B3).
    public var expired: Bool

    public init(id: TaskID, name: String, expired: Bool) {
        self.id = id
        self.name = name
        self.expired = expired
    }
}

public struct SuspensionStatus: Sendable, Codable, Equatable {
    public var since: Date
    public var reason: TransitionReason

    public init(
        since: Date, reason: TransitionReason
    ) {
        self.since = since
        self.reason = reason
    }
}

public struct SceneStatus: Sendable, Codable, Equatable {
    public var handle: SceneHandle?
    public var session: String
    public var role: SceneRole
    public var state: SceneState
    /// Size in bytes of the last state the host has for good (stored; without a store, kept):
    /// what a restarted host would restore (S12, X5); nil when there is none.
    public var savedBytes: Int?
    /// Its size where it was last shown (S11); nil when never shown.
    public var size: SceneSize?
    /// Where the layout shows it: "full screen", "split left", ... ; nil when not shown.
    public var placement: String?
    /// What the guest named it while connected (`set_scene_title`); nil for no title.
    public var title: String? = nil
    public var loading: LoadingProgress
    /// Its modal stack, bottom first (N3).
    public var modals: [ModalStatus]
    /// Why its last save, or its session, could not be stored ("disk full"), until a save is
    /// stored; nil when the last one was (X5).
    public var saveFailure: String? = nil

    public init(
        handle: SceneHandle?, session: String, role: SceneRole, state: SceneState, savedBytes: Int?, size: SceneSize?,
        placement: String?, title: String? = nil, loading: LoadingProgress, modals: [ModalStatus],
        saveFailure: String? = nil
    ) {
        self.handle = handle
        self.session = session
        self.role = role
        self.state = state
        self.savedBytes = savedBytes
        self.size = size
        self.placement = placement
        self.title = title
        self.loading = loading
        self.modals = modals
        self.saveFailure = saveFailure
    }
}

public struct ModalStatus: Sendable, Codable, Equatable {
    public var id: ModalID
    public var style: ModalStyle
    public var title: String

    public init(
        id: ModalID, style: ModalStyle, title: String
    ) {
        self.id = id
        self.style = style
        self.title = title
    }
}
