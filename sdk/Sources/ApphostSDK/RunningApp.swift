import CApphost

/// The SDK's state for the guest library it is linked into: the registered
/// app type, and while the guest runs (from init to deinit) its host, app and
/// connected scenes.
///
/// Isolated to ``GuestActor``: the host makes every call on the guest's main
/// queue, one at a time (sdk/include/apphost/entry.h, app.h, scene.h), and
/// the callback tables (GuestCallbacks.swift) enter the actor there with ``onMainQueue(_:)``.
@GuestActor
final class RunningApp {
    /// Set by `GuestApp.main()` while the library loads, under the dynamic
    /// loader's lock, before dlopen returns and so before any other access:
    /// hence `nonisolated(unsafe)`.
    nonisolated(unsafe) static var appType: (any GuestApp.Type)?
    /// Set by init, cleared by deinit.
    static var current: RunningApp?

    nonisolated static func register(_ type: any GuestApp.Type) {
        appType = type
    }

    let host: Apphost
    let app: any GuestApp
    /// The connected scenes by handle, with the delegate the app made for each.
    var scenes: [UInt64: (scene: Scene, delegate: any SceneDelegate)] = [:]

    init(host: Apphost, app: any GuestApp) {
        self.host = host
        self.app = app
    }

    /// Runs `body` for a connected scene; logs and ignores an unknown handle
    /// (CONTRACT X3 asks the same tolerance of the host).
    func withScene(_ handle: UInt64, _ callback: String, _ body: @GuestActor (Scene, any SceneDelegate) -> Void) {
        guard let entry = scenes[handle] else {
            host.log(level: .warning, "ApphostSDK: \(callback) for unknown scene=\(handle) ignored")
            return
        }
        body(entry.scene, entry.delegate)
    }
}

/// Runs `body` for a call that the host is delivering on the guest's main queue: a C callback.
func onMainQueue<T>(_ body: @GuestActor () throws -> T) rethrows -> T {
    try MainQueue.run { try GuestActor.assumeIsolated(body) }
}
