import ApphostGuestRuntime
import ApphostModel
import ApphostVocabulary
import ApphostWire
import Foundation

@testable import ApphostChannels
@testable import ApphostLoading

// The directions the host never takes, for tests that play the worker: encoding what a worker
// sends and decoding what the host sends, through the same C codec (wire_messages.h).

extension WireFrame {
    /// The frame whose whole bytes (length prefix, type, payload) are `bytes`.
    init(encoded bytes: [UInt8]) {
        self.init(type: bytes[4], payload: Array(bytes[5...]))
    }

    /// The frame's bytes: length, type, payload, as a worker's socket carries them.
    var encoded: [UInt8] {
        withUnsafeBytes(of: UInt32(1 + payload.count).littleEndian) { Array($0) } + [type] + payload
    }
}

/// Copies of the bytes a C message points at, alive until the arena is.
final class WireArena {
    private var blocks: [UnsafeMutableRawPointer] = []

    /// A copy of `bytes`; never NULL, even when empty (an empty "opt bytes" is present).
    func copy(_ bytes: some Collection<UInt8>) -> UnsafePointer<CChar> {
        let block = UnsafeMutableRawPointer.allocate(byteCount: max(bytes.count, 1), alignment: 1)
        block.copyMemory(from: Array(bytes), byteCount: bytes.count)
        blocks.append(block)
        return UnsafePointer(block.assumingMemoryBound(to: CChar.self))
    }

    func text(_ bytes: [UInt8]?) -> ahr_text {
        bytes.map { ahr_text(bytes: copy($0), length: $0.count) } ?? ahr_text()
    }

    func wireBytes(_ string: String) -> wire_bytes {
        wire_bytes(
            bytes: UnsafeRawPointer(copy(Array(string.utf8))).assumingMemoryBound(to: UInt8.self),
            length: string.utf8.count)
    }

    deinit { blocks.forEach { $0.deallocate() } }
}

extension WorkerToHostMessage {
    /// The frame a worker would send.
    var frame: WireFrame {
        let arena = WireArena()
        var message = wire_message()
        switch self {
        case .hello(let version, let pid):
            message.type = UInt8(APPHOST_WIRE_HELLO.rawValue)
            message.body.hello = wire_hello(version: version, pid: pid)
        case .loaded(let entry):
            message.type = UInt8(APPHOST_WIRE_LOADED.rawValue)
            var raw = ahr_raw_descriptor()
            raw.abi_version = apphost_version_t(
                major: entry.abiVersion.major, minor: entry.abiVersion.minor, revision: entry.abiVersion.revision)
            raw.has_descriptor = entry.descriptor != nil
            if let descriptor = entry.descriptor {
                raw.struct_size = descriptor.structSize
                raw.id = arena.text(descriptor.id)
                raw.name = arena.text(descriptor.name)
                raw.version = arena.text(descriptor.version)
                raw.vendor = arena.text(descriptor.vendor)
                raw.description = arena.text(descriptor.description)
                raw.capabilities = descriptor.capabilities
            }
            raw.has_init = entry.hasInit
            raw.has_deinit = entry.hasDeinit
            raw.has_query = entry.hasQuery
            message.body.loaded = raw
        case .loadFailed(let reason, let detail):
            message.type = UInt8(APPHOST_WIRE_LOAD_FAILED.rawValue)
            message.body.load_failed = wire_load_failed(reason: reason.rawValue, detail: arena.wireBytes(detail))
        case .started(let outcome, let status):
            message.type = UInt8(APPHOST_WIRE_STARTED.rawValue)
            message.body.started = wire_started(outcome: outcome.rawValue, init_status: status)
        case .reply(let sequence, let status):
            message.type = UInt8(APPHOST_WIRE_REPLY.rawValue)
            message.body.reply = wire_reply(sequence: sequence, status: status)
        case .stopped:
            message.type = UInt8(APPHOST_WIRE_STOPPED.rawValue)
        case .report(let event):
            message.body.report = Self.report(of: event, arena)
            message.type = UInt8(message.body.report.kind.rawValue)
        }
        return WireFrame(encoded: WireCodec.encode(message).bytes)
    }

    /// `event` as the runtime reports it: `RuntimeReport` the other way.
    private static func report(of event: GuestEvent, _ arena: WireArena) -> ahr_report {
        var report = ahr_report()
        func text(_ string: String) {
            report.text = arena.copy(Array(string.utf8))
            report.text_length = string.utf8.count
        }
        func bytes(_ data: Data) {
            report.bytes = UnsafeRawPointer(arena.copy(data))
            report.bytes_length = data.count
        }
        switch event {
        case .log(let level, let message):
            report.kind = AHR_REPORT_LOG
            report.level = level.rawValue
            text(message)
        case .saveSceneState(let scene, let data, let confirmation):
            report.kind = AHR_REPORT_SAVE_STATE
            report.scene = scene
            report.id = confirmation ?? 0
            bytes(data)
        case .taskBegan(let task, let name):
            report.kind = AHR_REPORT_TASK_BEGAN
            report.id = task
            text(name)
        case .taskEnded(let task):
            report.kind = AHR_REPORT_TASK_ENDED
            report.id = task
        case .timerScheduled(let timer, let delay, let interval):
            report.kind = AHR_REPORT_TIMER_SCHEDULED
            report.id = timer
            report.delay_ns = WireDuration.nanoseconds(delay)
            report.interval_ns = interval.map(WireDuration.nanoseconds) ?? 0
        case .timerCancelled(let timer):
            report.kind = AHR_REPORT_TIMER_CANCELLED
            report.id = timer
        case .workSubmitted(let work):
            report.kind = AHR_REPORT_WORK_SUBMITTED
            report.id = work
        case .sceneRequested(let activation, let from, let role, let style, let state):
            report.kind = AHR_REPORT_SCENE_REQUESTED
            report.activation = activation
            report.scene = from
            report.role = role.rawValue
            report.style = style.rawValue
            bytes(state)
        case .sessionActivationRequested(let session, let style):
            report.kind = AHR_REPORT_SESSION_ACTIVATION_REQUESTED
            text(session)
            report.style = style.rawValue
        case .loadingProgress(let scene, let progress):
            report.kind = AHR_REPORT_LOADING_PROGRESS
            report.scene = scene
            report.progress = progress.abiValue
        case .modalPresented(let scene, let modal, let style, let title):
            report.kind = AHR_REPORT_MODAL_PRESENTED
            report.scene = scene
            report.id = modal
            report.style = style.rawValue
            text(title)
        case .modalDismissed(let scene, let modal):
            report.kind = AHR_REPORT_MODAL_DISMISSED
            report.scene = scene
            report.id = modal
        case .notificationPosted(let title, let body):
            report.kind = AHR_REPORT_NOTIFICATION_POSTED
            text(title)
            report.body = arena.copy(Array(body.utf8))
            report.body_length = body.utf8.count
        case .sessionCloseRequested(let session):
            report.kind = AHR_REPORT_SESSION_CLOSE_REQUESTED
            text(session)
        case .sceneTitleChanged(let scene, let title):
            report.kind = AHR_REPORT_SCENE_TITLE_CHANGED
            report.scene = scene
            text(title)
        case .audioConfigured(let configuration):
            report.kind = AHR_REPORT_AUDIO_CONFIGURED
            report.category = configuration.category.rawValue
            report.mode = configuration.mode.rawValue
            report.options = configuration.options.rawValue
        case .audioActivationRequested(let request):
            report.kind = AHR_REPORT_AUDIO_ACTIVATION_REQUESTED
            report.id = request
        case .audioDeactivated(let notifyOthers):
            report.kind = AHR_REPORT_AUDIO_DEACTIVATED
            report.flag = notifyOthers
        case .audioRendering(let rendering):
            report.kind = AHR_REPORT_AUDIO_RENDERING
            report.flag = rendering
        case .audioGainChanged(let gain):
            report.kind = AHR_REPORT_AUDIO_GAIN
            report.gain = gain
        case .audioOutputOverridden(let outputOverride):
            report.kind = AHR_REPORT_AUDIO_OUTPUT_OVERRIDDEN
            report.output_override = outputOverride == .speaker ? 1 : 0
        case .actionFinished(.returned(let value)):
            report.kind = AHR_REPORT_ACTION_RESULT
            report.flag = true
            if let value {
                report.value = ActionABI.withValues([value]) { values in
                    var copied = values[0]
                    if let bytes = copied.bytes {
                        copied.bytes = UnsafeRawPointer(arena.copy(Data(bytes: bytes, count: copied.length)))
                    }
                    return copied
                }
            }
        case .actionFinished(.broke(let why)):
            report.kind = AHR_REPORT_ACTION_RESULT
            text(why)
        case .audioThread(let id, let realtime):
            report.kind = AHR_REPORT_AUDIO_THREAD
            report.id = UInt64(id)
            report.flag = realtime
        case .identified, .died:
            preconditionFailure("\(event) is the channel's own, never a worker's frame")
        }
        return report
    }
}

extension HostToWorkerMessage {
    /// The frame the host sends.
    var frame: WireFrame { WireFrame(encoded: encoded) }

    /// What a worker decodes from `frame`.
    init(_ frame: WireFrame) throws(WireProtocolError) {
        self = try WireCodec.decode(frame, sentTo: WIRE_TO_WORKER) { message -> HostToWorkerMessage in
            func string(_ bytes: wire_bytes) -> String { String(decoding: UnsafeBufferPointer(bytes), as: UTF8.self) }
            switch UInt32(message.type) {
            case APPHOST_WIRE_LOAD.rawValue:
                let load = message.body.load
                return .load(
                    path: string(load.path), guestsDirectory: string(load.guests_directory),
                    hostName: string(load.host_name), hostVersion: string(load.host_version))
            case APPHOST_WIRE_START.rawValue:
                return .start(dataDirectory: string(message.body.start.data_directory))
            case APPHOST_WIRE_CALL.rawValue:
                return .call(sequence: message.body.call.sequence, Self.guestMessage(of: message.body.call.call))
            default:
                return .stop
            }
        }
    }

    private static func route(_ output: Int32, _ input: Int32) -> AudioRoute {
        AudioRoute(
            output: AudioOutput.allCases.first { AudioABI.value(of: $0) == output }!,
            input: AudioInput.allCases.first { AudioABI.value(of: $0) == input }!)
    }

    private static func interruptionReason(_ value: Int32) -> AudioInterruptionReason {
        AudioInterruptionReason.allCases.first { AudioABI.value(of: $0) == value }!
    }

    /// `call` as the host made it: `RuntimeCall` the other way.
    private static func guestMessage(of call: ahr_call) -> GuestMessage {
        func text(_ pointer: UnsafePointer<CChar>?, _ length: Int) -> String {
            String(decoding: UnsafeRawBufferPointer(start: pointer, count: length), as: UTF8.self)
        }
        let guestCall: GuestCall
        switch call.kind {
        case AHR_CALL_DID_FINISH_LAUNCHING: guestCall = .didFinishLaunching
        case AHR_CALL_WILL_TERMINATE: guestCall = .willTerminate
        case AHR_CALL_MEMORY_WARNING: guestCall = .didReceiveMemoryWarning
        case AHR_CALL_WILL_CONNECT:
            guestCall = .sceneWillConnect(
                SceneConnection(
                    scene: call.scene, sessionID: text(call.session_id, call.session_id_length),
                    role: SceneRole(rawValue: call.role)!, initialState: SceneState(rawValue: call.initial_state)!,
                    restorationData: call.has_restoration
                        ? Data(bytes: call.restoration!, count: call.restoration_length) : nil))
        case AHR_CALL_SCENE_CALLBACK:
            let callback = SceneCallback.allCases.first { RuntimeCall.sceneCallback($0) == call.scene_callback }!
            guestCall = .scene(call.scene, callback)
        case AHR_CALL_EXPIRE_TASK: guestCall = .expireTask(call.id)
        case AHR_CALL_FIRE_TIMER: guestCall = .fireTimer(call.id)
        case AHR_CALL_RUN_WORK: guestCall = .runWork(call.id)
        case AHR_CALL_BACKGROUND_TIME:
            guestCall = .backgroundTime(
                call.background_time_ns == Int64(AHR_BACKGROUND_TIME_UNLIMITED)
                    ? nil : WireDuration.duration(UInt64(call.background_time_ns)))
        case AHR_CALL_SCENE_SIZE:
            guestCall = .sceneSize(
                call.scene,
                SceneSize(width: call.width, height: call.height, sizeClass: SizeClass(rawValue: call.size_class)!))
        case AHR_CALL_PERFORM_ACTION:
            guestCall = .performAction(
                call.scene, name: text(call.action_name, call.action_name_length),
                payload: call.payload.map { Data(bytes: $0, count: call.payload_length) } ?? Data(),
                activation: WireDuration.duration(call.activation_ns), token: call.activation)
        case AHR_CALL_SHOULD_DISMISS_MODAL: guestCall = .shouldDismissModal(call.scene, call.modal)
        case AHR_CALL_DID_DISMISS_MODAL: guestCall = .didDismissModal(call.scene, call.modal)
        case AHR_CALL_DID_DISCARD: guestCall = .didDiscard(sessionID: text(call.session_id, call.session_id_length))
        case AHR_CALL_NOTIFICATION_LIMIT:
            guestCall = .notificationLimit(
                count: Int(call.notification_limit), window: WireDuration.duration(call.notification_window_ns))
        case AHR_CALL_SAVE_STATUS: guestCall = .saveStatus(call.scene, failed: call.save_failed)
        case AHR_CALL_SAVE_CONFIRMATION: guestCall = .saveConfirmation(call.id, stored: !call.save_failed)
        case AHR_CALL_AUDIO_SETUP:
            guestCall = .audioSetup(
                AudioFormat(
                    sampleRate: Int(call.sample_rate), periodFrames: Int(call.period_frames),
                    channelCount: Int(call.channel_count)), route(call.output, call.input))
        case AHR_CALL_AUDIO_ACTIVATION_FINISHED:
            let refusal = AudioActivationRefusal.allCases.first {
                AudioABI.activationResult($0) == call.activation_result
            }
            guestCall = .audioActivationFinished(call.audio_request, refusal: refusal)
        case AHR_CALL_AUDIO_INTERRUPTION_BEGAN:
            guestCall = .audioInterruptionBegan(interruptionReason(call.interruption_reason))
        case AHR_CALL_AUDIO_INTERRUPTION_ENDED:
            guestCall = .audioInterruptionEnded(
                interruptionReason(call.interruption_reason), shouldResume: call.should_resume)
        case AHR_CALL_AUDIO_ROUTE_CHANGED:
            let reason = AudioRouteChangeReason.allCases.first { AudioABI.value(of: $0) == call.route_change_reason }!
            guestCall = .audioRouteChanged(
                reason, previous: route(call.previous_output, call.previous_input),
                current: route(call.output, call.input))
        case AHR_CALL_SECONDARY_AUDIO_HINT: guestCall = .secondaryAudioHint(silence: call.silence_secondary)
        case AHR_CALL_MEDIA_SERVICES_RESET: guestCall = .mediaServicesReset
        default: preconditionFailure("the decoder let through call kind \(call.kind)")
        }
        return GuestMessage(
            call: guestCall, appState: AppState(rawValue: call.app_state)!,
            sceneState: call.has_scene_state ? SceneState(rawValue: call.scene_state)! : nil)
    }
}
