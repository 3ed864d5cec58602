import ApphostGuestRuntime
import ApphostVocabulary
import CApphost

/// A `GuestMessage` as the C guest runtime's `ahr_call`: the one place where the host's calls
/// become the runtime's. The in-process channel hands the call to the runtime as it is; the worker
/// channel encodes it with the wire's codec (wire_messages.h), and the worker hands the decoded
/// call to the same runtime.
enum RuntimeCall {
    /// Calls `body` with `message` as an `ahr_call`, whose strings and bytes live only during the
    /// call: copy what outlives it.
    static func with<Result>(_ message: GuestMessage, _ body: (UnsafePointer<ahr_call>) -> Result) -> Result {
        var call = ahr_call()
        call.app_state = message.appState.rawValue
        call.has_scene_state = message.sceneState != nil
        call.scene_state = message.sceneState?.rawValue ?? 0
        switch message.call {
        case .didFinishLaunching:
            call.kind = AHR_CALL_DID_FINISH_LAUNCHING
        case .willTerminate:
            call.kind = AHR_CALL_WILL_TERMINATE
        case .didReceiveMemoryWarning:
            call.kind = AHR_CALL_MEMORY_WARNING
        case .scene(let scene, let callback):
            call.kind = AHR_CALL_SCENE_CALLBACK
            call.scene = scene
            call.scene_callback = sceneCallback(callback)
        case .sceneWillConnect(let connection):
            call.kind = AHR_CALL_WILL_CONNECT
            call.scene = connection.scene
            call.role = connection.role.rawValue
            call.initial_state = connection.initialState.rawValue
            return connection.sessionID.withCString { sessionID in
                call.session_id = sessionID
                call.session_id_length = connection.sessionID.utf8.count
                // No restoration (has_restoration false) when the session saved nothing; an empty
                // saved state is one, of length 0, so that the guest can tell the two apart (S12).
                guard let restoration = connection.restorationData else { return body(&call) }
                call.has_restoration = true
                return restoration.withUnsafeBytes { bytes in
                    call.restoration = bytes.baseAddress
                    call.restoration_length = bytes.count
                    return body(&call)
                }
            }
        case .expireTask(let task):
            call.kind = AHR_CALL_EXPIRE_TASK
            call.id = task
        case .fireTimer(let timer):
            call.kind = AHR_CALL_FIRE_TIMER
            call.id = timer
        case .runWork(let work):
            call.kind = AHR_CALL_RUN_WORK
            call.id = work
        case .backgroundTime(let remaining):
            call.kind = AHR_CALL_BACKGROUND_TIME
            call.background_time_ns =
                remaining.map { Int64(clamping: WireDuration.nanoseconds($0)) } ?? Int64(AHR_BACKGROUND_TIME_UNLIMITED)
        case .sceneSize(let scene, let size):
            call.kind = AHR_CALL_SCENE_SIZE
            call.scene = scene
            call.width = size.width
            call.height = size.height
            call.size_class = size.sizeClass.rawValue
        case .performAction(let scene, let name, let payload, let activation, let token):
            call.kind = AHR_CALL_PERFORM_ACTION
            call.scene = scene
            call.activation_ns = WireDuration.nanoseconds(activation)
            call.activation = token
            // The name and payload live only during the call, as scenes.h says; an empty payload
            // reaches the guest as NULL.
            return name.withCString { text in
                call.action_name = text
                call.action_name_length = name.utf8.count
                return payload.withUnsafeBytes { bytes in
                    call.payload = bytes.count > 0 ? bytes.baseAddress : nil
                    call.payload_length = bytes.count
                    return body(&call)
                }
            }
        case .shouldDismissModal(let scene, let modal):
            call.kind = AHR_CALL_SHOULD_DISMISS_MODAL
            call.scene = scene
            call.modal = modal
        case .didDismissModal(let scene, let modal):
            call.kind = AHR_CALL_DID_DISMISS_MODAL
            call.scene = scene
            call.modal = modal
        case .didDiscard(let sessionID):
            call.kind = AHR_CALL_DID_DISCARD
            return sessionID.withCString { session in
                call.session_id = session
                call.session_id_length = sessionID.utf8.count
                return body(&call)
            }
        case .notificationLimit(let count, let window):
            call.kind = AHR_CALL_NOTIFICATION_LIMIT
            call.notification_limit = UInt32(clamping: count)
            call.notification_window_ns = WireDuration.nanoseconds(window)
        case .saveStatus(let scene, let failed):
            call.kind = AHR_CALL_SAVE_STATUS
            call.scene = scene
            call.save_failed = failed
        case .saveConfirmation(let id, let stored):
            call.kind = AHR_CALL_SAVE_CONFIRMATION
            call.id = id
            call.save_failed = !stored
        case .audioSetup(let format, let route):
            call.kind = AHR_CALL_AUDIO_SETUP
            call.sample_rate = UInt32(clamping: format.sampleRate)
            call.period_frames = UInt32(clamping: format.periodFrames)
            call.channel_count = UInt32(clamping: format.channelCount)
            (call.output, call.input) = AudioABI.values(of: route)
        case .audioActivationFinished(let request, let refusal):
            call.kind = AHR_CALL_AUDIO_ACTIVATION_FINISHED
            call.audio_request = request
            call.activation_result = AudioABI.activationResult(refusal)
        case .audioInterruptionBegan(let reason):
            call.kind = AHR_CALL_AUDIO_INTERRUPTION_BEGAN
            call.interruption_reason = AudioABI.value(of: reason)
        case .audioInterruptionEnded(let reason, let shouldResume):
            call.kind = AHR_CALL_AUDIO_INTERRUPTION_ENDED
            call.interruption_reason = AudioABI.value(of: reason)
            call.should_resume = shouldResume
        case .audioRouteChanged(let reason, let previous, let current):
            call.kind = AHR_CALL_AUDIO_ROUTE_CHANGED
            call.route_change_reason = AudioABI.value(of: reason)
            (call.previous_output, call.previous_input) = AudioABI.values(of: previous)
            (call.output, call.input) = AudioABI.values(of: current)
        case .secondaryAudioHint(let silence):
            call.kind = AHR_CALL_SECONDARY_AUDIO_HINT
            call.silence_secondary = silence
        case .mediaServicesReset:
            call.kind = AHR_CALL_MEDIA_SERVICES_RESET
        case .audioStream(let handle):
            // Borrowed: the stream keeps them open during `body`, whose consumer takes copies (the
            // in-process guest dups them for the runtime; the wire sends them with SCM_RIGHTS).
            call.kind = AHR_CALL_AUDIO_STREAM
            call.audio_memfd = handle.stream.memoryDescriptor
            call.audio_wake_fd = handle.stream.wakeDescriptor
        case .action(_, let index, let arguments):
            call.kind = AHR_CALL_ACTION
            call.action_index = UInt32(index)
            return ActionABI.withValues(arguments) { values in
                call.action_arguments = values.baseAddress
                call.action_argument_count = values.count
                return body(&call)
            }
        }
        return body(&call)
    }

    static func sceneCallback(_ callback: SceneCallback) -> ahr_scene_callback {
        switch callback {
        case .willEnterForeground: AHR_SCENE_WILL_ENTER_FOREGROUND
        case .didBecomeActive: AHR_SCENE_DID_BECOME_ACTIVE
        case .willResignActive: AHR_SCENE_WILL_RESIGN_ACTIVE
        case .didEnterBackground: AHR_SCENE_DID_ENTER_BACKGROUND
        case .didDisconnect: AHR_SCENE_DID_DISCONNECT
        }
    }
}
