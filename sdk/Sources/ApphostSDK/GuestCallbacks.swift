import CApphost

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

// MARK: - The guest's callback tables
//
// Every Swift guest answers apphost_entry.query with these four tables (app.h, scene.h,
// scenes.h, audio.h). Each member is a closure that captures nothing, so that it converts to
// the C function pointer the ABI's struct holds: a new host-to-guest callback is one closure
// here, in the ABI's struct, and its public API (GuestApp.swift, or the file of its concern).
// entry.c's query forwards to ``GuestCallbacks/table(for:)`` (EntryBridge.swift).
//
// Each table's struct_size is the ABI's struct as the SDK was built: an older host reads only
// the members it knows. Every callback but render is called on the guest's main queue and enters
// ``GuestActor`` there (``onMainQueue(_:)``); render runs on the audio thread.

/// The four tables, each made once, on the first query (a Swift global is initialised once and
/// thread-safely, so query stays [thread-safe]), at an address that never changes and is never
/// freed: entry.c pins the library for the life of the process (as the descriptor).
enum GuestCallbacks {
    /// What query answers, by interface id.
    static func table(for id: UnsafePointer<CChar>) -> UnsafeRawPointer? {
        if strcmp(id, APPHOST_GUEST_APP_CALLBACKS_ID) == 0 { return app }
        if strcmp(id, APPHOST_GUEST_SCENE_CALLBACKS_ID) == 0 { return scene }
        if strcmp(id, APPHOST_GUEST_SCENES_CALLBACKS_ID) == 0 { return scenes }
        if strcmp(id, APPHOST_GUEST_AUDIO_CALLBACKS_ID) == 0 { return audio }
        return nil
    }

    /// Copies `table` to memory of its own, kept for good, and returns its address.
    private static func keep<Table>(_ table: Table) -> UnsafeRawPointer {
        let pointer = UnsafeMutablePointer<Table>.allocate(capacity: 1)
        pointer.initialize(to: table)
        return UnsafeRawPointer(pointer)
    }

    /// The size of the ABI's struct `Table` as the SDK was built, for its struct_size.
    private static func size<Table>(of _: Table.Type) -> UInt32 {
        UInt32(MemoryLayout<Table>.size)
    }

    // MARK: apphost_app_callbacks_t (app.h)

    /// Written once, then only read: no isolation needed.
    nonisolated(unsafe) static let app = keep(
        apphost_app_callbacks_t(
            struct_size: size(of: apphost_app_callbacks_t.self),
            did_finish_launching: {
                onMainQueue {
                    guard let runtime = RunningApp.current else { return ApphostError.invalidState.status }
                    // The host takes work for the main queue from now on, not during init.
                    MainQueueExecutor.shared.start(host: runtime.host)
                    do {
                        try runtime.app.didFinishLaunching(host: runtime.host)
                        return 0
                    } catch let error as ApphostError {
                        runtime.host.log(level: .error, "didFinishLaunching failed: \(error)")
                        return error.status
                    } catch {
                        // The host reports the reason of a failed launch (CONTRACT A2): log
                        // the author's error, since the status code cannot carry it.
                        runtime.host.log(level: .error, "didFinishLaunching failed: \(error)")
                        return ApphostError.guestFailed.status
                    }
                }
            },
            will_terminate: {
                onMainQueue {
                    guard let runtime = RunningApp.current else { return }
                    runtime.app.willTerminate()
                    // Scene handles are invalid after will_terminate (scene.h).
                    runtime.scenes.removeAll()
                }
            },
            did_receive_memory_warning: {
                onMainQueue { RunningApp.current?.app.didReceiveMemoryWarning() }
            }))

    // MARK: apphost_scene_callbacks_t (scene.h)

    /// Written once, then only read: no isolation needed.
    nonisolated(unsafe) static let scene = keep(
        apphost_scene_callbacks_t(
            struct_size: size(of: apphost_scene_callbacks_t.self),
            will_connect: { connection in
                // The connection is valid only during this call: copy what is kept.
                guard let info = connection?.pointee, info.scene != 0 else {
                    onMainQueue {
                        RunningApp.current?.host.log(
                            level: .warning, "ApphostSDK: will_connect without a valid connection ignored")
                    }
                    return
                }
                let handle = info.scene
                let session = SceneSession(
                    id: SceneSession.ID(rawValue: info.session_id.map { String(cString: $0) } ?? ""),
                    role: SceneRole(rawValue: info.role))
                let initialState = SceneState(rawValue: info.initial_state)
                let restorationData = info.restoration_data.map {
                    Array(UnsafeRawBufferPointer(start: $0, count: info.restoration_length))
                }
                onMainQueue {
                    guard let runtime = RunningApp.current else { return }
                    let scene = Scene(
                        handle: handle, session: session, initialState: initialState, host: runtime.host)
                    let delegate = runtime.app.makeSceneDelegate(for: session)
                    runtime.scenes[handle] = (scene, delegate)
                    delegate.sceneWillConnect(scene, restorationData: restorationData)
                }
            },
            will_enter_foreground: { handle in
                withScene(handle, "will_enter_foreground") { $1.sceneWillEnterForeground($0) }
            },
            did_become_active: { handle in
                withScene(handle, "did_become_active") { $1.sceneDidBecomeActive($0) }
            },
            will_resign_active: { handle in
                withScene(handle, "will_resign_active") { $1.sceneWillResignActive($0) }
            },
            did_enter_background: { handle in
                withScene(handle, "did_enter_background") { $1.sceneDidEnterBackground($0) }
            },
            did_disconnect: { handle in
                onMainQueue {
                    guard let runtime = RunningApp.current else { return }
                    runtime.withScene(handle, "did_disconnect") { $1.sceneDidDisconnect($0) }
                    runtime.scenes[handle] = nil
                }
            }))

    // MARK: apphost_guest_scenes_t (scenes.h)

    /// Written once, then only read: no isolation needed.
    nonisolated(unsafe) static let scenes = keep(
        apphost_guest_scenes_t(
            struct_size: size(of: apphost_guest_scenes_t.self),
            did_change_size: { handle, size in
                guard let size else { return }
                let copied = SceneSize(size.pointee)
                withScene(handle, "did_change_size") { $1.sceneDidChangeSize($0, to: copied) }
            },
            perform_action: { handle, name, payload, length in
                let action = name.map { String(cString: $0) } ?? ""
                let bytes = payload.map { Array(UnsafeRawBufferPointer(start: $0, count: length)) } ?? []
                withScene(handle, "perform_action") { $1.scene($0, perform: action, payload: bytes) }
            },
            should_dismiss_modal: { handle, modal in
                onMainQueue {
                    var dismiss = true
                    RunningApp.current?.withScene(handle, "should_dismiss_modal") {
                        dismiss = $1.scene($0, shouldDismiss: Modal(id: modal, sceneHandle: handle))
                    }
                    return dismiss ? 1 : 0
                }
            },
            did_dismiss_modal: { handle, modal in
                withScene(handle, "did_dismiss_modal") {
                    $1.scene($0, didDismiss: Modal(id: modal, sceneHandle: handle))
                }
            },
            did_discard: { sessionID in
                guard let sessionID else { return }
                let id = SceneSession.ID(rawValue: String(cString: sessionID))
                onMainQueue { RunningApp.current?.app.didDiscardSession(id: id) }
            },
            did_refuse_request: { request, reason in
                onMainQueue {
                    RunningApp.current?.app.didRefuseSceneRequest(
                        SceneRequestID(rawValue: request), reason: SceneRequestRefusal(rawValue: reason))
                }
            }))

    // MARK: apphost_guest_audio_t (audio.h)

    /// Every Swift guest answers for its audio session: the SDK turns these calls into
    /// AudioSession's events and activate()'s answers, and ignores them when the guest never
    /// touches its session. render (ABI 1.5) calls the guest's renderer, and leaves silence
    /// without one; a host of ABI 1.4 reads the table only up to media_services_reset and never
    /// calls it, nor a host before 1.9 render_demoted. Written once, then only read: no isolation needed.
    nonisolated(unsafe) static let audio = keep(
        apphost_guest_audio_t(
            struct_size: size(of: apphost_guest_audio_t.self),
            activation_finished: { request, result in
                onMainQueue { RunningApp.current?.host.audioSession.activationFinished(request, result: result) }
            },
            interruption_began: { reason in
                deliverAudio(.interruptionBegan(reason: AudioInterruptionReason(rawValue: reason)))
            },
            interruption_ended: { reason, shouldResume in
                deliverAudio(
                    .interruptionEnded(
                        reason: AudioInterruptionReason(rawValue: reason), shouldResume: shouldResume != 0))
            },
            route_changed: { reason, previous, current in
                // The routes are the host's and valid only during this call: copied here.
                deliverAudio(
                    .routeChanged(
                        reason: AudioRouteChangeReason(rawValue: reason), previous: AudioRoute(previous),
                        current: AudioRoute(current)))
            },
            secondary_audio_hint: { silence in
                deliverAudio(.secondaryAudioHint(silence: silence != 0))
            },
            media_services_reset: {
                deliverAudio(.mediaServicesReset)
            },
            render: { buffer in
                // [audio-thread] Renders one period with the renderer the guest set, if any: no
                // lock, no allocation, no hop to the main queue (AudioRender.swift).
                guard let buffer else { return }
                AudioRenderSlot.render(buffer)
            },
            render_demoted: { reason in
                deliverAudio(.renderDemoted(reason: AudioDemotionReason(rawValue: reason)))
            }))
}

/// Delivers a scene callback to the delegate of a connected scene.
private func withScene(
    _ handle: UInt64, _ callback: String, _ body: @GuestActor (Scene, any SceneDelegate) -> Void
) {
    onMainQueue { RunningApp.current?.withScene(handle, callback, body) }
}

/// Delivers an event to the running guest's audio session.
private func deliverAudio(_ event: AudioSessionEvent) {
    onMainQueue { RunningApp.current?.host.audioSession.deliver(event) }
}
