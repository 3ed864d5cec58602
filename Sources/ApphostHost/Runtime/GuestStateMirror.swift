import Synchronization

/// The states the host last told the guest, so that `app_state` and `scene_state` answer "as of
/// the callback being delivered" without asking the host, and `save_scene_state` knows which
/// handles are connected. Written on the guest's main queue, read from any guest thread.
final class GuestStateMirror: Sendable {
    private struct State {
        var app: AppState = .notRunning
        /// Connected scenes, from will_connect until did_disconnect or will_terminate.
        var scenes: [SceneHandle: SceneState] = [:]
    }

    private let state = Mutex(State())

    var appState: AppState { state.withLock { $0.app } }

    func sceneState(_ scene: SceneHandle) -> SceneState? { state.withLock { $0.scenes[scene] } }

    /// Runs `body` only if `scene` is connected, holding the lock so that the scene cannot
    /// disconnect meanwhile; returns whether it ran.
    func ifConnected(_ scene: SceneHandle, _ body: () -> Void) -> Bool {
        state.withLock { state in
            guard state.scenes[scene] != nil else { return false }
            body()
            return true
        }
    }

    /// Applies what `message` says before its callback runs. A disconnecting scene's handle is
    /// already invalid during did_disconnect.
    func willDeliver(_ message: GuestMessage) {
        state.withLock { state in
            state.app = message.appState
            switch message.call {
            case .sceneWillConnect(let connection):
                state.scenes[connection.scene] = message.sceneState ?? connection.initialState
            case .scene(let scene, .didDisconnect):
                state.scenes[scene] = nil
            case .scene(let scene, _):
                if state.scenes[scene] != nil, let sceneState = message.sceneState { state.scenes[scene] = sceneState }
            case .didFinishLaunching, .willTerminate, .didReceiveMemoryWarning, .expireTask, .fireTimer, .runWork,
                .backgroundTime:
                break
            }
        }
    }

    /// Applies what `message` says after its callback returned: scenes stay valid during
    /// will_terminate, so that the guest can save them there (CONTRACT A3), and not after.
    func didDeliver(_ message: GuestMessage) {
        guard message.call == .willTerminate else { return }
        state.withLock { $0.scenes.removeAll() }
    }
}
