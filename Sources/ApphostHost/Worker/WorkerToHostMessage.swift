import ApphostWire
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
        default:
            throw WireProtocolError("unknown worker-to-host frame type \(frame.type)")
        }
        try reader.finish()
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
        }
        return WireFrame(type: UInt8(type.rawValue), payload: writer.bytes)
    }
}
