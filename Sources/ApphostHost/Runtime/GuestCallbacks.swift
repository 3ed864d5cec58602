import CApphost

/// The callback tables a guest returned from query(), copied so that members past a table's
/// struct_size read as NULL: "not implemented", skipped.
struct GuestCallbacks {
    let app: apphost_app_callbacks_t
    /// Nil for a guest without scene callbacks: its scene calls are all skipped.
    let scene: apphost_scene_callbacks_t?

    /// Nil when the guest offers no app callbacks, which every guest must.
    init?(query: @convention(c) (UnsafePointer<CChar>?) -> UnsafeRawPointer?) {
        guard let app = query(APPHOST_GUEST_APP_CALLBACKS_ID) else { return nil }
        self.app = SizedStructCopy.copy(app, as: apphost_app_callbacks_t.self, zeroed: apphost_app_callbacks_t())
        scene = query(APPHOST_GUEST_SCENE_CALLBACKS_ID).map {
            SizedStructCopy.copy($0, as: apphost_scene_callbacks_t.self, zeroed: apphost_scene_callbacks_t())
        }
    }

    /// Calls the C callback for `call`; returns its status, or APPHOST_OK for a void or missing one.
    func invoke(_ call: GuestCall) -> Int32 {
        switch call {
        case .didFinishLaunching:
            return app.did_finish_launching?() ?? StatusCode.ok
        case .willTerminate:
            app.will_terminate?()
        case .didReceiveMemoryWarning:
            app.did_receive_memory_warning?()
        case .sceneWillConnect(let connection):
            if let willConnect = scene?.will_connect {
                connection.withCConnection { willConnect($0) }
            }
        case .scene(let handle, let callback):
            sceneCallback(callback)?(handle)
        case .expireTask, .fireTimer, .runWork, .backgroundTime:
            return StatusCode.internal
        }
        return StatusCode.ok
    }

    private func sceneCallback(_ callback: SceneCallback) -> (@convention(c) (UInt64) -> Void)? {
        guard let scene else { return nil }
        return switch callback {
        case .willEnterForeground: scene.will_enter_foreground
        case .didBecomeActive: scene.did_become_active
        case .willResignActive: scene.will_resign_active
        case .didEnterBackground: scene.did_enter_background
        case .didDisconnect: scene.did_disconnect
        }
    }
}

extension SceneConnection {
    /// Runs `body` with this connection as C sees it; the session id and restoration bytes live
    /// only during the call, as scene.h says.
    func withCConnection(_ body: (UnsafePointer<apphost_scene_connection_t>) -> Void) {
        var connection = apphost_scene_connection_t()
        connection.struct_size = UInt32(MemoryLayout<apphost_scene_connection_t>.size)
        connection.scene = scene
        connection.role = role.rawValue
        connection.initial_state = initialState.rawValue
        sessionID.withCString { sessionID in
            connection.session_id = sessionID
            withRestorationBytes { bytes, length in
                connection.restoration_data = bytes
                connection.restoration_length = length
                withUnsafePointer(to: connection, body)
            }
        }
    }

    /// NULL and 0 when the session saved nothing; a non-NULL pointer for an empty saved state, so
    /// that the guest can tell the two apart.
    private func withRestorationBytes(_ body: (UnsafeRawPointer?, Int) -> Void) {
        guard let restorationData else { return body(nil, 0) }
        guard !restorationData.isEmpty else {
            return withUnsafeBytes(of: UInt8(0)) { body($0.baseAddress, 0) }
        }
        restorationData.withUnsafeBytes { body($0.baseAddress, $0.count) }
    }
}
