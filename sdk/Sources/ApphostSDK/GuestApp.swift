/// The app delegate of a Swift guest: what `UIApplicationDelegate` is to an iOS app.
///
/// Write one final class that conforms, mark it `@main`, and give it a static
/// ``descriptor``. The SDK exports the C entry symbol for you: `@main` runs
/// the default ``main()`` when the host loads the library, which registers the
/// type; the SDK then creates the one instance with ``init()`` when the host
/// calls `init`, and forwards the host's callbacks to it.
///
/// ```swift
/// import ApphostSDK
///
/// @main
/// final class NotesApp: GuestApp {
///     static let descriptor = GuestDescriptor(
///         id: "org.example.notes", name: "Notes", version: "1.0.0")
///     required init() {}
///     func didFinishLaunching(host: Apphost) throws { host.log(level: .info, "launched") }
///     func makeSceneDelegate(for session: SceneSession) -> SceneDelegate { NotesScene() }
/// }
/// ```
///
/// Threading: the host calls every method, of this protocol and of
/// ``SceneDelegate``, on the guest's main queue, one call at a time, and
/// never while the guest is suspended. Both protocols are isolated to
/// ``GuestActor``, the main queue as a global actor (not `@MainActor`: the
/// queue is not necessarily the process's main thread), and so are the
/// classes that conform to them: they are `Sendable`, their state needs no
/// lock, and code on other threads or in a `Task` reaches it with `await`.
/// Each call must return within the host's watchdog limit (5 s by default,
/// CONTRACT B5).
@GuestActor
public protocol GuestApp: AnyObject {
    /// Who the guest is. The host reads it right after loading the library,
    /// before anything else runs, and off the main queue: keep it constant
    /// (a `static let`), and never change `id`.
    nonisolated static var descriptor: GuestDescriptor { get }

    /// The actions an operator may call in the running guest (``GuestAction``), each made with
    /// ``action(_:description:foreground:_:)``; none by default. Like ``descriptor``, the host
    /// reads them right after loading the library, before anything else runs, and off the main
    /// queue: keep them constant (a `static let`).
    nonisolated static var actions: [GuestAction] { get }

    /// Creates the app. Called once per launch, when the host calls `init`,
    /// before any other method.
    init()

    /// Called once per launch, before any scene connects (CONTRACT A2).
    /// Throw to fail the launch: the host reports the error and unloads the
    /// guest; an ``ApphostError`` keeps its status code, any other error
    /// becomes ``ApphostError/guestFailed``. `host` stays valid until the
    /// guest is unloaded: keep it if you need it later.
    func didFinishLaunching(host: Apphost) throws

    /// The guest is about to be terminated and unloaded (CONTRACT A3): save
    /// what must survive. Scenes get no callbacks after this.
    func willTerminate()

    /// The host is short of memory (CONTRACT A4): free caches.
    func didReceiveMemoryWarning()

    /// Returns the delegate for a scene that is connecting; the SDK then calls
    /// its ``SceneDelegate/sceneWillConnect(_:restorationData:)``. Called once
    /// per connection; the SDK keeps the delegate until the scene disconnects
    /// or the guest terminates.
    func makeSceneDelegate(for session: SceneSession) -> SceneDelegate

    /// The user closed the session `id` for good, with the state it saved
    /// (CONTRACT S7): forget what you kept for it. A guest that was not
    /// running then hears it right after ``didFinishLaunching(host:)``.
    func didDiscardSession(id: SceneSession.ID)

    /// Since ABI 1.8: the host refused the scene request `request` after accepting it (CONTRACT
    /// S9, S13): no scene connects for it. `request` is what
    /// ``Scenes/submitSceneRequest(from:role:style:state:activation:)`` returned (requests made
    /// through `requestScene` are refused here too, with ids they never returned). A host older
    /// than 1.8 never calls it.
    func didRefuseSceneRequest(_ request: SceneRequestID, reason: SceneRequestRefusal)
}

extension GuestApp {
    /// Registers `Self` with the SDK. The `@main` attribute makes this the
    /// library's `main`, which the SDK's C entry calls once while the library
    /// loads. Do not call it yourself, and do not replace it.
    public nonisolated static func main() {
        RunningApp.register(Self.self)
    }

    public func didFinishLaunching(host: Apphost) throws {}
    public func willTerminate() {}
    public func didReceiveMemoryWarning() {}
    public func didDiscardSession(id: SceneSession.ID) {}
    public func didRefuseSceneRequest(_ request: SceneRequestID, reason: SceneRequestRefusal) {}

    /// By default a scene gets a delegate that ignores every callback.
    public func makeSceneDelegate(for session: SceneSession) -> SceneDelegate {
        IgnoringSceneDelegate()
    }
}

/// Who a guest is: the C ABI's `apphost_guest_descriptor_t`.
public struct GuestDescriptor: Sendable, Hashable {
    /// Reverse-DNS identifier, such as "org.example.notes": two or more labels
    /// of ASCII letters, digits and '-', separated by '.', at most 255 bytes.
    /// It names the guest's data directory and saved state.
    public var id: String
    /// Display name for operators; not empty.
    public var name: String
    /// The guest's own version, such as "1.4.2"; not empty.
    public var version: String
    /// Who makes the guest.
    public var vendor: String?
    /// One line on what the guest does (the C descriptor's `description`).
    public var summary: String?
    /// What the guest declares it needs.
    public var capabilities: GuestCapabilities

    public init(
        id: String, name: String, version: String, vendor: String? = nil, summary: String? = nil,
        capabilities: GuestCapabilities = []
    ) {
        self.id = id
        self.name = name
        self.version = version
        self.vendor = vendor
        self.summary = summary
        self.capabilities = capabilities
    }
}

/// The entitlements a guest declares (CONTRACT A6): the C ABI's `enum apphost_capability` bits.
/// The host gives exactly these; a guest that declares none gets its container alone (X6).
public struct GuestCapabilities: OptionSet, Sendable, Hashable {
    public let rawValue: UInt64
    public init(rawValue: UInt64) { self.rawValue = rawValue }

    /// May keep playing or recording audio in background (CONTRACT B9).
    public static let backgroundAudio = GuestCapabilities(rawValue: 1 << 0)
    /// Supports more than one scene at a time.
    public static let multipleScenes = GuestCapabilities(rawValue: 1 << 1)
    /// Runs background tasks.
    public static let backgroundTasks = GuestCapabilities(rawValue: 1 << 2)
    /// May use the network (ABI 1.10); without it, no socket of a network family opens.
    public static let network = GuestCapabilities(rawValue: 1 << 3)
    /// May record, with the `.record` and `.playAndRecord` categories (ABI 1.10).
    public static let audioInput = GuestCapabilities(rawValue: 1 << 4)
}
