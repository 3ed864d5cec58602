import ApphostCore
import ApphostWire
import CApphost
import Foundation

/// What the host sends a worker (apphost_wire.h, "Host to worker"). Decoding is for tests that
/// play the worker.
enum HostToWorkerMessage: Sendable, Equatable {
    case load(path: String, guestsDirectory: String, hostName: String, hostVersion: String)
    case start(dataDirectory: String)
    case call(sequence: UInt64, GuestMessage)
    case stop

    var frame: WireFrame {
        var writer = WirePayloadWriter()
        let type: apphost_wire_type
        switch self {
        case .load(let path, let guestsDirectory, let hostName, let hostVersion):
            type = APPHOST_WIRE_LOAD
            writer.string(path)
            writer.string(guestsDirectory)
            writer.string(hostName)
            writer.string(hostVersion)
        case .start(let dataDirectory):
            type = APPHOST_WIRE_START
            writer.string(dataDirectory)
        case .call(let sequence, let message):
            type = APPHOST_WIRE_CALL
            writer.u64(sequence)
            Self.write(message, to: &writer)
        case .stop:
            type = APPHOST_WIRE_STOP
        }
        return WireFrame(type: UInt8(type.rawValue), payload: writer.bytes)
    }

    private static func write(_ message: GuestMessage, to writer: inout WirePayloadWriter) {
        writer.u8(UInt8(message.appState.rawValue))
        writer.bool(message.sceneState != nil)
        writer.u8(UInt8(message.sceneState?.rawValue ?? 0))
        switch message.call {
        case .didFinishLaunching:
            writer.u8(UInt8(APPHOST_WIRE_CALL_DID_FINISH_LAUNCHING.rawValue))
        case .willTerminate:
            writer.u8(UInt8(APPHOST_WIRE_CALL_WILL_TERMINATE.rawValue))
        case .didReceiveMemoryWarning:
            writer.u8(UInt8(APPHOST_WIRE_CALL_MEMORY_WARNING.rawValue))
        case .sceneWillConnect(let connection):
            writer.u8(UInt8(APPHOST_WIRE_CALL_WILL_CONNECT.rawValue))
            writer.u64(connection.scene)
            writer.string(connection.sessionID)
            writer.u8(UInt8(connection.role.rawValue))
            writer.u8(UInt8(connection.initialState.rawValue))
            writer.optionalData(connection.restorationData)
        case .scene(let scene, let callback):
            writer.u8(UInt8(APPHOST_WIRE_CALL_SCENE_CALLBACK.rawValue))
            writer.u64(scene)
            writer.u8(UInt8(WireSceneCallback.code(of: callback)))
        case .expireTask(let task):
            writer.u8(UInt8(APPHOST_WIRE_CALL_EXPIRE_TASK.rawValue))
            writer.u64(task)
        case .fireTimer(let timer):
            writer.u8(UInt8(APPHOST_WIRE_CALL_FIRE_TIMER.rawValue))
            writer.u64(timer)
        case .runWork(let work):
            writer.u8(UInt8(APPHOST_WIRE_CALL_RUN_WORK.rawValue))
            writer.u64(work)
        case .backgroundTime(let remaining):
            writer.u8(UInt8(APPHOST_WIRE_CALL_BACKGROUND_TIME.rawValue))
            writer.bool(remaining != nil)
            if let remaining { writer.u64(WireDuration.nanoseconds(remaining)) }
        case .sceneSize(let scene, let size):
            writer.u8(UInt8(APPHOST_WIRE_CALL_SCENE_SIZE.rawValue))
            writer.u64(scene)
            writer.u32(size.width)
            writer.u32(size.height)
            writer.u8(UInt8(size.sizeClass.rawValue))
        case .performAction(let scene, let name, let payload, let activation, let token):
            writer.u8(UInt8(APPHOST_WIRE_CALL_PERFORM_ACTION.rawValue))
            writer.u64(scene)
            // The runtime keeps APPHOST_SCENES_TEXT_MAX_BYTES of a name, cut by looking at those
            // bytes alone, and refuses any payload past APPHOST_ACTION_PAYLOAD_MAX_BYTES (TOO_LARGE)
            // whatever its size: one byte past each limit is all it needs to answer as it would to
            // the whole, and the frame never outgrows APPHOST_WIRE_MAX_FRAME.
            writer.data(name.utf8.prefix(Int(APPHOST_SCENES_TEXT_MAX_BYTES) + 1))
            writer.data(payload.prefix(Int(APPHOST_ACTION_PAYLOAD_MAX_BYTES) + 1))
            writer.u64(WireDuration.nanoseconds(activation))
            writer.u64(token)
        case .shouldDismissModal(let scene, let modal):
            writer.u8(UInt8(APPHOST_WIRE_CALL_SHOULD_DISMISS_MODAL.rawValue))
            writer.u64(scene)
            writer.u64(modal)
        case .didDismissModal(let scene, let modal):
            writer.u8(UInt8(APPHOST_WIRE_CALL_DID_DISMISS_MODAL.rawValue))
            writer.u64(scene)
            writer.u64(modal)
        case .didDiscard(let sessionID):
            writer.u8(UInt8(APPHOST_WIRE_CALL_DID_DISCARD.rawValue))
            writer.string(sessionID)
        case .notificationLimit(let count, let window):
            writer.u8(UInt8(APPHOST_WIRE_CALL_NOTIFICATION_LIMIT.rawValue))
            writer.u32(UInt32(clamping: count))
            writer.u64(WireDuration.nanoseconds(window))
        case .saveStatus(let scene, let failed):
            writer.u8(UInt8(APPHOST_WIRE_CALL_SAVE_STATUS.rawValue))
            writer.u64(scene)
            writer.bool(failed)
        }
    }

    init(_ frame: WireFrame) throws(WireProtocolError) {
        var reader = WirePayloadReader(frame.payload)
        switch UInt32(frame.type) {
        case APPHOST_WIRE_LOAD.rawValue:
            self = .load(
                path: try reader.string(), guestsDirectory: try reader.string(), hostName: try reader.string(),
                hostVersion: try reader.string())
        case APPHOST_WIRE_START.rawValue:
            self = .start(dataDirectory: try reader.string())
        case APPHOST_WIRE_CALL.rawValue:
            self = .call(sequence: try reader.u64(), try Self.readMessage(&reader))
        case APPHOST_WIRE_STOP.rawValue:
            self = .stop
        default:
            throw WireProtocolError("unknown host-to-worker frame type \(frame.type)")
        }
        try reader.finish()
    }

    private static func readMessage(_ reader: inout WirePayloadReader) throws(WireProtocolError) -> GuestMessage {
        let appState = try WireEnum.decode(AppState.self, try reader.u8(), "app state")
        let hasSceneState = try reader.bool()
        let sceneStateCode = try reader.u8()
        let sceneState = hasSceneState ? try WireEnum.decode(SceneState.self, sceneStateCode, "scene state") : nil
        let call: GuestCall
        switch UInt32(try reader.u8()) {
        case APPHOST_WIRE_CALL_DID_FINISH_LAUNCHING.rawValue: call = .didFinishLaunching
        case APPHOST_WIRE_CALL_WILL_TERMINATE.rawValue: call = .willTerminate
        case APPHOST_WIRE_CALL_MEMORY_WARNING.rawValue: call = .didReceiveMemoryWarning
        case APPHOST_WIRE_CALL_WILL_CONNECT.rawValue:
            let scene = try reader.u64()
            let session = try reader.string()
            let role = try WireEnum.decode(SceneRole.self, try reader.u8(), "scene role")
            let initial = try WireEnum.decode(SceneState.self, try reader.u8(), "initial state")
            let restoration = try reader.optionalData().map { Data($0) }
            call = .sceneWillConnect(
                SceneConnection(
                    scene: scene, sessionID: session, role: role, initialState: initial, restorationData: restoration))
        case APPHOST_WIRE_CALL_SCENE_CALLBACK.rawValue:
            let scene = try reader.u64()
            call = .scene(scene, try WireSceneCallback.callback(for: try reader.u8()))
        case APPHOST_WIRE_CALL_EXPIRE_TASK.rawValue: call = .expireTask(try reader.u64())
        case APPHOST_WIRE_CALL_FIRE_TIMER.rawValue: call = .fireTimer(try reader.u64())
        case APPHOST_WIRE_CALL_RUN_WORK.rawValue: call = .runWork(try reader.u64())
        case APPHOST_WIRE_CALL_BACKGROUND_TIME.rawValue:
            call = .backgroundTime(try reader.bool() ? WireDuration.duration(try reader.u64()) : nil)
        case APPHOST_WIRE_CALL_SCENE_SIZE.rawValue:
            let scene = try reader.u64()
            let width = try reader.u32()
            let height = try reader.u32()
            let sizeClass = try WireEnum.decode(SizeClass.self, try reader.u8(), "size class")
            call = .sceneSize(scene, SceneSize(width: width, height: height, sizeClass: sizeClass))
        case APPHOST_WIRE_CALL_PERFORM_ACTION.rawValue:
            let scene = try reader.u64()
            let name = try reader.string()
            let payload = Data(try reader.data())
            let activation = WireDuration.duration(try reader.u64())
            call = .performAction(scene, name: name, payload: payload, activation: activation, token: try reader.u64())
        case APPHOST_WIRE_CALL_SHOULD_DISMISS_MODAL.rawValue:
            call = .shouldDismissModal(try reader.u64(), try reader.u64())
        case APPHOST_WIRE_CALL_DID_DISMISS_MODAL.rawValue:
            call = .didDismissModal(try reader.u64(), try reader.u64())
        case APPHOST_WIRE_CALL_DID_DISCARD.rawValue:
            call = .didDiscard(sessionID: try reader.string())
        case APPHOST_WIRE_CALL_NOTIFICATION_LIMIT.rawValue:
            let count = Int(try reader.u32())
            call = .notificationLimit(count: count, window: WireDuration.duration(try reader.u64()))
        case APPHOST_WIRE_CALL_SAVE_STATUS.rawValue:
            call = .saveStatus(try reader.u64(), failed: try reader.bool())
        case let other:
            throw WireProtocolError("unknown call \(other)")
        }
        return GuestMessage(call: call, appState: appState, sceneState: sceneState)
    }
}

/// `enum apphost_wire_scene_callback` and `SceneCallback`, both ways.
enum WireSceneCallback {
    static func code(of callback: SceneCallback) -> UInt32 {
        switch callback {
        case .willEnterForeground: APPHOST_WIRE_SCENE_WILL_ENTER_FOREGROUND.rawValue
        case .didBecomeActive: APPHOST_WIRE_SCENE_DID_BECOME_ACTIVE.rawValue
        case .willResignActive: APPHOST_WIRE_SCENE_WILL_RESIGN_ACTIVE.rawValue
        case .didEnterBackground: APPHOST_WIRE_SCENE_DID_ENTER_BACKGROUND.rawValue
        case .didDisconnect: APPHOST_WIRE_SCENE_DID_DISCONNECT.rawValue
        }
    }

    static func callback(for code: UInt8) throws(WireProtocolError) -> SceneCallback {
        guard let callback = SceneCallback.allCases.first(where: { Self.code(of: $0) == UInt32(code) }) else {
            throw WireProtocolError("unknown scene callback \(code)")
        }
        return callback
    }
}

/// The C ABI's enums travel as u8 of their values.
enum WireEnum {
    static func decode<T: RawRepresentable<Int32>>(_: T.Type, _ code: UInt8, _ what: String)
        throws(WireProtocolError) -> T
    {
        guard let value = T(rawValue: Int32(code)) else { throw WireProtocolError("unknown \(what) \(code)") }
        return value
    }
}

/// Durations travel as u64 nanoseconds: negative ones as 0, ones past `UInt64.max` as that.
enum WireDuration {
    static func nanoseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else { return 0 }
        let (whole, overflow) = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else { return .max }
        let (total, carry) = whole.addingReportingOverflow(UInt64(attoseconds / 1_000_000_000))
        return carry ? .max : total
    }

    static func duration(_ nanoseconds: UInt64) -> Duration {
        .seconds(Int64(nanoseconds / 1_000_000_000)) + .nanoseconds(Int64(nanoseconds % 1_000_000_000))
    }
}
