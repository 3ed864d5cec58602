import CApphost

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

// MARK: - The C bridge
//
// ApphostGuestEntry's entry.c forwards apphost_entry and the callback tables
// to these functions (their C declarations are in ApphostGuestEntry.h). They
// are public only so that the compiler keeps their symbols; their hidden C
// declarations (ApphostGuestEntry.h) keep them out of the guest library's
// exports, and guests must not call them.

/// Fills the C descriptor from the registered type, with the table of its
/// actions (ActionTable.swift). The strings and the table are malloc'd and
/// never freed: entry.c pins the library for the life of the process, and the
/// descriptor must stay readable as long as the library is.
@_cdecl("apphost_sdk_fill_descriptor")
public func _apphostSDKFillDescriptor(_ out: UnsafeMutablePointer<apphost_guest_descriptor_t>?) -> Bool {
    guard let out, let type = RunningApp.appType else { return false }
    let descriptor = type.descriptor
    func copy(_ string: String?) -> UnsafePointer<CChar>? {
        guard let string else { return nil }
        return UnsafePointer(strdup(string))
    }
    out.pointee = apphost_guest_descriptor_t(
        struct_size: UInt32(MemoryLayout<apphost_guest_descriptor_t>.size),
        id: copy(descriptor.id),
        name: copy(descriptor.name),
        version: copy(descriptor.version),
        vendor: copy(descriptor.vendor),
        description: copy(descriptor.summary),
        capabilities: descriptor.capabilities.rawValue,
        actions: ActionTable.make(for: type))
    return true
}

@_cdecl("apphost_sdk_init")
public func _apphostSDKInit(_ host: UnsafePointer<apphost_host_t>?) -> Int32 {
    guard let host, let wrapped = Apphost(host) else { return ApphostError.invalidArgument.status }
    guard let type = RunningApp.appType else {
        wrapped.log(level: .error, "ApphostSDK: no @main GuestApp type registered itself")
        return ApphostError.guestFailed.status
    }
    return onMainQueue {
        // A second init without deinit would be a host bug; start afresh anyway.
        RunningApp.current = RunningApp(host: wrapped, app: type.init())
        return 0
    }
}

@_cdecl("apphost_sdk_deinit")
public func _apphostSDKDeinit() {
    onMainQueue {
        // Before the executor stops: streams finish and activate() callers learn the guest is
        // going; the host answers no more.
        RunningApp.current?.host.audioSession.close()
        RunningApp.current = nil
    }
    // The runtime stopped the audio thread before deinit: the renderers may go.
    AudioRenderSlot.reset()
    // The host runs nothing after deinit: drop the actor's waiting jobs, and take back every
    // closure context it still holds (timers never cancelled, tasks never ended, queued work).
    MainQueueExecutor.shared.stop()
    HostCallout.releaseAll()
}

@_cdecl("apphost_sdk_did_finish_launching")
public func _apphostSDKDidFinishLaunching() -> Int32 {
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
}

@_cdecl("apphost_sdk_will_terminate")
public func _apphostSDKWillTerminate() {
    onMainQueue {
        guard let runtime = RunningApp.current else { return }
        runtime.app.willTerminate()
        // Scene handles are invalid after will_terminate (scene.h).
        runtime.scenes.removeAll()
    }
}

@_cdecl("apphost_sdk_did_receive_memory_warning")
public func _apphostSDKDidReceiveMemoryWarning() {
    onMainQueue { RunningApp.current?.app.didReceiveMemoryWarning() }
}

@_cdecl("apphost_sdk_scene_will_connect")
public func _apphostSDKSceneWillConnect(_ connection: UnsafePointer<apphost_scene_connection_t>?) {
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
        let scene = Scene(handle: handle, session: session, initialState: initialState, host: runtime.host)
        let delegate = runtime.app.makeSceneDelegate(for: session)
        runtime.scenes[handle] = (scene, delegate)
        delegate.sceneWillConnect(scene, restorationData: restorationData)
    }
}

/// Delivers a scene callback to the delegate of a connected scene.
private func withScene(
    _ handle: UInt64, _ callback: String, _ body: @GuestActor (Scene, any SceneDelegate) -> Void
) {
    onMainQueue { RunningApp.current?.withScene(handle, callback, body) }
}

@_cdecl("apphost_sdk_scene_will_enter_foreground")
public func _apphostSDKSceneWillEnterForeground(_ handle: UInt64) {
    withScene(handle, "will_enter_foreground") { $1.sceneWillEnterForeground($0) }
}

@_cdecl("apphost_sdk_scene_did_become_active")
public func _apphostSDKSceneDidBecomeActive(_ handle: UInt64) {
    withScene(handle, "did_become_active") { $1.sceneDidBecomeActive($0) }
}

@_cdecl("apphost_sdk_scene_will_resign_active")
public func _apphostSDKSceneWillResignActive(_ handle: UInt64) {
    withScene(handle, "will_resign_active") { $1.sceneWillResignActive($0) }
}

@_cdecl("apphost_sdk_scene_did_enter_background")
public func _apphostSDKSceneDidEnterBackground(_ handle: UInt64) {
    withScene(handle, "did_enter_background") { $1.sceneDidEnterBackground($0) }
}

@_cdecl("apphost_sdk_scene_did_disconnect")
public func _apphostSDKSceneDidDisconnect(_ handle: UInt64) {
    onMainQueue {
        guard let runtime = RunningApp.current else { return }
        runtime.withScene(handle, "did_disconnect") { $1.sceneDidDisconnect($0) }
        runtime.scenes[handle] = nil
    }
}

// MARK: - The scenes extension's callbacks (scenes.h, apphost_guest_scenes_t)

@_cdecl("apphost_sdk_scene_did_change_size")
public func _apphostSDKSceneDidChangeSize(_ handle: UInt64, _ size: UnsafePointer<apphost_scene_size_t>?) {
    guard let size else { return }
    let copied = SceneSize(size.pointee)
    withScene(handle, "did_change_size") { $1.sceneDidChangeSize($0, to: copied) }
}

@_cdecl("apphost_sdk_scene_perform_action")
public func _apphostSDKScenePerformAction(
    _ handle: UInt64, _ name: UnsafePointer<CChar>?, _ payload: UnsafeRawPointer?, _ length: Int
) {
    let action = name.map { String(cString: $0) } ?? ""
    let bytes = payload.map { Array(UnsafeRawBufferPointer(start: $0, count: length)) } ?? []
    withScene(handle, "perform_action") { $1.scene($0, perform: action, payload: bytes) }
}

@_cdecl("apphost_sdk_scene_should_dismiss_modal")
public func _apphostSDKSceneShouldDismissModal(_ handle: UInt64, _ modal: UInt64) -> Int32 {
    onMainQueue {
        var dismiss = true
        RunningApp.current?.withScene(handle, "should_dismiss_modal") {
            dismiss = $1.scene($0, shouldDismiss: Modal(id: modal, sceneHandle: handle))
        }
        return dismiss ? 1 : 0
    }
}

@_cdecl("apphost_sdk_scene_did_dismiss_modal")
public func _apphostSDKSceneDidDismissModal(_ handle: UInt64, _ modal: UInt64) {
    withScene(handle, "did_dismiss_modal") { $1.scene($0, didDismiss: Modal(id: modal, sceneHandle: handle)) }
}

@_cdecl("apphost_sdk_did_discard")
public func _apphostSDKDidDiscard(_ sessionID: UnsafePointer<CChar>?) {
    guard let sessionID else { return }
    let id = SceneSession.ID(rawValue: String(cString: sessionID))
    onMainQueue { RunningApp.current?.app.didDiscardSession(id: id) }
}

@_cdecl("apphost_sdk_did_refuse_request")
public func _apphostSDKDidRefuseRequest(_ request: UInt64, _ reason: Int32) {
    onMainQueue {
        RunningApp.current?.app.didRefuseSceneRequest(
            SceneRequestID(rawValue: request), reason: SceneRequestRefusal(rawValue: reason))
    }
}

// MARK: - The audio extension's callbacks (audio.h, apphost_guest_audio_t)

/// Delivers an event to the running guest's audio session.
private func deliverAudio(_ event: AudioSessionEvent) {
    onMainQueue { RunningApp.current?.host.audioSession.deliver(event) }
}

@_cdecl("apphost_sdk_audio_activation_finished")
public func _apphostSDKAudioActivationFinished(_ request: UInt64, _ result: Int32) {
    onMainQueue { RunningApp.current?.host.audioSession.activationFinished(request, result: result) }
}

@_cdecl("apphost_sdk_audio_interruption_began")
public func _apphostSDKAudioInterruptionBegan(_ reason: Int32) {
    deliverAudio(.interruptionBegan(reason: AudioInterruptionReason(rawValue: reason)))
}

@_cdecl("apphost_sdk_audio_interruption_ended")
public func _apphostSDKAudioInterruptionEnded(_ reason: Int32, _ shouldResume: Int32) {
    deliverAudio(.interruptionEnded(reason: AudioInterruptionReason(rawValue: reason), shouldResume: shouldResume != 0))
}

@_cdecl("apphost_sdk_audio_route_changed")
public func _apphostSDKAudioRouteChanged(
    _ reason: Int32, _ previous: UnsafePointer<apphost_audio_route_t>?, _ current: UnsafePointer<apphost_audio_route_t>?
) {
    // The routes are the host's and valid only during this call: copied here.
    deliverAudio(
        .routeChanged(
            reason: AudioRouteChangeReason(rawValue: reason), previous: AudioRoute(previous),
            current: AudioRoute(current)))
}

@_cdecl("apphost_sdk_audio_secondary_audio_hint")
public func _apphostSDKAudioSecondaryAudioHint(_ silence: Int32) {
    deliverAudio(.secondaryAudioHint(silence: silence != 0))
}

@_cdecl("apphost_sdk_audio_media_services_reset")
public func _apphostSDKAudioMediaServicesReset() {
    deliverAudio(.mediaServicesReset)
}

/// [audio-thread] Renders one period with the renderer the guest set, if any: no lock, no
/// allocation, no hop to the main queue (AudioRender.swift).
@_cdecl("apphost_sdk_audio_render")
public func _apphostSDKAudioRender(_ buffer: UnsafePointer<apphost_audio_buffer_t>?) {
    guard let buffer else { return }
    AudioRenderSlot.render(buffer)
}
