import ApphostGuestRuntime
import ApphostLoading
import ApphostVocabulary
import ApphostWire
import Foundation

/// What a worker sends the host (apphost_wire.h, "Worker to host"), decoded by the wire's codec:
/// the conversation's own frames, and the guest's calls to the host as the events they are.
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
    case stopped
    /// One of the guest's own calls to the host (LOG to SESSION_CLOSE_REQUESTED).
    case report(GuestEvent)

    /// The guest's own call to the host, as the channel reports it; nil for the conversation's frames.
    var event: GuestEvent? {
        if case .report(let event) = self { event } else { nil }
    }

    init(_ frame: WireFrame) throws(WireProtocolError) {
        self = try frame.payload.withUnsafeBufferPointer { payload throws(WireProtocolError) in
            try Self(type: frame.type, payload: payload)
        }
    }

    /// Decodes a frame's `payload`, which is only read here.
    init(type: UInt8, payload: UnsafeBufferPointer<UInt8>) throws(WireProtocolError) {
        // The one frame for each call, decoded without a 5.8 KB `wire_message` to clear twice:
        // after an idle moment that costs a sporadic round trip more than the decoding itself.
        if type == UInt8(APPHOST_WIRE_REPLY.rawValue) {
            let reply = try Self.reply(from: payload)
            self = .reply(sequence: reply.sequence, status: reply.status)
            return
        }
        let decoded = try WireCodec.decode(type: type, payload: payload, sentTo: WIRE_TO_HOST) {
            Self.message(from: $0)
        }
        guard let decoded else {
            throw WireProtocolError("an undecodable \(String(cString: wire_type_name(type)))")
        }
        self = decoded
    }

    /// A REPLY frame's payload, decoded by `wire_decode_reply`.
    static func reply(from payload: UnsafeBufferPointer<UInt8>) throws(WireProtocolError) -> (
        sequence: UInt64, status: Int32
    ) {
        var reply = wire_reply()
        var problem = wire_problem()
        guard wire_decode_reply(payload.baseAddress, payload.count, &reply, &problem) else {
            throw WireProtocolError(problem)
        }
        return (reply.sequence, reply.status)
    }

    /// The decoder checked every enum value, so nil only for a value this host cannot represent.
    private static func message(from message: wire_message) -> WorkerToHostMessage? {
        let body = message.body
        switch UInt32(message.type) {
        case APPHOST_WIRE_HELLO.rawValue:
            return .hello(version: body.hello.version, pid: body.hello.pid)
        case APPHOST_WIRE_LOADED.rawValue:
            return .loaded(RawGuestEntry(body.loaded))
        case APPHOST_WIRE_LOAD_FAILED.rawValue:
            let failure = body.load_failed
            return LoadFailure(rawValue: failure.reason).map {
                .loadFailed($0, detail: String(decoding: UnsafeBufferPointer(failure.detail), as: UTF8.self))
            }
        case APPHOST_WIRE_STARTED.rawValue:
            return StartOutcome(rawValue: body.started.outcome).map {
                .started($0, initStatus: body.started.init_status)
            }
        case APPHOST_WIRE_REPLY.rawValue:
            return .reply(sequence: body.reply.sequence, status: body.reply.status)
        case APPHOST_WIRE_STOPPED.rawValue:
            return .stopped
        default:
            return RuntimeReport.event(of: body.report).map { .report($0) }
        }
    }
}

extension UnsafeBufferPointer<UInt8> {
    /// The bytes a decoded "str" or "bytes" points at.
    init(_ bytes: wire_bytes) {
        self.init(start: bytes.bytes, count: bytes.length)
    }
}
