import ApphostModel
import ApphostVocabulary
import CApphost
import Foundation

/// Guest messages as `HostCore` sends them.
enum TestMessages {
    static let launch = GuestMessage(call: .didFinishLaunching, appState: .inactive)
    static let memoryWarning = GuestMessage(call: .didReceiveMemoryWarning, appState: .background)
    static let terminate = GuestMessage(call: .willTerminate, appState: .background)

    static func connect(_ scene: SceneHandle, restoration: Data? = nil) -> GuestMessage {
        GuestMessage(
            call: .sceneWillConnect(
                SceneConnection(
                    scene: scene, sessionID: "session-\(scene)", role: .primary, initialState: .foregroundInactive,
                    restorationData: restoration)),
            appState: .inactive, sceneState: .unattached)
    }

    static func scene(_ handle: SceneHandle, _ callback: SceneCallback, app: AppState, state: SceneState)
        -> GuestMessage
    {
        GuestMessage(call: .scene(handle, callback), appState: app, sceneState: state)
    }

    /// One scene's whole life as HostCore sends it: launch, foreground connection, active,
    /// background, a memory warning, disconnection.
    static let sceneLifecycle = [
        launch, connect(1),
        scene(1, .willEnterForeground, app: .inactive, state: .foregroundInactive),
        scene(1, .didBecomeActive, app: .active, state: .foregroundActive),
        scene(1, .willResignActive, app: .inactive, state: .foregroundInactive),
        scene(1, .didEnterBackground, app: .background, state: .background),
        memoryWarning,
        scene(1, .didDisconnect, app: .background, state: .unattached),
    ]

    /// Calls the guest's save_scene_state through the host interface it was given.
    static func save(_ host: UnsafePointer<apphost_host_t>, scene: UInt64, _ bytes: [UInt8]) -> Int32 {
        bytes.withUnsafeBytes { host.pointee.save_scene_state(host, scene, $0.baseAddress, $0.count) }
    }
}
