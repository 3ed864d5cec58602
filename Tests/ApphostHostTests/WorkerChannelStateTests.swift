import ApphostFreezing
import ApphostPolicy
import ApphostVocabulary
import ApphostWire
import CApphost
import Dispatch
import Foundation
import Synchronization
import XCTest

@testable import ApphostChannels
@testable import ApphostLoading

/// A `WorkerChannel`'s state machine driven through `EmbeddedWorkerTransport`, without a worker
/// process: the frames it writes, the frames it reads, what each call and completion hears, in
/// the order the host queue receives them. Deterministic: nothing here waits for time.
final class WorkerChannelStateTests: XCTestCase {
    private typealias M = TestMessages
    private let hostQueue = DispatchQueue(label: "apphost.test.embedded-host")
    private var transport: EmbeddedWorkerTransport!
    private var heard: Heard!
    private var channel: WorkerChannel!

    override func setUp() {
        transport = EmbeddedWorkerTransport()
        heard = Heard()
    }

    override func tearDown() {
        channel = nil
        transport = nil
    }

    /// A channel over the embedded transport, with `received` already read (the bytes of the
    /// handshake's last read, past STARTED).
    private func open(received: [WorkerToHostMessage] = [], readsAfterWriting: Bool = true) {
        var decoder = WireFrameDecoder()
        decoder.append(received.flatMap(\.frame.encoded))
        let heard = heard!
        channel = WorkerChannel(
            transport: transport, received: decoder, hostQueue: hostQueue, stopTimeout: .seconds(5),
            readsAfterWriting: readsAfterWriting, onEvent: { heard.append("event \($0)") },
            onExit: { heard.append("exit") })
    }

    /// What the host queue has received so far, once what was posted to it has run. `onExit` runs
    /// on the reaper's thread (here the test's), not on the host queue: settle before the worker's
    /// end wherever something was posted from the test's thread just before.
    private func settled() -> [String] {
        hostQueue.sync {}
        return heard.lines
    }

    private func send(_ message: GuestMessage, _ name: String) {
        let heard = heard!
        channel.send(message) { heard.append("\(name) \($0)") }
    }

    private func completion(_ name: String) -> @Sendable (Result<Void, ChannelFailure>) -> Void {
        let heard = heard!
        return { heard.append("\(name) \($0)") }
    }

    private func closing() -> @Sendable () -> Void {
        let heard = heard!
        return { heard.append("closed") }
    }

    // MARK: The handshake's hand-over

    // What the worker sent with STARTED (a guest thread's first logs) reaches the host when the
    // channel takes over, before anything read later.
    func testFramesReadWithTheHandshakeAreDeliveredFirst() throws {
        open(received: [.report(.log(.info, "early"))])
        transport.inject([.report(.log(.info, "later"))])
        XCTAssertEqual(
            settled(), ["event \(GuestEvent.log(.info, "early"))", "event \(GuestEvent.log(.info, "later"))"])
        XCTAssertEqual(try transport.written(), [])
    }

    // MARK: Calls and replies

    // CONTRACT S2: a call is written with the next sequence number; its reply, read when the
    // worker sends it, reaches the caller on the host queue.
    func testACallIsWrittenAndItsReplyDelivered() throws {
        open()
        send(M.launch, "launch")
        XCTAssertEqual(try transport.written(), [.call(sequence: 1, M.launch)])
        XCTAssertEqual(settled(), [])
        transport.inject([.reply(sequence: 1, status: 0)])
        XCTAssertEqual(settled(), ["launch success(0)"])
        send(M.memoryWarning, "warning")
        XCTAssertEqual(try transport.written(), [.call(sequence: 2, M.memoryWarning)])
    }

    // The thread that wrote a call reads once: a reply already there is delivered without the
    // loop; with `readsAfterWriting` off it waits for the loop's read.
    func testAReplyAlreadyThereIsReadAfterTheWrite() throws {
        open()
        transport.enqueue([.reply(sequence: 1, status: 7)])
        send(M.launch, "launch")
        XCTAssertEqual(settled(), ["launch success(7)"])

        setUp()
        open(readsAfterWriting: false)
        transport.enqueue([.reply(sequence: 1, status: 7)])
        send(M.launch, "launch")
        XCTAssertEqual(settled(), [])
        transport.inject([])
        XCTAssertEqual(settled(), ["launch success(7)"])
    }

    // CONTRACT S3: replies, and the guest's events between them, reach the host in the order the
    // worker sent them, across frames cut anywhere.
    func testRepliesAndEventsArriveInTheWorkersOrder() throws {
        open()
        send(M.launch, "one")
        send(M.memoryWarning, "two")
        send(M.terminate, "three")
        let ignore: @Sendable (GuestReply) -> Void = { _ in }
        channel.send(all: [(M.launch, ignore), (M.launch, ignore)])
        XCTAssertEqual(try transport.written().map(\.sequence), [1, 2, 3, 4, 5])
        let frames: [WorkerToHostMessage] = [
            .reply(sequence: 1, status: 0), .report(.log(.info, "between")), .reply(sequence: 2, status: 1),
            .reply(sequence: 3, status: 2),
        ]
        let bytes = frames.flatMap(\.frame.encoded)
        for start in stride(from: 0, to: bytes.count, by: 5) {
            transport.inject(bytes: Array(bytes[start..<min(start + 5, bytes.count)]))
        }
        XCTAssertEqual(
            settled(),
            ["one success(0)", "event \(GuestEvent.log(.info, "between"))", "two success(1)", "three success(2)"])
    }

    // CONTRACT X2: a reply out of order breaks the protocol: the worker is killed, and every call
    // in flight fails with the protocol error as its cause, which `.died` reports.
    func testAReplyOutOfOrderIsAProtocolError() throws {
        open()
        send(M.launch, "one")
        send(M.memoryWarning, "two")
        transport.inject([.reply(sequence: 2, status: 0)])
        XCTAssertEqual(transport.killed, [false])
        XCTAssertFalse(transport.isConnected)
        XCTAssertEqual(settled(), [], "nothing is heard before the worker is reaped")
        transport.exit(.killed(signal: SIGKILL))
        let cause = "protocol error: a reply to call 2 while call 1 is pending"
        XCTAssertEqual(
            settled(),
            [
                "exit", "one \(GuestReply.failure(.crashed(cause)))", "two \(GuestReply.failure(.crashed(cause)))",
                "event \(GuestEvent.died(cause))",
            ])
    }

    // CONTRACT X2: a reply when no call is pending, and a frame the conversation does not allow
    // now (STOPPED before STOP), are protocol errors too.
    func testAReplyToNoCallOrAnUnexpectedFrameIsAProtocolError() throws {
        open()
        transport.inject([.reply(sequence: 7, status: 0)])
        transport.exit(.killed(signal: SIGKILL))
        XCTAssertEqual(
            settled(),
            ["exit", "event \(GuestEvent.died("protocol error: a reply to call 7, but no call is pending"))"])

        setUp()
        open()
        transport.inject([.stopped])
        XCTAssertEqual(transport.killed, [false])
        transport.exit(.killed(signal: SIGKILL))
        let lines = settled()
        XCTAssertEqual(lines.count, 2)
        XCTAssertTrue(lines.last?.contains("protocol error: an unexpected") ?? false, "\(lines)")
        XCTAssertTrue(lines.last?.contains("from a running guest") ?? false, "\(lines)")
    }

    // MARK: The worker's death

    // CONTRACT X2: a worker that dies fails every call in flight with its cause; `.died` follows;
    // later calls and requests fail at once the same way.
    func testTheWorkersDeathFailsEveryCallInFlight() throws {
        open()
        send(M.launch, "one")
        send(M.memoryWarning, "two")
        transport.inject([.reply(sequence: 1, status: 0)])
        transport.exit(.killed(signal: SIGSEGV))
        let crashed = GuestReply.failure(.crashed("killed by SIGSEGV"))
        XCTAssertEqual(
            settled(), ["one success(0)", "exit", "two \(crashed)", "event \(GuestEvent.died("killed by SIGSEGV"))"])
        heard.clear()
        send(M.terminate, "late")
        channel.suspend(completion: completion("suspend"))
        channel.forceStop(freezing: true, completion: completion("stop"))
        channel.close(completion: closing())
        XCTAssertEqual(
            settled(),
            [
                "late \(crashed)", "suspend \(Result<Void, ChannelFailure>.failure(.crashed("killed by SIGSEGV")))",
                "stop \(Result<Void, ChannelFailure>.failure(.crashed("killed by SIGSEGV")))", "closed",
            ])
        XCTAssertEqual(try transport.written(), [.call(sequence: 1, M.launch), .call(sequence: 2, M.memoryWarning)])
    }

    // CONTRACT X2: the limit a worker ran into is part of its cause.
    func testALimitNamedByTheReaperIsPartOfTheCause() throws {
        open()
        send(M.launch, "one")
        transport.exit(.killed(signal: SIGKILL), limitReason: "memory limit of 1 KB reached")
        let cause = "killed by SIGKILL: memory limit of 1 KB reached"
        XCTAssertEqual(
            settled(), ["exit", "one \(GuestReply.failure(.crashed(cause)))", "event \(GuestEvent.died(cause))"])
    }

    // MARK: Closing

    // CONTRACT A3: close writes STOP behind the calls already written; the worker answers them,
    // says STOPPED and exits: the close completes, and no `.died` is reported.
    func testCloseStopsTheWorkerAfterItsCalls() throws {
        open()
        send(M.terminate, "terminate")
        channel.close(completion: closing())
        XCTAssertEqual(try transport.written(), [.call(sequence: 1, M.terminate), .stop])
        XCTAssertTrue(transport.closeTimerArmed)
        send(M.launch, "after")
        transport.inject([.reply(sequence: 1, status: 0), .stopped])
        XCTAssertEqual(settled(), ["after \(GuestReply.failure(.closed))", "terminate success(0)"])
        transport.exit(.exited(status: 0))
        XCTAssertEqual(settled().suffix(2), ["exit", "closed"])
        XCTAssertFalse(transport.closeTimerArmed, "cancelled")
        XCTAssertEqual(transport.killed, [])
    }

    // CONTRACT X2: a worker still running `stopTimeout` after close is killed, and reported hung,
    // as is the call it was in.
    func testAWorkerThatDoesNotStopInTimeIsKilledAndReported() throws {
        open()
        send(M.terminate, "terminate")
        channel.close(completion: closing())
        transport.fireCloseTimer()
        XCTAssertEqual(transport.killed, [false])
        transport.exit(.killed(signal: SIGKILL))
        let hung = "still running 5 s after the request to terminate, so it was killed"
        XCTAssertEqual(
            settled(),
            ["exit", "terminate \(GuestReply.failure(.crashed(hung)))", "event \(GuestEvent.died(hung))", "closed"])
    }

    // MARK: Suspension

    // CONTRACT B7: suspension waits for the calls in flight, then freezes; calls sent meanwhile
    // are held and written, in order, once resumed; each confirmation reaches its caller.
    func testSuspensionWaitsForRepliesThenHoldsCallsUntilResumed() throws {
        open()
        send(M.launch, "one")
        channel.suspend(completion: completion("suspend"))
        XCTAssertEqual(transport.freezesAsked, 0, "not while a call is in flight")
        send(M.memoryWarning, "held")
        transport.inject([.reply(sequence: 1, status: 0)])
        XCTAssertEqual(transport.freezesAsked, 1)
        transport.confirmFreeze()
        XCTAssertEqual(settled(), ["one success(0)", "suspend success()"])
        XCTAssertEqual(try transport.written(), [.call(sequence: 1, M.launch)], "the held call waits")
        channel.suspend(completion: completion("again"))
        channel.resume(completion: completion("resume"))
        XCTAssertEqual(transport.thawsAsked, 1)
        transport.confirmThaw()
        XCTAssertEqual(
            settled().suffix(2),
            [
                "again \(Result<Void, ChannelFailure>.failure(.failed("the guest is already suspended or being suspended")))",
                "resume success()",
            ])
        XCTAssertEqual(try transport.written(), [.call(sequence: 2, M.memoryWarning)])
        transport.inject([.reply(sequence: 2, status: 0)])
        XCTAssertEqual(settled().last, "held success(0)")
    }

    // A freeze or thaw that fails reaches its caller; after a failed freeze the held calls go out.
    func testFailedFreezeAndThawReachTheirCallers() throws {
        open()
        channel.resume(completion: completion("early"))
        channel.suspend(completion: completion("suspend"))
        send(M.launch, "held")
        transport.confirmFreeze(.failure(FreezeError("no freezer")))
        XCTAssertEqual(try transport.written(), [.call(sequence: 1, M.launch)])
        transport.inject([.reply(sequence: 1, status: 0)])
        channel.suspend(completion: completion("second"))
        transport.confirmFreeze()
        channel.resume(completion: completion("resume"))
        transport.confirmThaw(.failure(FreezeError("still stuck")))
        XCTAssertEqual(
            settled(),
            [
                "early \(Result<Void, ChannelFailure>.failure(.failed("the guest is not suspended")))",
                "suspend \(Result<Void, ChannelFailure>.failure(.failed("cannot freeze the worker: no freezer")))",
                "held success(0)",
                "second success()",
                "resume \(Result<Void, ChannelFailure>.failure(.failed("cannot thaw the worker: still stuck")))",
            ])
    }

    // CONTRACT A3: a suspended guest is terminated without any callback: close kills it (thawing
    // it, for the kill to act), the held calls fail as closed, and its end is no crash.
    func testClosingASuspendedGuestKillsItQuietly() throws {
        open()
        channel.suspend(completion: completion("suspend"))
        transport.confirmFreeze()
        send(M.launch, "held")
        channel.close(completion: closing())
        XCTAssertEqual(transport.killed, [true])
        XCTAssertEqual(try transport.written(), [], "no STOP to a frozen worker")
        XCTAssertEqual(settled(), ["suspend success()", "held \(GuestReply.failure(.closed))"])
        transport.exit(.killed(signal: SIGKILL))
        XCTAssertEqual(settled().suffix(2), ["exit", "closed"])
    }

    // CONTRACT B5: a forced stop without freezing kills the worker where it stands; its end is
    // then reported like a crash.
    func testForceStopKillsAndTheEndIsACrash() throws {
        open()
        send(M.launch, "one")
        channel.forceStop(freezing: false, completion: completion("stop"))
        XCTAssertEqual(transport.killed, [false])
        XCTAssertEqual(settled(), ["stop success()"])
        transport.exit(.killed(signal: SIGKILL))
        XCTAssertEqual(
            settled(),
            [
                "stop success()", "exit", "one \(GuestReply.failure(.crashed("killed by SIGKILL")))",
                "event \(GuestEvent.died("killed by SIGKILL"))",
            ])
    }
}

/// The handshake's conversation (`WorkerHandshakeState`) on its own, message by message: which
/// answer each step accepts, and whether a failure stops or kills the worker.
final class WorkerHandshakeStateTests: XCTestCase {
    private let path = "/guests/libexample.so"

    private func describe(_ decision: WorkerHandshakeState.Decision) -> String {
        switch decision {
        case .forward(let event): "forward \(event)"
        case .hello: "hello"
        case .loaded(let descriptor): "loaded \(descriptor.id)"
        case .started: "started"
        case .stop(let error): "stop \(error)"
        case .abandon(let error): "abandon \(error)"
        }
    }

    // The whole conversation of a guest that loads: HELLO, LOADED with a valid entry, the
    // guest's own calls during init forwarded, STARTED.
    func testAGuestThatLoadsGoesThroughEveryStep() {
        var handshake = WorkerHandshakeState(path: path, ownUser: false)
        XCTAssertEqual(describe(handshake.received(.hello(version: UInt32(APPHOST_WIRE_VERSION), pid: 7))), "hello")
        handshake.sentLoad(canonicalPath: path)
        let entry = RawGuestEntry(
            abiVersion: .current,
            descriptor: RawGuestDescriptor(
                structSize: UInt32(MemoryLayout<apphost_guest_descriptor_t>.size), id: Array("org.example.a".utf8),
                name: Array("A".utf8), version: Array("1".utf8), vendor: nil, description: nil, capabilities: 0),
            hasInit: true, hasDeinit: true, hasQuery: true)
        XCTAssertEqual(describe(handshake.received(.loaded(entry))), "loaded org.example.a")
        handshake.sentStart()
        XCTAssertEqual(
            describe(handshake.received(.report(.log(.info, "init")))), "forward \(GuestEvent.log(.info, "init"))")
        XCTAssertEqual(describe(handshake.received(.started(.ok, initStatus: 0))), "started")
    }

    // CONTRACT X1: a guest that does not load or init is stopped (it unloads and exits) with the
    // cause the in-process channel reports; a worker of another protocol version, or one that
    // sends what its step does not allow, is killed.
    func testFailuresStopOrAbandonTheWorker() {
        var handshake = WorkerHandshakeState(path: path, ownUser: false)
        XCTAssertEqual(
            describe(handshake.received(.hello(version: UInt32(APPHOST_WIRE_VERSION) + 1, pid: 7))),
            "abandon \(LoadError(path: path, cause: .workerFailed("the worker speaks protocol version \(APPHOST_WIRE_VERSION + 1), this host \(APPHOST_WIRE_VERSION)")))"
        )
        XCTAssertEqual(
            describe(handshake.received(.report(.log(.info, "too early")))),
            "abandon \(LoadError(path: path, cause: .workerFailed("protocol error during the worker's hello: an unexpected message")))"
        )
        handshake.sentLoad(canonicalPath: path)
        XCTAssertEqual(
            describe(handshake.received(.loadFailed(.noEntry, detail: ""))),
            "stop \(LoadError(path: path, cause: .missingEntrySymbol))")
        let noDescriptor = RawGuestEntry(
            abiVersion: .current, descriptor: nil, hasInit: true, hasDeinit: true, hasQuery: true)
        XCTAssertTrue(describe(handshake.received(.loaded(noDescriptor))).hasPrefix("stop "))
        XCTAssertTrue(describe(handshake.received(.started(.ok, initStatus: 0))).hasPrefix("abandon "))
        handshake.sentStart()
        XCTAssertEqual(
            describe(handshake.received(.started(.initFailed, initStatus: -3))),
            "stop \(LoadError(path: path, cause: .initFailed(status: -3, name: StatusName.of(-3))))")
        XCTAssertTrue(describe(handshake.received(.started(.noAppCallbacks, initStatus: 0))).hasPrefix("stop "))
        XCTAssertEqual(
            describe(handshake.received(.reply(sequence: 1, status: 0))),
            "abandon \(LoadError(path: path, cause: .workerFailed("protocol error during init: an unexpected message")))"
        )
    }

    // A library the worker's own user cannot read says so.
    func testAnUnreadableLibraryUnderAUserOfItsOwnSaysWhy() {
        var handshake = WorkerHandshakeState(path: path, ownUser: true)
        handshake.sentLoad(canonicalPath: path)
        let decision = describe(
            handshake.received(
                .loadFailed(.dlopen, detail: "\(path): cannot open shared object file: Permission denied")))
        XCTAssertTrue(decision.hasPrefix("stop "), decision)
        XCTAssertTrue(decision.contains("a guest must be readable by other users"), decision)
    }
}

/// What the host queue heard, in order, as lines.
private final class Heard: Sendable {
    private let state = Mutex<[String]>([])
    func append(_ line: String) { state.withLock { $0.append(line) } }
    func clear() { state.withLock { $0 = [] } }
    var lines: [String] { state.withLock { $0 } }
}

extension HostToWorkerMessage {
    fileprivate var sequence: UInt64? {
        if case .call(let sequence, _) = self { sequence } else { nil }
    }
}
