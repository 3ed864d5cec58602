import ApphostHost
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

    /// Calls the guest's save_scene_state through the host interface it was given.
    static func save(_ host: UnsafePointer<apphost_host_t>, scene: UInt64, _ bytes: [UInt8]) -> Int32 {
        bytes.withUnsafeBytes { host.pointee.save_scene_state(host, scene, $0.baseAddress, $0.count) }
    }
}
