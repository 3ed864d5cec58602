import ApphostModel
import ApphostVocabulary
import ApphostWire
import CApphost
import Foundation
import Glibc
import XCTest

@testable import ApphostChannels
@testable import ApphostService

/// The built `apphost-worker` (Sources/apphost-worker), spawned as the host spawns it (its end of a
/// socketpair on fd 3) and spoken to in raw frames of apphost_wire.h, with a codec of the test's own.
final class WorkerProcessTests: XCTestCase {
    private var workers: [TestWorker] = []

    override func tearDown() {
        for worker in workers { worker.kill() }
        workers = []
    }

    // MARK: The conversation

    // CONTRACT X1 A2 S2 S3 S6 S12 A3: HELLO, LOAD and the raw descriptor, START, calls answered in
    // order while the guest's LOG and SAVE_STATE frames arrive before the replies of the callbacks
    // that sent them, then STOP: deinit, STOPPED and exit 0.
    func testConversationFromHelloToStopped() throws {
        let worker = try spawn()
        XCTAssertEqual(try worker.receive(), .hello(version: UInt32(APPHOST_WIRE_VERSION), pid: UInt32(worker.pid)))

        try worker.send(HostFrame.load(path: try ProbeGuest.library()))
        XCTAssertEqual(
            try worker.receive(),
            .loaded(
                GuestRuntimeCTests.RawDescriptor(
                    abi: GuestRuntimeCTests.headersABI, hasDescriptor: true,
                    structSize: UInt32(MemoryLayout<apphost_guest_descriptor_t>.size),
                    id: ProbeGuest.id, name: "Probe", version: "0.1", vendor: "apphost tests", description: nil,
                    capabilities: 6, hasInit: true, hasDeinit: true, hasQuery: true)))

        try worker.send(HostFrame.start(dataDirectory: "/data/probe"))
        XCTAssertEqual(
            try worker.receive(until: { $0.isStarted }),
            [
                .log(
                    2,
                    "init host=apphost/9.8.7 size=\(MemoryLayout<apphost_host_t>.size) "
                        + "abi=\(GuestRuntimeCTests.headersABIMajorMinor) dir=/data/probe"),
                .started(outcome: UInt8(APPHOST_WIRE_STARTED_OK.rawValue), status: 0),
            ])

        let conversation: [(GuestMessage, [WorkerFrame])] = [
            (GuestMessage(call: .didFinishLaunching, appState: .inactive), [.log(2, "did_finish_launching app=1")]),
            (
                connect(1, restoration: Data("counter=3".utf8)),
                [.log(2, "will_connect scene=1 app=1 state=0 session=session-1 role=0 initial=1 size=48 restoration=9")]
            ),
            (
                scene(1, .willEnterForeground, app: .inactive, state: .foregroundInactive),
                [.log(2, "will_enter_foreground scene=1 app=1 state=1")]
            ),
            (
                scene(1, .didBecomeActive, app: .active, state: .foregroundActive),
                [.log(2, "did_become_active scene=1 app=2 state=2")]
            ),
            (
                scene(1, .willResignActive, app: .inactive, state: .foregroundInactive),
                [.log(2, "will_resign_active scene=1 app=1 state=1")]
            ),
            (
                scene(1, .didEnterBackground, app: .background, state: .background),
                [
                    .saveState(scene: 1, Array("counter=3".utf8)),
                    .log(2, "did_enter_background scene=1 app=3 state=3 save=ok"),
                ]
            ),
            (
                connect(2, restoration: nil, app: .background),
                [
                    .log(
                        2,
                        "will_connect scene=2 app=3 state=0 session=session-2 role=0 initial=1 size=48 restoration=none"
                    )
                ]
            ),
            (
                scene(2, .didDisconnect, app: .background, state: .unattached),
                [.log(2, "did_disconnect scene=2 app=3 state=invalid_handle")]
            ),
            (
                GuestMessage(call: .willTerminate, appState: .background),
                [.saveState(scene: 1, Array("terminating".utf8)), .log(2, "will_terminate app=3 save=ok")]
            ),
        ]
        for (index, (message, expected)) in conversation.enumerated() {
            let sequence = UInt64(1000 + index)
            try worker.send(HostFrame.call(sequence: sequence, message))
            XCTAssertEqual(
                try worker.receive(until: { $0.isReply }), expected + [.reply(sequence: sequence, status: 0)],
                message.call.callbackName)
        }

        try worker.send(HostFrame.stop)
        XCTAssertEqual(try worker.receive(until: { $0 == .stopped }), [.log(2, "deinit"), .stopped])
        XCTAssertEqual(worker.waitForExit(), 0)
    }

    // CONTRACT A2: did_finish_launching's status is the reply.
    func testLaunchStatusIsTheReply() throws {
        let worker = try started(try ProbeGuest.library(name: "probe-launch-fails", flags: ["-DPROBE_LAUNCH_STATUS=7"]))
        try worker.send(HostFrame.call(sequence: 1, GuestMessage(call: .didFinishLaunching, appState: .inactive)))
        XCTAssertEqual(try worker.receive(until: { $0.isReply }).last, .reply(sequence: 1, status: 7))
    }

    // CONTRACT S12: a 1 MiB saved state crosses the socket both ways, byte for byte.
    func testLargestStateCrossesTheSocketBothWays() throws {
        let worker = try started(try ProbeGuest.library())
        let state = (0..<Int(APPHOST_SCENE_STATE_MAX_BYTES)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        try worker.send(HostFrame.call(sequence: 1, connect(1, restoration: Data(state))))
        XCTAssertEqual(
            try worker.receive(until: { $0.isReply }).first,
            .log(
                2,
                "will_connect scene=1 app=1 state=0 session=session-1 role=0 initial=1 size=48 restoration=\(state.count)"
            ))
        try worker.send(
            HostFrame.call(sequence: 2, scene(1, .didEnterBackground, app: .background, state: .background)))
        XCTAssertEqual(try worker.receive(until: { $0.isReply }).first, .saveState(scene: 1, state))
    }

    // CONTRACT X3: a guest thread logs while calls run: every frame arrives whole, the thread's
    // lines in their order, the replies in theirs.
    func testGuestThreadFramesArriveWholeWhileCallsRun() throws {
        let worker = try started(try ProbeGuest.library())
        let calls = 100
        for sequence in 1...calls {
            try worker.send(
                HostFrame.call(
                    sequence: UInt64(sequence), GuestMessage(call: .didReceiveMemoryWarning, appState: .background)))
        }
        try worker.send(HostFrame.stop)
        let frames = try worker.receive(until: { $0 == .stopped })
        let lines = frames.compactMap { frame -> String? in
            guard case .log(_, let line) = frame, line.hasPrefix("thread ") else { return nil }
            return line
        }
        XCTAssertEqual(lines, (0..<500).map { "thread \($0)" })
        XCTAssertEqual(
            frames.filter(\.isReply), (1...calls).map { WorkerFrame.reply(sequence: UInt64($0), status: 0) })
        XCTAssertEqual(frames.suffix(2), [.log(2, "deinit"), .stopped], "deinit joined the thread")
        XCTAssertEqual(worker.waitForExit(), 0)
    }

    // MARK: The background extension

    // CONTRACT B1 B2 B3 B7 X3: the background calls reach the guest's runtime, and what the guest
    // does with the extension comes back as frames, each before the reply of the call it happened
    // in: ids from 1, one-shot and repeating timers, async work, expiration, the budget.
    func testBackgroundCallsAndFramesCrossTheWire() throws {
        let worker = try spawn()
        _ = try worker.receive()
        try worker.send(HostFrame.load(path: try BackgroundFixture.library(name: "background-worker")))
        guard case .loaded = try worker.receive() else { return XCTFail("no LOADED") }
        try worker.send(HostFrame.start(dataDirectory: "/data/background"))
        XCTAssertEqual(
            try worker.receive(until: { $0.isStarted }),
            [
                .log(2, "init begin=0 timer=invalid_state async=invalid_state time=unlimited"),
                .started(outcome: UInt8(APPHOST_WIRE_STARTED_OK.rawValue), status: 0),
            ])
        let invalidHandle = StatusCode.invalidHandle
        let conversation: [(GuestCall, [WorkerFrame], Int32)] = [
            (
                commands(1, "begin upload;timer 5 0;repeat 2 2;async a;time"),
                [
                    .taskBegan(1, name: "upload"), .log(2, "begin upload = 1"),
                    .timerScheduled(1, delay: 5_000_000, interval: 0), .log(2, "timer = 1"),
                    .timerScheduled(2, delay: 2_000_000, interval: 2_000_000), .log(2, "timer = 2"),
                    .workSubmitted(1), .log(2, "async = ok"), .log(2, "time = unlimited"),
                ], 0
            ),
            (.backgroundTime(.seconds(2)), [], 0),
            (.runWork(1), [.log(2, "async a")], 0),
            (.runWork(1), [], invalidHandle),
            (.fireTimer(1), [.log(2, "fired 1 1")], 0),
            (.fireTimer(1), [], 0),
            (.fireTimer(2), [.log(2, "fired 2 1")], 0),
            (.fireTimer(2), [.log(2, "fired 2 2"), .timerCancelled(2), .log(2, "cancel 2 = ok")], 0),
            (.fireTimer(2), [], 0),
            (.fireTimer(3), [], invalidHandle),
            (.expireTask(1), [.log(2, "expired 1"), .taskEnded(1), .log(2, "end 1 = ok")], 0),
            (.expireTask(1), [], 0),
            (.expireTask(0), [], invalidHandle),
            (
                commands(2, "end 1;cancel 1"),
                [.log(2, "end 1 = invalid_handle"), .log(2, "cancel 1 = invalid_handle")], 0
            ),
            (.backgroundTime(.zero), [], 0),
            (commands(3, "begin late;time"), [.log(2, "begin late = 0"), .log(2, "time = 0.000")], 0),
            (.backgroundTime(nil), [], 0),
            (commands(4, "begin-bare"), [.taskBegan(2, name: ""), .log(2, "begin (null) = 2")], 0),
            (.willTerminate, [.log(2, "will_terminate begin = 0")], 0),
        ]
        for (index, (call, expected, status)) in conversation.enumerated() {
            let sequence = UInt64(index + 1)
            try worker.send(HostFrame.call(sequence: sequence, GuestMessage(call: call, appState: .background)))
            XCTAssertEqual(
                try worker.receive(until: { $0.isReply }), expected + [.reply(sequence: sequence, status: status)],
                "\(call)")
        }
        try worker.send(HostFrame.stop)
        XCTAssertEqual(try worker.receive(until: { $0 == .stopped }), [.log(2, "deinit begin=0"), .stopped])
        XCTAssertEqual(worker.waitForExit(), 0)
    }

    // CONTRACT S9 S11 N1 N2 N3 S7 X3: the scenes calls reach the guest's runtime, and what the guest
    // does with apphost.scenes/1 comes back as frames laid out as apphost_wire.h says, each before
    // the reply of the call it happened in; a request without a user action's activation is
    // refused, one inside perform_action is not.
    func testScenesCallsAndFramesCrossTheWire() throws {
        let worker = try spawn()
        _ = try worker.receive()
        try worker.send(HostFrame.load(path: try ScenesFixture.library(name: "scenes-worker")))
        guard case .loaded = try worker.receive() else { return XCTFail("no LOADED") }
        try worker.send(HostFrame.start(dataDirectory: "/data/scenes"))
        XCTAssertEqual(
            try worker.receive(until: { $0.isStarted }),
            [
                .log(2, ScenesFixture.initLine),
                .started(outcome: UInt8(APPHOST_WIRE_STARTED_OK.rawValue), status: 0),
            ])
        let conversation: [(GuestCall, [WorkerFrame], Int32)] = [
            (
                commands(
                    1,
                    "present here 0 Sheet;progress here 0.25;request here 1 2 st;notify Hi there;"
                        + "activate keep 1"),
                [
                    .modalPresented(1, modal: 1, style: 0, title: "Sheet"), .log(2, "present Sheet = 1"),
                    .loadingProgress(1, bits: (0.25).bitPattern), .log(2, "progress 0.25 = ok"),
                    .log(2, "request = no_activation"), .notificationPosted(title: "Hi", body: "there"),
                    .log(2, "notify Hi = ok"), .log(2, "activate keep = invalid_handle"),
                ], 0
            ),
            (
                .sceneSize(1, SceneSize(width: 800, height: 600, sizeClass: .regular)),
                [.log(2, "did_change_size 1 800x600 class=1 size=16 query=800x600")], 0
            ),
            (
                .performAction(
                    1, name: "request here 1 2 st", payload: Data("p".utf8), activation: .seconds(5), token: 7),
                [
                    .log(2, "perform_action 1 request here 1 2 st payload=p"),
                    .sceneRequested(activation: 7, from: 1, role: 1, style: 2, state: Array("st".utf8), request: 1),
                    .log(2, "request = ok"),
                ], 0
            ),
            (
                commands(2, "request 1 0 0;notify Bye"),
                [
                    .log(2, "request = no_activation"), .notificationPosted(title: "Bye", body: ""),
                    .log(2, "notify Bye = ok"),
                ], 0
            ),
            (.shouldDismissModal(1, 1), [.log(2, "should_dismiss 1 1 = 1")], 1),
            (.shouldDismissModal(1, 1), [], 1),
            (
                commands(3, "present 1 1 Full;present 1 0 Top;dismiss 1 2;dismiss 1 3"),
                [
                    .modalPresented(1, modal: 2, style: 1, title: "Full"), .log(2, "present Full = 2"),
                    .modalPresented(1, modal: 3, style: 0, title: "Top"), .log(2, "present Top = 3"),
                    .modalDismissed(1, modal: 2), .log(2, "dismiss 2 = ok"), .log(2, "dismiss 3 = invalid_handle"),
                ], 0
            ),
            (.didDismissModal(1, 1), [.log(2, "did_dismiss 1 1")], 0),
            (.didDismissModal(9, 1), [], StatusCode.invalidHandle),
            (.didDiscard(sessionID: "gone"), [.log(2, "did_discard gone")], 0),
            // A session the guest has (ABI 1.2: the runtime knows them from will_connect).
            (commands(4, "keep"), [], 0),
            (
                commands(5, "activate keep 1"),
                [.sessionActivationRequested("keep", style: 1), .log(2, "activate keep = ok")], 0
            ),
            // N1: the limit counts from when it came.
            (.notificationLimit(count: 1, window: .seconds(60)), [], 0),
            (
                commands(6, "notify X;notify Y"),
                [
                    .notificationPosted(title: "X", body: ""), .log(2, "notify X = ok"),
                    .log(2, "notify Y = limit_reached"),
                ],
                0
            ),
            // X5: while the host cannot store scene 1's saves, a save still goes to it, and the
            // guest hears APPHOST_ERROR_INTERNAL; once they work again, ok.
            (.saveStatus(1, failed: true), [], 0),
            (.saveStatus(9, failed: true), [], StatusCode.invalidHandle),
            (commands(7, "save 1 3"), [.saveState(scene: 1, Array("sss".utf8)), .log(2, "save 3 = internal")], 0),
            (.saveStatus(1, failed: false), [], 0),
            (commands(8, "save 1 2"), [.saveState(scene: 1, Array("ss".utf8)), .log(2, "save 2 = ok")], 0),
            // X5 (ABI 1.7): a confirmed save carries its confirmation's id; the host's
            // SAVE_CONFIRMATION of it runs the guest's confirmation on the main queue, once.
            (
                commands(9, "confirm 1 2"),
                [.saveState(scene: 1, Array("cc".utf8), confirmation: 1), .log(2, "save 2 = ok")], 0
            ),
            (.saveConfirmation(1, stored: false), [.log(2, "stored 2 @1 = internal main=2")], 0),
            (.saveConfirmation(1, stored: true), [], StatusCode.invalidHandle),
        ]
        for (index, (call, expected, status)) in conversation.enumerated() {
            let sequence = UInt64(index + 1)
            try worker.send(HostFrame.call(sequence: sequence, GuestMessage(call: call, appState: .active)))
            XCTAssertEqual(
                try worker.receive(until: { $0.isReply }), expected + [.reply(sequence: sequence, status: status)],
                "\(call)")
        }
        try worker.send(HostFrame.stop)
        XCTAssertEqual(
            try worker.receive(until: { $0 == .stopped }),
            [.log(2, "deinit notify=invalid_state activate=invalid_state"), .stopped])
        XCTAssertEqual(worker.waitForExit(), 0)
    }

    // CONTRACT B2: after BACKGROUND_TIME the guest's time counts down from what the host gave.
    func testBackgroundTimeCountsDownInTheWorker() throws {
        let worker = try started(try BackgroundFixture.library(name: "background-worker"))
        try worker.send(
            HostFrame.call(sequence: 1, GuestMessage(call: .backgroundTime(.seconds(30)), appState: .background)))
        XCTAssertEqual(try worker.receive(until: { $0.isReply }), [.reply(sequence: 1, status: 0)])
        usleep(100_000)
        try worker.send(HostFrame.call(sequence: 2, GuestMessage(call: commands(1, "time"), appState: .background)))
        let frames = try worker.receive(until: { $0.isReply })
        guard case .log(_, let line) = frames.first, let seconds = Double(line.dropFirst("time = ".count)) else {
            return XCTFail("\(frames)")
        }
        XCTAssertLessThan(seconds, 29.91)
        XCTAssertGreaterThan(seconds, 25)
    }

    // CONTRACT B1 B7: a task a guest thread begins is on the wire before the reply to any call
    // handled after begin_task returned: after BACKGROUND_TIME(0)'s REPLY, no TASK_BEGAN comes,
    // and every task the thread got was reported.
    func testTaskBeganComesBeforeTheReplyToALaterCall() throws {
        let worker = try started(try BackgroundFixture.library(name: "background-worker"))
        try worker.send(HostFrame.call(sequence: 1, GuestMessage(call: commands(1, "spin"), appState: .background)))
        var frames = try worker.receive(until: { $0.isReply })
        while frames.filter(\.isTaskBegan).count < 20 { frames.append(try worker.receive()) }
        try worker.send(HostFrame.call(sequence: 2, GuestMessage(call: .backgroundTime(.zero), appState: .background)))
        frames += try worker.receive(until: { $0 == .reply(sequence: 2, status: 0) })
        let reply = frames.count
        try worker.send(HostFrame.call(sequence: 3, GuestMessage(call: commands(2, "join"), appState: .background)))
        frames += try worker.receive(until: { $0.isReply })
        XCTAssertFalse(frames[reply...].contains(where: \.isTaskBegan), "a TASK_BEGAN after the reply")
        let began = frames.filter(\.isTaskBegan)
        XCTAssertEqual(began, (1...UInt64(began.count)).map { .taskBegan($0, name: "spin") })
        // The thread stops once begin_task refuses, before or after BACKGROUND_TIME's reply.
        XCTAssertTrue(frames.contains(.log(2, "spin stopped after \(began.count)")), "\(frames.suffix(4))")
    }

    // MARK: Loading and starting

    // CONTRACT X1: dlopen's refusal comes back with dlerror's text; STOP then ends the worker.
    func testLoadOfAMissingFileFailsWithTheDlerrorText() throws {
        let path = GuestFixtures.path("no-such-guest.so")
        XCTAssertNil(dlopen(path, RTLD_NOW | RTLD_LOCAL))
        let expected = String(cString: dlerror())
        let worker = try spawn()
        _ = try worker.receive()
        try worker.send(HostFrame.load(path: path))
        XCTAssertEqual(
            try worker.receive(), .loadFailed(reason: UInt8(APPHOST_WIRE_LOAD_DLOPEN.rawValue), detail: expected))
        try worker.send(HostFrame.stop)
        XCTAssertEqual(try worker.receive(), .stopped)
        XCTAssertEqual(worker.waitForExit(), 0)
    }

    // CONTRACT X1
    func testLoadOfALibraryWithoutTheEntryFails() throws {
        let path = try GuestFixtures.library("no_entry.c")
        let worker = try spawn()
        _ = try worker.receive()
        try worker.send(HostFrame.load(path: path))
        XCTAssertEqual(
            try worker.receive(),
            .loadFailed(
                reason: UInt8(APPHOST_WIRE_LOAD_NO_ENTRY.rawValue), detail: "\(path): undefined symbol: apphost_entry"))
    }

    // CONTRACT A2 X1: init's status comes back; deinit is not called (the fixture's deinit aborts,
    // which would end the worker by SIGABRT instead of 0).
    func testInitFailureIsReportedWithoutDeinit() throws {
        let path = try GuestFixtures.library(
            "minimal_guest.c", name: "worker-init-fails",
            flags: ["-DFIXTURE_INIT_STATUS=APPHOST_ERROR_GUEST_FAILED", "-DFIXTURE_DEINIT_ABORTS"])
        let worker = try loaded(path)
        try worker.send(HostFrame.start(dataDirectory: "/data/minimal"))
        XCTAssertEqual(
            try worker.receive(), .started(outcome: UInt8(APPHOST_WIRE_STARTED_INIT_FAILED.rawValue), status: 7))
        try worker.send(HostFrame.stop)
        XCTAssertEqual(try worker.receive(), .stopped)
        XCTAssertEqual(worker.waitForExit(), 0)
    }

    // CONTRACT X1: a guest without app callbacks gets deinit, before STARTED says so.
    func testGuestWithoutAppCallbacksGetsDeinit() throws {
        let worker = try loaded(try ProbeGuest.library(name: "probe-no-app", flags: ["-DPROBE_NO_APP_CALLBACKS"]))
        try worker.send(HostFrame.start(dataDirectory: "/data/probe"))
        XCTAssertEqual(
            try worker.receive(until: { $0.isStarted }).suffix(2),
            [.log(2, "deinit"), .started(outcome: UInt8(APPHOST_WIRE_STARTED_NO_APP_CALLBACKS.rawValue), status: 0)])
    }

    // MARK: Ending

    // CONTRACT X2: when the host closes its end, the worker exits at once, idle or running a guest.
    func testClosingTheHostEndEndsTheWorker() throws {
        let idle = try spawn()
        _ = try idle.receive()
        idle.closeHostEnd()
        XCTAssertEqual(idle.waitForExit(), 0)

        let running = try started(try ProbeGuest.library())
        running.closeHostEnd()
        XCTAssertEqual(running.waitForExit(), 0)
    }

    // A malformed frame, or one the conversation does not allow at that point, ends the worker at
    // once with status 3 and one line on stderr.
    func testMalformedOrUnexpectedFramesEndTheWorkerWithStatus3() throws {
        let probe = try ProbeGuest.library()
        let load = HostFrame.load(path: probe)
        let launch = GuestMessage(call: .didFinishLaunching, appState: .inactive)
        let maximum = UInt32(APPHOST_WIRE_MAX_FRAME)
        let cases: [(name: String, stage: Stage, bytes: [UInt8])] = [
            ("an empty frame", .hello, [0, 0, 0, 0]),
            ("a length past the maximum", .hello, TestPayload().u32(maximum + 1).bytes),
            ("an unknown type", .hello, TestFrame(type: 99, payload: []).encoded),
            ("CALL before LOAD", .hello, HostFrame.call(sequence: 1, launch).encoded),
            ("LOAD with a byte left over", .hello, TestFrame(type: load.type, payload: load.payload + [0]).encoded),
            ("LOAD cut short", .hello, TestFrame(type: load.type, payload: Array(load.payload.prefix(6))).encoded),
            ("a path holding a NUL", .hello, HostFrame.load(path: probe + "\0x").encoded),
            ("START before LOAD", .hello, HostFrame.start(dataDirectory: "/data").encoded),
            ("STOP with a payload", .hello, TestFrame(type: HostFrame.stop.type, payload: [1]).encoded),
            ("LOAD twice", .loaded, load.encoded),
            ("CALL before START", .loaded, HostFrame.call(sequence: 1, launch).encoded),
            ("START twice", .started, HostFrame.start(dataDirectory: "/data").encoded),
            (
                "an app state out of range", .started,
                HostFrame.call(sequence: 1, launch, rawAppState: 5).encoded
            ),
            (
                "a bool that is neither 0 nor 1", .started,
                HostFrame.call(sequence: 1, launch, rawHasSceneState: 2).encoded
            ),
            ("an unknown call", .started, HostFrame.call(sequence: 1, launch, rawKind: 15).encoded),
            (
                "a SCENE_SIZE whose size class is 2", .started,
                TestFrame(
                    type: UInt8(APPHOST_WIRE_CALL.rawValue),
                    payload: TestPayload().u64(1).u8(3).u8(0).u8(0).u8(UInt8(APPHOST_WIRE_CALL_SCENE_SIZE.rawValue))
                        .u64(1).u32(800).u32(600).u8(2).bytes
                ).encoded
            ),
            (
                "a PERFORM_ACTION without its activation", .started,
                TestFrame(
                    type: UInt8(APPHOST_WIRE_CALL.rawValue),
                    payload: TestPayload().u64(1).u8(3).u8(0).u8(0)
                        .u8(UInt8(APPHOST_WIRE_CALL_PERFORM_ACTION.rawValue)).u64(1).string("tap").data([]).bytes
                ).encoded
            ),
            (
                "a DID_DISMISS_MODAL with a byte left over", .started,
                TestFrame(
                    type: UInt8(APPHOST_WIRE_CALL.rawValue),
                    payload: HostFrame.call(
                        sequence: 1, GuestMessage(call: .didDismissModal(1, 1), appState: .background)
                    ).payload + [0]
                ).encoded
            ),
            (
                "an EXPIRE_TASK without its id", .started,
                TestFrame(
                    type: UInt8(APPHOST_WIRE_CALL.rawValue),
                    payload: TestPayload().u64(1).u8(3).u8(0).u8(0).u8(UInt8(APPHOST_WIRE_CALL_EXPIRE_TASK.rawValue))
                        .bytes
                ).encoded
            ),
            (
                "a BACKGROUND_TIME whose present flag is 2", .started,
                TestFrame(
                    type: UInt8(APPHOST_WIRE_CALL.rawValue),
                    payload: TestPayload().u64(1).u8(3).u8(0).u8(0)
                        .u8(UInt8(APPHOST_WIRE_CALL_BACKGROUND_TIME.rawValue)).u8(2).u64(5).bytes
                ).encoded
            ),
            (
                "a RUN_WORK with a byte left over", .started,
                TestFrame(
                    type: UInt8(APPHOST_WIRE_CALL.rawValue),
                    payload: HostFrame.call(sequence: 1, GuestMessage(call: .runWork(1), appState: .background))
                        .payload + [0]
                ).encoded
            ),
            (
                "an unknown scene callback", .started,
                HostFrame.call(
                    sequence: 1, scene(1, .didBecomeActive, app: .active, state: .foregroundActive), rawCallback: 6
                )
                .encoded
            ),
            (
                "a frame cut short by the end of the stream", .started,
                Array(HostFrame.call(sequence: 1, launch).encoded.prefix(8))
            ),
        ]
        for (name, stage, bytes) in cases {
            let worker = try spawn(to: stage, loading: probe)
            try worker.sendRaw(bytes)
            worker.shutdownWriting()
            XCTAssertEqual(worker.waitForExit(), 3, name)
            let errors = worker.errorOutput().split(separator: "\n")
            XCTAssertEqual(errors.count, 1, "\(name): \(errors)")
            XCTAssertTrue(errors.first?.hasPrefix("apphost-worker: protocol error: ") ?? false, "\(name): \(errors)")
        }
    }

    // MARK: The process

    // Started without a socket on fd 3, the worker says so in one line and exits 2.
    func testWorkerWithoutASocketOnFD3ExitsWith2() throws {
        var ends: [Int32] = [-1, -1]
        XCTAssertEqual(TestWorker.closeOnExecPipe(&ends), 0)
        defer { for end in ends { close(end) } }
        let devNull = open("/dev/null", O_RDONLY | O_CLOEXEC)
        defer { close(devNull) }
        for fd3 in [devNull, ends[0]] {
            let worker = try TestWorker.spawn(executable: try BuiltProduct.path("apphost-worker"), fd3: fd3)
            workers.append(worker)
            XCTAssertEqual(worker.waitForExit(), 2)
            XCTAssertEqual(
                worker.errorOutput(),
                "apphost-worker: file descriptor 3 is not a stream socket: apphost starts this program with its end "
                    + "of a socketpair there\n")
        }
    }

    // CONTRACT X2: the worker keeps only 0, 1, 2 and the socket, which it makes close-on-exec so
    // that programs a guest starts do not hold it, and names itself, whatever it was started as.
    func testWorkerClosesInheritedDescriptorsAndNamesItself() throws {
        var leak: [Int32] = [-1, -1]
        XCTAssertEqual(TestWorker.closeOnExecPipe(&leak), 0)
        defer { for end in leak { close(end) } }
        let link = GuestFixtures.path("w-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createSymbolicLink(
            atPath: link, withDestinationPath: try BuiltProduct.path("apphost-worker"))
        let worker = try TestWorker.spawn(executable: link, inherit: leak[1])
        workers.append(worker)
        _ = try worker.receive()

        let descriptors = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(worker.pid)/fd")
        XCTAssertEqual(descriptors.sorted(), ["0", "1", "2", "3"])
        let comm = try String(contentsOfFile: "/proc/\(worker.pid)/comm", encoding: .utf8)
        XCTAssertEqual(comm, "apphost-worker\n")
        let fdinfo = try String(contentsOfFile: "/proc/\(worker.pid)/fdinfo/3", encoding: .utf8)
        let flags = try XCTUnwrap(
            fdinfo.split(separator: "\n").first { $0.hasPrefix("flags:") }.flatMap {
                Int($0.dropFirst("flags:".count).trimmingCharacters(in: .whitespaces), radix: 8)
            })
        XCTAssertNotEqual(flags & Int(O_CLOEXEC), 0, "the socket is close-on-exec")
    }

    // MARK: Harness

    private enum Stage {
        case hello, loaded, started
    }

    private func spawn() throws -> TestWorker {
        let worker = try TestWorker.spawn(executable: try BuiltProduct.path("apphost-worker"))
        workers.append(worker)
        return worker
    }

    /// A worker past HELLO and, as `stage` says, LOAD and START of `path`.
    private func spawn(to stage: Stage, loading path: String) throws -> TestWorker {
        let worker = try spawn()
        _ = try worker.receive()
        if stage == .hello { return worker }
        try worker.send(HostFrame.load(path: path))
        guard case .loaded = try worker.receive() else { throw TestWorker.Failure(description: "no LOADED") }
        if stage == .loaded { return worker }
        try worker.send(HostFrame.start(dataDirectory: "/data/probe"))
        _ = try worker.receive(until: { $0.isStarted })
        return worker
    }

    private func loaded(_ path: String) throws -> TestWorker { try spawn(to: .loaded, loading: path) }

    private func started(_ path: String) throws -> TestWorker { try spawn(to: .started, loading: path) }

    private func connect(_ scene: SceneHandle, restoration: Data?, app: AppState = .inactive) -> GuestMessage {
        GuestMessage(
            call: .sceneWillConnect(
                SceneConnection(
                    scene: scene, sessionID: "session-\(scene)", role: .primary, initialState: .foregroundInactive,
                    restorationData: restoration)),
            appState: app, sceneState: .unattached)
    }

    private func scene(_ handle: SceneHandle, _ callback: SceneCallback, app: AppState, state: SceneState)
        -> GuestMessage
    {
        GuestMessage(call: .scene(handle, callback), appState: app, sceneState: state)
    }

    /// A scene connection whose session id is commands for the background fixture (its header).
    private func commands(_ scene: SceneHandle, _ commands: String) -> GuestCall {
        .sceneWillConnect(
            SceneConnection(
                scene: scene, sessionID: commands, role: .primary, initialState: .background, restorationData: nil))
    }
}

// MARK: - The worker process

/// An apphost-worker spawned with posix_spawn: one end of a socketpair on its fd 3 (Foundation's
/// Process cannot place a descriptor there), stderr on a pipe the test reads.
final class TestWorker {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    let pid: pid_t
    private var socket: Int32
    private let errors: Int32
    private var pending: [UInt8] = []
    private var exitStatus: Int32?

    private init(pid: pid_t, socket: Int32, errors: Int32) {
        self.pid = pid
        self.socket = socket
        self.errors = errors
    }

    /// Spawns `executable` with the worker end of a new socketpair on fd 3, or `fd3` there instead;
    /// `inherit` is left open in the child as fd 50, as a careless host would leave it.
    static func spawn(executable: String, fd3: Int32? = nil, inherit: Int32? = nil) throws -> TestWorker {
        var ends: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0 else {
            throw Failure(description: "socketpair: \(String(cString: strerror(errno)))")
        }
        var errorPipe: [Int32] = [-1, -1]
        guard closeOnExecPipe(&errorPipe) == 0 else {
            throw Failure(description: "pipe: \(String(cString: strerror(errno)))")
        }
        defer {
            close(ends[1])
            close(errorPipe[1])
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // dup2 clears close-on-exec on the copy: these, and only these, reach the worker.
        posix_spawn_file_actions_adddup2(&actions, errorPipe[1], STDERR_FILENO)
        posix_spawn_file_actions_adddup2(&actions, fd3 ?? ends[1], Int32(APPHOST_WIRE_WORKER_FD))
        if let inherit { posix_spawn_file_actions_adddup2(&actions, inherit, 50) }

        let argv: [UnsafeMutablePointer<CChar>?] = [strdup(executable), nil]
        defer { free(argv[0]) }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, executable, &actions, nil, argv, environ)
        guard status == 0 else {
            close(ends[0])
            close(errorPipe[0])
            throw Failure(description: "posix_spawn \(executable): \(String(cString: strerror(status)))")
        }
        return TestWorker(pid: pid, socket: ends[0], errors: errorPipe[0])
    }

    /// pipe(2) with both ends close-on-exec (Swift's Glibc has no pipe2); 0 or -1.
    static func closeOnExecPipe(_ ends: inout [Int32]) -> Int32 {
        guard pipe(&ends) == 0 else { return -1 }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        return 0
    }

    func send(_ frame: TestFrame) throws { try sendRaw(frame.encoded) }

    func sendRaw(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            // MSG_NOSIGNAL: a worker that already exited must not kill the test with SIGPIPE.
            let count = bytes[sent...].withUnsafeBytes {
                Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw Failure(description: "send: \(String(cString: strerror(errno)))") }
            sent += count
        }
    }

    /// The next frame from the worker, within `timeout` seconds.
    func receive(timeout: Double = 20) throws -> WorkerFrame {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if pending.count >= 4 {
                let length = Int(TestReader(pending).u32OrZero)
                if pending.count >= 4 + length {
                    let body = Array(pending[4..<(4 + length)])
                    pending.removeFirst(4 + length)
                    return try WorkerFrame(type: body[0], payload: Array(body.dropFirst()))
                }
            }
            try fill(before: deadline)
        }
    }

    /// Frames until one that satisfies `last`, that one included.
    func receive(until last: (WorkerFrame) -> Bool) throws -> [WorkerFrame] {
        var frames: [WorkerFrame] = []
        repeat { frames.append(try receive()) } while !last(frames[frames.count - 1])
        return frames
    }

    private func fill(before deadline: Date) throws {
        var poller = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        let milliseconds = Int32(max(0, deadline.timeIntervalSinceNow) * 1000)
        guard poll(&poller, 1, milliseconds) > 0 else { throw Failure(description: "no frame in time") }
        var chunk = [UInt8](repeating: 0, count: 65536)
        let count = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
        if count < 0 && errno == EINTR { return }
        guard count > 0 else { throw Failure(description: "the worker closed the socket") }
        pending += chunk.prefix(count)
    }

    func closeHostEnd() {
        guard socket >= 0 else { return }
        close(socket)
        socket = -1
    }

    /// Ends the host's writing: the worker reads the end of the stream after what was sent.
    func shutdownWriting() { _ = Glibc.shutdown(socket, Int32(SHUT_WR)) }

    /// The worker's exit status (128 + the signal when killed), or nil when it has not exited in
    /// `timeout` seconds, in which case it is killed.
    func waitForExit(timeout: Double = 20) -> Int32? {
        if let exitStatus { return exitStatus }
        let deadline = Date().addingTimeInterval(timeout)
        var status: Int32 = 0
        while Date() < deadline {
            let result = waitpid(pid, &status, WNOHANG)
            if result == pid {
                let signal = status & 0x7F
                exitStatus = signal == 0 ? (status >> 8) & 0xFF : 128 + signal
                return exitStatus
            }
            usleep(5000)
        }
        kill()
        return nil
    }

    /// What the worker wrote to stderr; call after it exited.
    func errorOutput() -> String {
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(errors, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            output += chunk.prefix(count)
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Kills and reaps the worker unless it has exited; closes the test's descriptors.
    func kill() {
        if exitStatus == nil {
            _ = Glibc.kill(pid, SIGKILL)
            var status: Int32 = 0
            _ = waitpid(pid, &status, 0)
            exitStatus = -1
        }
        closeHostEnd()
        close(errors)
    }
}

// MARK: - A test-only codec of apphost_wire.h

/// One frame: u32 length, u8 type, payload.
struct TestFrame {
    var type: UInt8
    var payload: [UInt8]

    var encoded: [UInt8] { TestPayload().u32(UInt32(payload.count + 1)).u8(type).bytes + payload }
}

/// Little-endian fields, appended in order.
struct TestPayload {
    var bytes: [UInt8] = []

    func u8(_ value: UInt8) -> TestPayload { appending([value]) }
    func bool(_ value: Bool) -> TestPayload { u8(value ? 1 : 0) }
    func u32(_ value: UInt32) -> TestPayload { appending((0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }) }
    func u64(_ value: UInt64) -> TestPayload { appending((0..<8).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }) }
    func data(_ value: [UInt8]) -> TestPayload { u32(UInt32(value.count)).appending(value) }
    func string(_ value: String) -> TestPayload { data(Array(value.utf8)) }
    func optionalData(_ value: [UInt8]?) -> TestPayload { value.map { bool(true).data($0) } ?? bool(false) }

    private func appending(_ more: [UInt8]) -> TestPayload { TestPayload(bytes: bytes + more) }
}

/// Reads fields in order; throws when the payload is too short.
struct TestReader {
    private let bytes: [UInt8]
    private var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var u32OrZero: UInt32 {
        var copy = self
        return (try? copy.u32()) ?? 0
    }
    var isAtEnd: Bool { offset == bytes.count }

    mutating func take(_ count: Int) throws -> [UInt8] {
        guard bytes.count - offset >= count else { throw TestWorker.Failure(description: "payload too short") }
        defer { offset += count }
        return Array(bytes[offset..<(offset + count)])
    }

    mutating func u8() throws -> UInt8 { try take(1)[0] }
    mutating func bool() throws -> Bool { try u8() != 0 }
    mutating func u32() throws -> UInt32 { try take(4).reversed().reduce(0) { $0 << 8 | UInt32($1) } }
    mutating func i32() throws -> Int32 { Int32(bitPattern: try u32()) }
    mutating func u64() throws -> UInt64 { try take(8).reversed().reduce(0) { $0 << 8 | UInt64($1) } }
    mutating func data() throws -> [UInt8] { try take(Int(try u32())) }
    mutating func string() throws -> String { String(decoding: try data(), as: UTF8.self) }
    mutating func optionalString() throws -> String? { try bool() ? try string() : nil }
}

/// The host's frames, as apphost_wire.h lays them out.
enum HostFrame {
    static func load(
        path: String, guestsDirectory: String = "/guests", hostName: String = "apphost", hostVersion: String = "9.8.7"
    ) -> TestFrame {
        TestFrame(
            type: UInt8(APPHOST_WIRE_LOAD.rawValue),
            payload: TestPayload().string(path).string(guestsDirectory).string(hostName).string(hostVersion).bytes)
    }

    static func start(dataDirectory: String) -> TestFrame {
        TestFrame(type: UInt8(APPHOST_WIRE_START.rawValue), payload: TestPayload().string(dataDirectory).bytes)
    }

    static let stop = TestFrame(type: UInt8(APPHOST_WIRE_STOP.rawValue), payload: [])

    /// CALL for `message`; the raw values, when given, replace the fields they name, to make
    /// malformed frames.
    static func call(
        sequence: UInt64, _ message: GuestMessage, rawAppState: UInt8? = nil, rawHasSceneState: UInt8? = nil,
        rawKind: UInt8? = nil, rawCallback: UInt8? = nil
    ) -> TestFrame {
        var payload = TestPayload().u64(sequence).u8(rawAppState ?? UInt8(message.appState.rawValue))
            .u8(rawHasSceneState ?? (message.sceneState == nil ? 0 : 1)).u8(UInt8(message.sceneState?.rawValue ?? 0))
        switch message.call {
        case .didFinishLaunching:
            payload = payload.u8(rawKind ?? UInt8(APPHOST_WIRE_CALL_DID_FINISH_LAUNCHING.rawValue))
        case .willTerminate:
            payload = payload.u8(rawKind ?? UInt8(APPHOST_WIRE_CALL_WILL_TERMINATE.rawValue))
        case .didReceiveMemoryWarning:
            payload = payload.u8(rawKind ?? UInt8(APPHOST_WIRE_CALL_MEMORY_WARNING.rawValue))
        case .sceneWillConnect(let connection):
            payload = payload.u8(rawKind ?? UInt8(APPHOST_WIRE_CALL_WILL_CONNECT.rawValue)).u64(connection.scene)
                .string(connection.sessionID).u8(UInt8(connection.role.rawValue))
                .u8(UInt8(connection.initialState.rawValue)).optionalData(connection.restorationData.map { Array($0) })
        case .scene(let handle, let callback):
            payload = payload.u8(rawKind ?? UInt8(APPHOST_WIRE_CALL_SCENE_CALLBACK.rawValue)).u64(handle)
                .u8(rawCallback ?? sceneCallbackCode(callback))
        case .expireTask(let task):
            payload = payload.u8(rawKind ?? UInt8(APPHOST_WIRE_CALL_EXPIRE_TASK.rawValue)).u64(task)
        case .fireTimer(let timer):
            payload = payload.u8(rawKind ?? UInt8(APPHOST_WIRE_CALL_FIRE_TIMER.rawValue)).u64(timer)
        case .runWork(let work):
            payload = payload.u8(rawKind ?? UInt8(APPHOST_WIRE_CALL_RUN_WORK.rawValue)).u64(work)
        case .backgroundTime(let remaining):
            payload = payload.u8(rawKind ?? UInt8(APPHOST_WIRE_CALL_BACKGROUND_TIME.rawValue))
            if let remaining {
                payload = payload.bool(true).u64(nanoseconds(remaining))
            } else {
                payload = payload.bool(false)
            }
        case .sceneSize(let handle, let size):
            payload = payload.u8(rawKind ?? UInt8(APPHOST_WIRE_CALL_SCENE_SIZE.rawValue)).u64(handle).u32(size.width)
                .u32(size.height).u8(UInt8(size.sizeClass.rawValue))
        case .performAction(let handle, let name, let data, let activation, let token):
            payload = payload.u8(rawKind ?? UInt8(APPHOST_WIRE_CALL_PERFORM_ACTION.rawValue)).u64(handle).string(name)
                .data(Array(data)).u64(nanoseconds(activation)).u64(token)
        case .shouldDismissModal(let handle, let modal):
            payload = payload.u8(rawKind ?? UInt8(APPHOST_WIRE_CALL_SHOULD_DISMISS_MODAL.rawValue)).u64(handle)
                .u64(modal)
        case .didDismissModal(let handle, let modal):
            payload = payload.u8(rawKind ?? UInt8(APPHOST_WIRE_CALL_DID_DISMISS_MODAL.rawValue)).u64(handle).u64(modal)
        case .didDiscard(let session):
            payload = payload.u8(rawKind ?? UInt8(APPHOST_WIRE_CALL_DID_DISCARD.rawValue)).string(session)
        case .notificationLimit(let count, let window):
            payload = payload.u8(rawKind ?? UInt8(APPHOST_WIRE_CALL_NOTIFICATION_LIMIT.rawValue)).u32(UInt32(count))
                .u64(nanoseconds(window))
        case .saveStatus(let handle, let failed):
            payload = payload.u8(rawKind ?? UInt8(APPHOST_WIRE_CALL_SAVE_STATUS.rawValue)).u64(handle).bool(failed)
        case .saveConfirmation(let id, let stored):
            payload = payload.u8(rawKind ?? UInt8(APPHOST_WIRE_CALL_SAVE_CONFIRMATION.rawValue)).u64(id).bool(!stored)
        case .sceneRequestRefused(let request, let reason):
            payload = payload.u8(rawKind ?? UInt8(APPHOST_WIRE_CALL_SCENE_REQUEST_REFUSED.rawValue)).u64(request)
                .u32(reason.rawValue)
        case .audioRenderDemoted(let reason):
            payload = payload.u8(rawKind ?? UInt8(APPHOST_WIRE_CALL_AUDIO_RENDER_DEMOTED.rawValue)).u32(reason.rawValue)
        case .audioSetup(let format, let route):
            payload = payload.u8(rawKind ?? UInt8(APPHOST_WIRE_CALL_AUDIO_SETUP.rawValue))
                .u32(UInt32(format.sampleRate)).u32(UInt32(format.periodFrames)).u32(UInt32(format.channelCount))
                .u8(code(AudioABI.value(of: route.output))).u8(code(AudioABI.value(of: route.input)))
        case .audioActivationFinished(let request, let refusal):
            payload = payload.u8(rawKind ?? UInt8(APPHOST_WIRE_CALL_AUDIO_ACTIVATION_FINISHED.rawValue)).u64(request)
                .u8(code(AudioABI.activationResult(refusal)))
        case .audioInterruptionBegan(let reason):
            payload = payload.u8(rawKind ?? UInt8(APPHOST_WIRE_CALL_AUDIO_INTERRUPTION_BEGAN.rawValue))
                .u8(code(AudioABI.value(of: reason)))
        case .audioInterruptionEnded(let reason, let shouldResume):
            payload = payload.u8(rawKind ?? UInt8(APPHOST_WIRE_CALL_AUDIO_INTERRUPTION_ENDED.rawValue))
                .u8(code(AudioABI.value(of: reason))).bool(shouldResume)
        case .audioRouteChanged(let reason, let previous, let current):
            payload = payload.u8(rawKind ?? UInt8(APPHOST_WIRE_CALL_AUDIO_ROUTE_CHANGED.rawValue))
                .u8(code(AudioABI.value(of: reason)))
                .u8(code(AudioABI.value(of: previous.output))).u8(code(AudioABI.value(of: previous.input)))
                .u8(code(AudioABI.value(of: current.output))).u8(code(AudioABI.value(of: current.input)))
        case .secondaryAudioHint(let silence):
            payload = payload.u8(rawKind ?? UInt8(APPHOST_WIRE_CALL_SECONDARY_AUDIO_HINT.rawValue)).bool(silence)
        case .mediaServicesReset:
            payload = payload.u8(rawKind ?? UInt8(APPHOST_WIRE_CALL_MEDIA_SERVICES_RESET.rawValue))
        case .audioStream:
            // The indexes of its two descriptors, which a test frame cannot carry.
            payload = payload.u8(rawKind ?? UInt8(APPHOST_WIRE_CALL_AUDIO_STREAM.rawValue)).u8(0).u8(1)
        case .action(_, let index, let arguments):
            payload = payload.u8(rawKind ?? UInt8(APPHOST_WIRE_CALL_ACTION.rawValue)).u32(UInt32(index))
                .u8(UInt8(arguments.count))
            for argument in arguments { payload = value(argument, to: payload) }
        }
        return TestFrame(type: UInt8(APPHOST_WIRE_CALL.rawValue), payload: payload.bytes)
    }

    /// A "value" as apphost_wire.h lays it out: its type code, then the value.
    static func value(_ value: ActionValue, to payload: TestPayload) -> TestPayload {
        let code = payload.u8(value.type == .bytes ? UInt8(ascii: "a") : value.type.rawValue.utf8.first!)
        switch value {
        case .bool(let flag): return code.bool(flag)
        case .uint8(let number): return code.u64(UInt64(number))
        case .int16(let number): return code.u64(UInt64(bitPattern: Int64(number)))
        case .uint16(let number): return code.u64(UInt64(number))
        case .int32(let number): return code.u64(UInt64(bitPattern: Int64(number)))
        case .uint32(let number): return code.u64(UInt64(number))
        case .int64(let number): return code.u64(UInt64(bitPattern: number))
        case .uint64(let number): return code.u64(number)
        case .double(let number): return code.u64(number.bitPattern)
        case .string(let text): return code.data(Array(text.utf8))
        case .bytes(let data): return code.data(Array(data))
        }
    }

    private static func code(_ value: Int32) -> UInt8 { UInt8(value) }

    private static func nanoseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        return UInt64(seconds) * 1_000_000_000 + UInt64(attoseconds / 1_000_000_000)
    }

    private static func sceneCallbackCode(_ callback: SceneCallback) -> UInt8 {
        let code =
            switch callback {
            case .willEnterForeground: APPHOST_WIRE_SCENE_WILL_ENTER_FOREGROUND
            case .didBecomeActive: APPHOST_WIRE_SCENE_DID_BECOME_ACTIVE
            case .willResignActive: APPHOST_WIRE_SCENE_WILL_RESIGN_ACTIVE
            case .didEnterBackground: APPHOST_WIRE_SCENE_DID_ENTER_BACKGROUND
            case .didDisconnect: APPHOST_WIRE_SCENE_DID_DISCONNECT
            }
        return UInt8(code.rawValue)
    }
}

/// The worker's frames, decoded strictly: a payload with bytes left over fails the test.
enum WorkerFrame: Equatable {
    case hello(version: UInt32, pid: UInt32)
    case loaded(GuestRuntimeCTests.RawDescriptor)
    case loadFailed(reason: UInt8, detail: String)
    case started(outcome: UInt8, status: Int32)
    case reply(sequence: UInt64, status: Int32)
    case log(UInt8, String)
    /// With the id of the confirmation it asked for (ABI 1.7, wire 10); 0 for none.
    case saveState(scene: UInt64, [UInt8], confirmation: UInt64 = 0)
    case stopped
    case taskBegan(UInt64, name: String)
    case taskEnded(UInt64)
    case timerScheduled(UInt64, delay: UInt64, interval: UInt64)
    case timerCancelled(UInt64)
    case workSubmitted(UInt64)
    case sceneRequested(activation: UInt64, from: UInt64, role: UInt8, style: UInt8, state: [UInt8], request: UInt64)
    case sessionActivationRequested(String, style: UInt8)
    /// The f64's bits, as the wire carries them.
    case loadingProgress(UInt64, bits: UInt64)
    case modalPresented(UInt64, modal: UInt64, style: UInt8, title: String)
    case modalDismissed(UInt64, modal: UInt64)
    case notificationPosted(title: String, body: String)

    var isReply: Bool { if case .reply = self { true } else { false } }
    var isTaskBegan: Bool { if case .taskBegan = self { true } else { false } }
    var isStarted: Bool { if case .started = self { true } else { false } }

    init(type: UInt8, payload: [UInt8]) throws {
        var reader = TestReader(payload)
        switch UInt32(type) {
        case APPHOST_WIRE_HELLO.rawValue:
            self = .hello(version: try reader.u32(), pid: try reader.u32())
        case APPHOST_WIRE_LOADED.rawValue:
            self = .loaded(try Self.descriptor(&reader))
        case APPHOST_WIRE_LOAD_FAILED.rawValue:
            self = .loadFailed(reason: try reader.u8(), detail: try reader.string())
        case APPHOST_WIRE_STARTED.rawValue:
            self = .started(outcome: try reader.u8(), status: try reader.i32())
        case APPHOST_WIRE_REPLY.rawValue:
            self = .reply(sequence: try reader.u64(), status: try reader.i32())
        case APPHOST_WIRE_LOG.rawValue:
            self = .log(try reader.u8(), try reader.string())
        case APPHOST_WIRE_SAVE_STATE.rawValue:
            self = .saveState(scene: try reader.u64(), try reader.data(), confirmation: try reader.u64())
        case APPHOST_WIRE_STOPPED.rawValue:
            self = .stopped
        case APPHOST_WIRE_TASK_BEGAN.rawValue:
            self = .taskBegan(try reader.u64(), name: try reader.string())
        case APPHOST_WIRE_TASK_ENDED.rawValue:
            self = .taskEnded(try reader.u64())
        case APPHOST_WIRE_TIMER_SCHEDULED.rawValue:
            self = .timerScheduled(try reader.u64(), delay: try reader.u64(), interval: try reader.u64())
        case APPHOST_WIRE_TIMER_CANCELLED.rawValue:
            self = .timerCancelled(try reader.u64())
        case APPHOST_WIRE_WORK_SUBMITTED.rawValue:
            self = .workSubmitted(try reader.u64())
        case APPHOST_WIRE_SCENE_REQUESTED.rawValue:
            self = .sceneRequested(
                activation: try reader.u64(), from: try reader.u64(), role: try reader.u8(), style: try reader.u8(),
                state: try reader.data(), request: try reader.u64())
        case APPHOST_WIRE_SESSION_ACTIVATION_REQUESTED.rawValue:
            self = .sessionActivationRequested(try reader.string(), style: try reader.u8())
        case APPHOST_WIRE_LOADING_PROGRESS.rawValue:
            self = .loadingProgress(try reader.u64(), bits: try reader.u64())
        case APPHOST_WIRE_MODAL_PRESENTED.rawValue:
            self = .modalPresented(
                try reader.u64(), modal: try reader.u64(), style: try reader.u8(), title: try reader.string())
        case APPHOST_WIRE_MODAL_DISMISSED.rawValue:
            self = .modalDismissed(try reader.u64(), modal: try reader.u64())
        case APPHOST_WIRE_NOTIFICATION_POSTED.rawValue:
            self = .notificationPosted(title: try reader.string(), body: try reader.string())
        default:
            throw TestWorker.Failure(description: "unknown worker frame type \(type)")
        }
        guard reader.isAtEnd else { throw TestWorker.Failure(description: "bytes left over in frame type \(type)") }
    }

    private static func descriptor(_ reader: inout TestReader) throws -> GuestRuntimeCTests.RawDescriptor {
        let abi = [try reader.u32(), try reader.u32(), try reader.u32()]
        let hasDescriptor = try reader.bool()
        let structSize = try reader.u32()
        let strings = try (0..<5).map { _ in try reader.optionalString() }
        var raw = GuestRuntimeCTests.RawDescriptor(
            abi: abi, hasDescriptor: hasDescriptor, structSize: structSize, id: strings[0], name: strings[1],
            version: strings[2], vendor: strings[3], description: strings[4], capabilities: try reader.u64(),
            hasInit: try reader.bool(), hasDeinit: try reader.bool(), hasQuery: try reader.bool())
        if try reader.bool() {
            // struct_size, action_size, id, count, then the actions read.
            _ = (try reader.u32(), try reader.u32(), try reader.optionalString(), try reader.u32())
            raw.actions = try (0..<reader.u32()).map { _ in
                let texts = try (0..<4).map { _ in try reader.optionalString() ?? "NULL" }
                _ = (try reader.u64(), try reader.bool())
                return "\(texts[0])(\(texts[1]))\(texts[2])"
            }
        }
        return raw
    }
}
