import ApphostCore
import ApphostWire
import CApphost
import Foundation

/// What a worker sends the host (apphost_wire.h, "Worker to host"). Encoding is for tests that
/// play the worker.
enum WorkerToHostMessage: Sendable, Equatable {
    /// `enum apphost_wire_load_failure`.
    enum LoadFailure: UInt8, Sendable {
        case dlopen = 1
        case noEntry = 2
    }

    /// `enum apphost_wire_start_outcome`.
    enum StartOutcome: UInt8, Sendable {
        case ok = 0
        case initFailed = 1
        case noAppCallbacks = 2
    }

    case hello(version: UInt32, pid: UInt32)
    case loaded(RawGuestEntry)
    case loadFailed(LoadFailure, detail: String)
    case started(StartOutcome, initStatus: Int32)
    case reply(sequence: UInt64, status: Int32)
    case log(GuestLogLevel, String)
    case saveState(scene: SceneHandle, Data)
    case stopped
    case taskBegan(TaskID, name: String)
    case taskEnded(TaskID)
    /// A timer that fires once has no interval (0 on the wire).
    case timerScheduled(TimerID, delay: Duration, interval: Duration?)
    case timerCancelled(TimerID)
    case workSubmitted(WorkID)
    case sceneRequested(
        activation: ActivationToken, from: SceneHandle, role: SceneRole, style: PresentationStyle, state: Data)
    case sessionActivationRequested(sessionID: String, style: PresentationStyle)
    case loadingProgress(SceneHandle, LoadingProgress)
    case modalPresented(SceneHandle, ModalID, style: ModalStyle, title: String)
    case modalDismissed(SceneHandle, ModalID)
    case notificationPosted(title: String, body: String)
    case sessionCloseRequested(sessionID: String)

    /// The guest's own calls to the host, as the channel reports them; nil for the conversation's frames.
    var event: GuestEvent? {
        switch self {
        case .log(let level, let message): .log(level, message)
        case .saveState(let scene, let data): .saveSceneState(scene, data)
        case .taskBegan(let task, let name): .taskBegan(task, name: name)
        case .taskEnded(let task): .taskEnded(task)
        case .timerScheduled(let timer, let delay, let interval):
            .timerScheduled(timer, delay: delay, interval: interval)
        case .timerCancelled(let timer): .timerCancelled(timer)
        case .workSubmitted(let work): .workSubmitted(work)
        case .sceneRequested(let activation, let from, let role, let style, let state):
            .sceneRequested(activation: activation, from: from, role: role, style: style, state: state)
        case .sessionActivationRequested(let session, let style):
            .sessionActivationRequested(sessionID: session, style: style)
        case .loadingProgress(let scene, let progress): .loadingProgress(scene, progress)
        case .modalPresented(let scene, let modal, let style, let title):
            .modalPresented(scene, modal, style: style, title: title)
        case .modalDismissed(let scene, let modal): .modalDismissed(scene, modal)
        case .notificationPosted(let title, let body): .notificationPosted(title: title, body: body)
        case .sessionCloseRequested(let session): .sessionCloseRequested(sessionID: session)
        case .hello, .loaded, .loadFailed, .started, .reply, .stopped: nil
        }
    }

    init(_ frame: WireFrame) throws(WireProtocolError) {
        var reader = WirePayloadReader(frame.payload)
        switch UInt32(frame.type) {
        case APPHOST_WIRE_HELLO.rawValue:
            self = .hello(version: try reader.u32(), pid: try reader.u32())
        case APPHOST_WIRE_LOADED.rawValue:
            self = .loaded(try Self.readEntry(&reader))
        case APPHOST_WIRE_LOAD_FAILED.rawValue:
            let code = try reader.u8()
            guard let reason = LoadFailure(rawValue: code) else {
                throw WireProtocolError("unknown load failure \(code)")
            }
            self = .loadFailed(reason, detail: try reader.string())
        case APPHOST_WIRE_STARTED.rawValue:
            let code = try reader.u8()
            guard let outcome = StartOutcome(rawValue: code) else {
                throw WireProtocolError("unknown start outcome \(code)")
            }
            self = .started(outcome, initStatus: try reader.i32())
        case APPHOST_WIRE_REPLY.rawValue:
            self = .reply(sequence: try reader.u64(), status: try reader.i32())
        case APPHOST_WIRE_LOG.rawValue:
            let level = try WireEnum.decode(GuestLogLevel.self, try reader.u8(), "log level")
            self = .log(level, try reader.string())
        case APPHOST_WIRE_SAVE_STATE.rawValue:
            self = .saveState(scene: try reader.u64(), Data(try reader.data()))
        case APPHOST_WIRE_STOPPED.rawValue:
            self = .stopped
        case APPHOST_WIRE_TASK_BEGAN.rawValue:
            self = .taskBegan(try Self.id(&reader, "task"), name: try reader.string())
        case APPHOST_WIRE_TASK_ENDED.rawValue:
            self = .taskEnded(try Self.id(&reader, "task"))
        case APPHOST_WIRE_TIMER_SCHEDULED.rawValue:
            let timer = try Self.id(&reader, "timer")
            let delay = WireDuration.duration(try reader.u64())
            let interval = try reader.u64()
            self = .timerScheduled(timer, delay: delay, interval: interval == 0 ? nil : WireDuration.duration(interval))
        case APPHOST_WIRE_TIMER_CANCELLED.rawValue:
            self = .timerCancelled(try Self.id(&reader, "timer"))
        case APPHOST_WIRE_WORK_SUBMITTED.rawValue:
            self = .workSubmitted(try Self.id(&reader, "work"))
        case APPHOST_WIRE_SCENE_REQUESTED.rawValue:
            let activation = try reader.u64()
            let from = try reader.u64()
            let role = try WireEnum.decode(SceneRole.self, try reader.u8(), "scene role")
            let style = try WireEnum.decode(PresentationStyle.self, try reader.u8(), "presentation style")
            let state = try reader.data()
            guard state.count <= Int(APPHOST_SCENE_STATE_MAX_BYTES) else {
                throw WireProtocolError("a requested scene's state of \(state.count) bytes, over the ABI's limit")
            }
            self = .sceneRequested(activation: activation, from: from, role: role, style: style, state: Data(state))
        case APPHOST_WIRE_SESSION_ACTIVATION_REQUESTED.rawValue:
            let session = try reader.string()
            self = .sessionActivationRequested(
                sessionID: session,
                style: try WireEnum.decode(PresentationStyle.self, try reader.u8(), "presentation style"))
        case APPHOST_WIRE_LOADING_PROGRESS.rawValue:
            let scene = try reader.u64()
            let value = Double(bitPattern: try reader.u64())
            guard let progress = LoadingProgress(abiValue: value) else {
                throw WireProtocolError("a loading progress of \(value)")
            }
            self = .loadingProgress(scene, progress)
        case APPHOST_WIRE_MODAL_PRESENTED.rawValue:
            let scene = try reader.u64()
            let modal = try Self.id(&reader, "modal")
            let style = try WireEnum.decode(ModalStyle.self, try reader.u8(), "modal style")
            self = .modalPresented(scene, modal, style: style, title: try reader.string())
        case APPHOST_WIRE_MODAL_DISMISSED.rawValue:
            self = .modalDismissed(try reader.u64(), try Self.id(&reader, "modal"))
        case APPHOST_WIRE_NOTIFICATION_POSTED.rawValue:
            self = .notificationPosted(title: try reader.string(), body: try reader.string())
        case APPHOST_WIRE_SESSION_CLOSE_REQUESTED.rawValue:
            self = .sessionCloseRequested(sessionID: try reader.string())
        default:
            throw WireProtocolError("unknown worker-to-host frame type \(frame.type)")
        }
        try reader.finish()
    }

    /// A task, timer, work or modal id: never zero.
    private static func id(_ reader: inout WirePayloadReader, _ what: String) throws(WireProtocolError) -> UInt64 {
        let id = try reader.u64()
        guard id != 0 else { throw WireProtocolError("a \(what) id of 0") }
        return id
    }

    private static func readEntry(_ reader: inout WirePayloadReader) throws(WireProtocolError) -> RawGuestEntry {
        let abiVersion = ABIVersion(major: try reader.u32(), minor: try reader.u32(), revision: try reader.u32())
        let hasDescriptor = try reader.bool()
        let descriptor = RawGuestDescriptor(
            structSize: try reader.u32(), id: try reader.optionalData(), name: try reader.optionalData(),
            version: try reader.optionalData(), vendor: try reader.optionalData(),
            description: try reader.optionalData(), capabilities: try reader.u64())
        return RawGuestEntry(
            abiVersion: abiVersion, descriptor: hasDescriptor ? descriptor : nil, hasInit: try reader.bool(),
            hasDeinit: try reader.bool(), hasQuery: try reader.bool())
    }

    var frame: WireFrame {
        var writer = WirePayloadWriter()
        let type: apphost_wire_type
        switch self {
        case .hello(let version, let pid):
            type = APPHOST_WIRE_HELLO
            writer.u32(version)
            writer.u32(pid)
        case .loaded(let entry):
            type = APPHOST_WIRE_LOADED
            writer.u32(entry.abiVersion.major)
            writer.u32(entry.abiVersion.minor)
            writer.u32(entry.abiVersion.revision)
            writer.bool(entry.descriptor != nil)
            let descriptor = entry.descriptor
            writer.u32(descriptor?.structSize ?? 0)
            writer.optionalData(descriptor?.id)
            writer.optionalData(descriptor?.name)
            writer.optionalData(descriptor?.version)
            writer.optionalData(descriptor?.vendor)
            writer.optionalData(descriptor?.description)
            writer.u64(descriptor?.capabilities ?? 0)
            writer.bool(entry.hasInit)
            writer.bool(entry.hasDeinit)
            writer.bool(entry.hasQuery)
        case .loadFailed(let reason, let detail):
            type = APPHOST_WIRE_LOAD_FAILED
            writer.u8(reason.rawValue)
            writer.string(detail)
        case .started(let outcome, let status):
            type = APPHOST_WIRE_STARTED
            writer.u8(outcome.rawValue)
            writer.i32(status)
        case .reply(let sequence, let status):
            type = APPHOST_WIRE_REPLY
            writer.u64(sequence)
            writer.i32(status)
        case .log(let level, let message):
            type = APPHOST_WIRE_LOG
            writer.u8(UInt8(level.rawValue))
            writer.string(message)
        case .saveState(let scene, let data):
            type = APPHOST_WIRE_SAVE_STATE
            writer.u64(scene)
            writer.data(data)
        case .stopped:
            type = APPHOST_WIRE_STOPPED
        case .taskBegan(let task, let name):
            type = APPHOST_WIRE_TASK_BEGAN
            writer.u64(task)
            writer.string(name)
        case .taskEnded(let task):
            type = APPHOST_WIRE_TASK_ENDED
            writer.u64(task)
        case .timerScheduled(let timer, let delay, let interval):
            type = APPHOST_WIRE_TIMER_SCHEDULED
            writer.u64(timer)
            writer.u64(WireDuration.nanoseconds(delay))
            writer.u64(interval.map(WireDuration.nanoseconds) ?? 0)
        case .timerCancelled(let timer):
            type = APPHOST_WIRE_TIMER_CANCELLED
            writer.u64(timer)
        case .workSubmitted(let work):
            type = APPHOST_WIRE_WORK_SUBMITTED
            writer.u64(work)
        case .sceneRequested(let activation, let from, let role, let style, let state):
            type = APPHOST_WIRE_SCENE_REQUESTED
            writer.u64(activation)
            writer.u64(from)
            writer.u8(UInt8(role.rawValue))
            writer.u8(UInt8(style.rawValue))
            writer.data(state)
        case .sessionActivationRequested(let session, let style):
            type = APPHOST_WIRE_SESSION_ACTIVATION_REQUESTED
            writer.string(session)
            writer.u8(UInt8(style.rawValue))
        case .loadingProgress(let scene, let progress):
            type = APPHOST_WIRE_LOADING_PROGRESS
            writer.u64(scene)
            writer.u64(progress.abiValue.bitPattern)
        case .modalPresented(let scene, let modal, let style, let title):
            type = APPHOST_WIRE_MODAL_PRESENTED
            writer.u64(scene)
            writer.u64(modal)
            writer.u8(UInt8(style.rawValue))
            writer.string(title)
        case .modalDismissed(let scene, let modal):
            type = APPHOST_WIRE_MODAL_DISMISSED
            writer.u64(scene)
            writer.u64(modal)
        case .notificationPosted(let title, let body):
            type = APPHOST_WIRE_NOTIFICATION_POSTED
            writer.string(title)
            writer.string(body)
        case .sessionCloseRequested(let session):
            type = APPHOST_WIRE_SESSION_CLOSE_REQUESTED
            writer.string(session)
        }
        return WireFrame(type: UInt8(type.rawValue), payload: writer.bytes)
    }
}
