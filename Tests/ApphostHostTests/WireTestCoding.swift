import ApphostGuestRuntime
import ApphostModel
import ApphostVocabulary
import ApphostWire
import Foundation

@testable import ApphostChannels
@testable import ApphostLoading

// The directions the host never takes, for tests that play the worker: encoding what a worker
// sends and decoding what the host sends, through the same C codec (wire_messages.h). Reports and
// calls go through code generated from apphost_messages.h's table (WireMessageGenerator's tests
// side: `tableReport`, `tableCall`), with the converters of WireTestFields.swift; the frames of
// the conversation are mapped here.

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
            message.body.report = Self.tableReport(of: event, arena)
            message.type = UInt8(message.body.report.kind.rawValue)
        }
        return WireFrame(encoded: WireCodec.encode(message).bytes)
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

    /// `call` as the host made it: `RuntimeCall` the other way.
    private static func guestMessage(of call: ahr_call) -> GuestMessage {
        let guestCall: GuestCall
        do {
            guestCall = try tableCall(of: call)
        } catch {
            preconditionFailure("the decoder let through call kind \(call.kind), or one the tests cannot rebuild")
        }
        return GuestMessage(
            call: guestCall, appState: AppState(rawValue: call.app_state)!,
            sceneState: call.has_scene_state ? SceneState(rawValue: call.scene_state)! : nil)
    }
}
