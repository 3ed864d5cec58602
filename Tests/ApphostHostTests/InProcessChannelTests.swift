import ApphostModel
import ApphostVocabulary
import CApphost
import Dispatch
import Foundation
import Synchronization
import XCTest

@testable import ApphostChannels

/// The in-process opener and channel on a real guest, Plugins/Fixtures/observable_guest.c.
final class InProcessChannelTests: XCTestCase {
    private static let guestID = "org.apphost.fixtures.observable"
    private var hostQueue: DispatchQueue!
    private var guestsDirectory: String!
    private var events: EventLog!
    private var opened: [(channel: any GuestChannel, guest: ObservableGuest)] = []
    /// Channels to other fixtures, closed in tearDown.
    private var others: [any GuestChannel] = []

    override func setUp() {
        hostQueue = DispatchQueue(label: "apphost.test.host")
        hostQueue.setSpecific(key: FixtureObserver.queueKey, value: "host")
        guestsDirectory = GuestFixtures.path("guests-\(UUID().uuidString)")
        events = EventLog()
        FixtureObserver.reset()
    }

    override func tearDown() {
        for (channel, guest) in opened {
            close(channel)
            guest.release()
        }
        opened = []
        for channel in others { close(channel) }
        others = []
        FixtureObserver.reset()
    }

    // MARK: Order and queues

    // CONTRACT A2 S2 S3 S6: callbacks run in the order sent, on the guest's main queue, never on the
    // host queue; replies come back on the host queue in the same order; the guest sees the app
    // and scene states of each message while its callback runs.
    func testCallbacksRunInOrderOnGuestMainQueueAndRepliesInOrderOnHostQueue() throws {
        let (channel, _) = try open()
        let messages = TestMessages.sceneLifecycle
        let replies = sendAll(messages, to: channel)
        XCTAssertEqual(replies.map(\.index), Array(messages.indices), "FIFO")
        XCTAssertEqual(replies.map(\.reply), Array(repeating: .success(0), count: messages.count))
        XCTAssertTrue(replies.allSatisfy { $0.queue == "host" })

        let seen = FixtureObserver.observations
        XCTAssertEqual(seen.map(\.event), messages.map(\.call.callbackName))
        XCTAssertEqual(seen.map(\.queue), Array(repeating: "guest", count: messages.count))
        XCTAssertEqual(seen.map(\.appState), messages.map(\.appState.rawValue))
        assertSceneStatesSeen(seen, during: messages)

        settle(channel)
        XCTAssertEqual(
            events.logLines,
            messages.map { "callback \($0.call.callbackName)" + ($0.call.scene.map { " scene=\($0)" } ?? "") })
        XCTAssertTrue(events.allOnHostQueue)
    }

    // CONTRACT A2: did_finish_launching's status is the reply.
    func testLaunchStatusIsTheReply() throws {
        let (channel, guest) = try open()
        guest.setLaunchStatus(Int32(APPHOST_ERROR_GUEST_FAILED.rawValue))
        XCTAssertEqual(send(GuestMessage(call: .didFinishLaunching, appState: .inactive), to: channel), .success(7))
    }

    // CONTRACT S12 S8: will_connect gets the session id and the saved bytes (none, empty, some),
    // valid during the call.
    func testWillConnectGivesSessionAndRestorationData() throws {
        let (channel, _) = try open()
        _ = sendAll(
            [
                TestMessages.connect(1, restoration: Data("counter=3".utf8)), TestMessages.connect(2, restoration: nil),
                TestMessages.connect(3, restoration: Data()),
            ],
            to: channel)
        let connections = FixtureObserver.observations.compactMap(\.connection)
        XCTAssertEqual(
            connections,
            [
                ObservedConnection(
                    size: UInt32(MemoryLayout<apphost_scene_connection_t>.size), scene: 1, sessionID: "session-1",
                    role: SceneRole.primary.rawValue, initialState: SceneState.foregroundInactive.rawValue,
                    restoration: Array("counter=3".utf8)),
                ObservedConnection(
                    size: UInt32(MemoryLayout<apphost_scene_connection_t>.size), scene: 2, sessionID: "session-2",
                    role: SceneRole.primary.rawValue, initialState: SceneState.foregroundInactive.rawValue,
                    restoration: nil),
                ObservedConnection(
                    size: UInt32(MemoryLayout<apphost_scene_connection_t>.size), scene: 3, sessionID: "session-3",
                    role: SceneRole.primary.rawValue, initialState: SceneState.foregroundInactive.rawValue,
                    restoration: []),
            ])
    }

    // MARK: Saving state

    // CONTRACT S12 A3: a state saved in did_enter_background reaches the host before that callback's
    // reply; scenes stay valid during will_terminate and not after it.
    func testSaveSceneStateInCallbacks() throws {
        let (channel, guest) = try open()
        let host = try XCTUnwrap(guest.host())
        let statuses = Mutex<[String: Int32]>([:])
        let hostAddress = UInt(bitPattern: host)
        FixtureObserver.setAction { event, _ in
            guard event == "did_enter_background" || event == "will_terminate",
                let host = UnsafePointer<apphost_host_t>(bitPattern: hostAddress)
            else { return }
            let status = Array(event.utf8).withUnsafeBytes {
                host.pointee.save_scene_state(host, 1, $0.baseAddress, $0.count)
            }
            statuses.withLock { $0[event] = status }
        }
        _ = sendAll(
            [
                TestMessages.connect(1),
                TestMessages.scene(1, .didEnterBackground, app: .background, state: .background),
            ], to: channel)
        let savedBeforeReply = Mutex(false)
        let done = DispatchSemaphore(value: 0)
        channel.send(TestMessages.scene(1, .didEnterBackground, app: .background, state: .background)) { [events] _ in
            savedBeforeReply.withLock { $0 = events!.saves.count == 2 }
            done.signal()
        }
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        XCTAssertTrue(savedBeforeReply.withLock { $0 }, "the save is delivered before the reply")

        XCTAssertEqual(send(GuestMessage(call: .willTerminate, appState: .background), to: channel), .success(0))
        XCTAssertEqual(statuses.withLock { $0 }, ["did_enter_background": 0, "will_terminate": 0])
        XCTAssertEqual(
            TestMessages.save(host, scene: 1, [1]), StatusCode.invalidHandle, "handles end with will_terminate")
        settle(channel)
        XCTAssertEqual(
            events.saves,
            [
                .init(scene: 1, bytes: Array("did_enter_background".utf8)),
                .init(scene: 1, bytes: Array("did_enter_background".utf8)),
                .init(scene: 1, bytes: Array("will_terminate".utf8)),
            ])
    }

    // CONTRACT S12 X3: save_scene_state from any thread: copies the bytes, refuses NULL bytes with a
    // length, too much data, unknown and disconnected handles, and a NULL host.
    func testSaveSceneStateFromAnotherThreadAndItsErrors() throws {
        let (channel, guest) = try open()
        let host = try XCTUnwrap(guest.host())
        _ = sendAll([TestMessages.connect(1)], to: channel)

        var buffer: [UInt8] = [1, 2, 3]
        XCTAssertEqual(TestMessages.save(host, scene: 1, buffer), StatusCode.ok)
        buffer[0] = 9  // the host copied the bytes before returning
        XCTAssertEqual(
            host.pointee.save_scene_state(host, 1, nil, 0), StatusCode.ok, "NULL with 0 saves an empty state")
        XCTAssertEqual(host.pointee.save_scene_state(host, 1, nil, 4), StatusCode.invalidArgument)
        let maximum = Int(APPHOST_SCENE_STATE_MAX_BYTES)
        XCTAssertEqual(TestMessages.save(host, scene: 1, [UInt8](repeating: 7, count: maximum)), StatusCode.ok)
        XCTAssertEqual(
            TestMessages.save(host, scene: 1, [UInt8](repeating: 7, count: maximum + 1)), StatusCode.tooLarge)
        XCTAssertEqual(TestMessages.save(host, scene: 42, [1]), StatusCode.invalidHandle)
        XCTAssertEqual(TestMessages.save(host, scene: 0, [1]), StatusCode.invalidHandle)
        XCTAssertEqual(host.pointee.save_scene_state(nil, 1, buffer, 1), StatusCode.invalidArgument)

        _ = sendAll([TestMessages.scene(1, .didDisconnect, app: .background, state: .unattached)], to: channel)
        XCTAssertEqual(
            TestMessages.save(host, scene: 1, [1]), StatusCode.invalidHandle, "a disconnected scene's handle is stale")

        settle(channel)
        XCTAssertEqual(
            events.saves,
            [
                .init(scene: 1, bytes: [1, 2, 3]), .init(scene: 1, bytes: []),
                .init(scene: 1, bytes: [UInt8](repeating: 7, count: maximum)),
            ])
    }

    // MARK: Host functions

    // CONTRACT X3: log copies the message, refuses NULL and bad levels, cuts long messages at a
    // character boundary and repairs invalid UTF-8.
    func testLog() throws {
        let (channel, guest) = try open()
        let host = try XCTUnwrap(guest.host())
        for level in GuestLogLevel.allCases {
            XCTAssertEqual(host.pointee.log(host, level.rawValue, "at \(level)"), StatusCode.ok)
        }
        XCTAssertEqual(host.pointee.log(nil, GuestLogLevel.info.rawValue, "no host"), StatusCode.invalidArgument)
        XCTAssertEqual(host.pointee.log(host, GuestLogLevel.info.rawValue, nil), StatusCode.invalidArgument)
        XCTAssertEqual(host.pointee.log(host, 5, "level 5"), StatusCode.invalidArgument)
        XCTAssertEqual(host.pointee.log(host, -1, "level -1"), StatusCode.invalidArgument)
        let limit = Int(APPHOST_LOG_MESSAGE_MAX_BYTES)
        XCTAssertEqual(host.pointee.log(host, 2, String(repeating: "x", count: limit + 1000)), StatusCode.ok)
        XCTAssertEqual(host.pointee.log(host, 2, String(repeating: "a", count: limit - 1) + "é"), StatusCode.ok)
        let invalid: [CChar] = [0x61, -1, 0x62, 0]  // "a\xffb"
        XCTAssertEqual(host.pointee.log(host, 2, invalid), StatusCode.ok)

        settle(channel)
        let logs = events.logs
        XCTAssertEqual(logs.prefix(5).map(\.level), GuestLogLevel.allCases)
        XCTAssertEqual(logs.prefix(5).map(\.message), GuestLogLevel.allCases.map { "at \($0)" })
        XCTAssertEqual(logs.count, 8, "refused messages are not logged")
        XCTAssertEqual(logs[5].message, String(repeating: "x", count: limit))
        XCTAssertEqual(logs[6].message, String(repeating: "a", count: limit - 1), "never half a character")
        XCTAssertEqual(logs[7].message, "a\u{FFFD}b")
        XCTAssertTrue(events.allOnHostQueue)
    }

    // CONTRACT X3: the interface's members; data_directory, app_state, scene_state and
    // get_extension with NULL and unknown arguments.
    func testHostInterfaceMembers() throws {
        let (channel, guest) = try open()
        let host = try XCTUnwrap(guest.host())
        XCTAssertEqual(host.pointee.struct_size, UInt32(MemoryLayout<apphost_host_t>.size))
        XCTAssertEqual(host.pointee.abi_version.major, 1)
        XCTAssertEqual(host.pointee.abi_version.minor, UInt32(APPHOST_ABI_VERSION_MINOR), "version.h's")
        XCTAssertEqual(String(cString: host.pointee.name), "apphost")
        XCTAssertFalse(String(cString: host.pointee.version).isEmpty)

        let directory = try XCTUnwrap(host.pointee.data_directory(host))
        let expected = URL(fileURLWithPath: guestsDirectory).appendingPathComponent(Self.guestID).standardizedFileURL
            .path
        XCTAssertEqual(String(cString: directory), expected)
        XCTAssertEqual(host.pointee.data_directory(host), directory, "one string, owned by the host")
        var status = stat()
        XCTAssertEqual(stat(directory, &status), 0)
        XCTAssertEqual(status.st_mode & S_IFMT, S_IFDIR)
        XCTAssertEqual(status.st_mode & 0o777, 0o700)
        XCTAssertNil(host.pointee.data_directory(nil))

        // app_state has no error channel: an unknown host gets -APPHOST_ERROR_INVALID_ARGUMENT,
        // never a valid app state (1 is INACTIVE).
        XCTAssertEqual(host.pointee.app_state(nil), -StatusCode.invalidArgument)
        _ = sendAll([TestMessages.connect(1)], to: channel)
        // CONTRACT X3: the [main-queue] functions answer only the channel's queue while it delivers
        // a callback (the fixtures check the values there); this test's thread is another one.
        XCTAssertEqual(host.pointee.app_state(host), -StatusCode.wrongThread)
        var state: Int32 = -1
        XCTAssertEqual(host.pointee.scene_state(host, 1, &state), StatusCode.wrongThread)
        XCTAssertEqual(state, -1, "nothing written")
        XCTAssertEqual(host.pointee.scene_state(host, 1, nil), StatusCode.invalidArgument)
        XCTAssertEqual(host.pointee.scene_state(host, 0, &state), StatusCode.invalidHandle)
        XCTAssertEqual(host.pointee.scene_state(nil, 1, &state), StatusCode.invalidArgument)

        // The extensions are the C runtime's: the same table in process as in a worker.
        XCTAssertNotNil(host.pointee.get_extension(host, "apphost.background/1"))
        XCTAssertNotNil(host.pointee.get_extension(host, "apphost.scenes/1"))
        XCTAssertNil(host.pointee.get_extension(host, "apphost.no-such-extension/1"))
        XCTAssertNil(host.pointee.get_extension(host, nil))
        XCTAssertNil(host.pointee.get_extension(nil, "apphost.background/1"))
    }

    // CONTRACT X3: a guest thread logs while callbacks run; every line arrives, in its order.
    func testGuestThreadLogsConcurrentlyWithCallbacks() throws {
        let (channel, guest) = try open()
        let count = 2000
        XCTAssertEqual(guest.startLogger(Int32(count)), 0)
        let replies = sendAll(
            Array(repeating: GuestMessage(call: .didReceiveMemoryWarning, appState: .background), count: 200),
            to: channel)
        XCTAssertEqual(guest.joinLogger(), 0)
        settle(channel)
        XCTAssertEqual(replies.count, 200)
        XCTAssertEqual(events.logLines.filter { $0.hasPrefix("logger ") }, (0..<count).map { "logger \($0)" })
        XCTAssertEqual(events.logLines.filter { $0.hasPrefix("callback ") }.count, 200)
        XCTAssertTrue(events.allOnHostQueue)
    }

    // MARK: The scenes extension

    // CONTRACT S9 N1 N2 N3: a request_scene the guest makes inside perform_action reaches the host
    // as .sceneRequested, before the action's reply; a later one, without a new action, gets
    // NO_ACTIVATION and reaches nobody. The guest's other scenes requests arrive as their events.
    func testRequestSceneInsidePerformActionReachesTheHost() throws {
        let path = try ScenesFixture.library(name: "scenes-in-process")
        let result = try openResult(path)
        let channel = try XCTUnwrap(result.success?.channel, result.failure?.description ?? "")
        others.append(channel)
        XCTAssertEqual(send(scenesConnect(1, ""), to: channel), .success(0))

        let eventsAtReply = Mutex<[GuestEvent]>([])
        let replied = DispatchSemaphore(value: 0)
        let action = GuestMessage(
            call: .performAction(1, name: "request here 1 1 hello", payload: Data(), activation: .seconds(5), token: 7),
            appState: .active, sceneState: .foregroundActive)
        channel.send(action) { [events] reply in
            XCTAssertEqual(reply, .success(0))
            eventsAtReply.withLock { $0 = events!.events }
            replied.signal()
        }
        XCTAssertEqual(replied.wait(timeout: .now() + 10), .success)
        let requested = GuestEvent.sceneRequested(
            activation: 7, from: 1, role: .auxiliary, style: .standard, state: Data("hello".utf8), request: 1)
        XCTAssertTrue(eventsAtReply.withLock { $0 }.contains(requested), "before the reply")

        XCTAssertEqual(send(scenesConnect(3, "keep"), to: channel), .success(0))
        XCTAssertEqual(
            send(
                scenesConnect(
                    2,
                    "request 1 0 0 again;progress 1 0.5;present 1 1 Sheet;dismiss 1 1;notify Hi body;"
                        + "activate keep 2"), to: channel),
            .success(0))
        settle(channel)
        XCTAssertEqual(
            events.events.filter { if case .log = $0 { false } else if case .identified = $0 { false } else { true } },
            [
                requested, .loadingProgress(1, .fraction(0.5)),
                .modalPresented(1, 1, style: .fullScreen, title: "Sheet"),
                .modalDismissed(1, 1), .notificationPosted(title: "Hi", body: "body"),
                .sessionActivationRequested(sessionID: "keep", style: .prominent),
            ])
        XCTAssertTrue(events.logLines.contains("request = no_activation"), "\(events.logLines)")
        XCTAssertTrue(events.allOnHostQueue)
    }

    // MARK: Closing and loading twice

    // CONTRACT A3 X3: close runs after what was sent before it, calls deinit once, and later sends
    // fail with .closed; the withdrawn host pointer gets error codes.
    func testCloseCallsDeinitOnceAfterPendingMessagesAndLaterSendsFail() throws {
        let (channel, guest) = try open()
        let host = try XCTUnwrap(guest.host())
        // The struct itself is freed after deinit; a guest may still hold its functions.
        let log = try XCTUnwrap(host.pointee.log)
        let save = try XCTUnwrap(host.pointee.save_scene_state)
        let order = Mutex<[String]>([])
        let done = DispatchSemaphore(value: 0)
        channel.send(GuestMessage(call: .didReceiveMemoryWarning, appState: .background)) { reply in
            order.withLock { $0.append("reply \(reply)") }
        }
        channel.close { order.withLock { $0.append("closed on \(FixtureObserver.currentQueue ?? "?")") } }
        channel.close { order.withLock { $0.append("closed again") } }
        channel.send(GuestMessage(call: .didReceiveMemoryWarning, appState: .background)) { reply in
            order.withLock { $0.append("reply \(reply)") }
            done.signal()
        }
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(
            order.withLock { $0 },
            ["reply success(0)", "closed on host", "closed again", "reply failure(channel closed)"])
        XCTAssertEqual(FixtureObserver.observations.map(\.event), ["did_receive_memory_warning", "deinit"])
        XCTAssertNil(guest.host(), "the guest's deinit ran")
        XCTAssertEqual(log(host, 2, "after deinit"), StatusCode.invalidArgument, "a stale host pointer")
        XCTAssertEqual(save(host, 1, nil, 0), StatusCode.invalidArgument, "a stale host pointer")
    }

    // CONTRACT X1: a guest already loaded, from the same file, a copy or a link, is refused until
    // its channel closes.
    func testSecondLoadOfTheSameGuestIsRefused() throws {
        let (channel, guest) = try open()
        let path = try GuestFixtures.library("observable_guest.c")
        let copy = try GuestFixtures.copy(of: path, as: "observable-copy.so") { _ in }
        let link = GuestFixtures.path("observable-link-\(UUID().uuidString).so")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: path)
        for second in [path, copy, link] {
            let failure = try XCTUnwrap(openResult(second).failure, second)
            XCTAssertEqual(failure, LoadError(path: second, cause: .alreadyLoaded(Self.guestID)))
            XCTAssertEqual(failure.description, "\(second): a guest with id \(Self.guestID) is already loaded")
        }
        close(channel)
        guest.release()
        opened = []
        _ = try open()
    }

    // MARK: Harness

    private func open() throws -> (any GuestChannel, ObservableGuest) {
        let path = try GuestFixtures.library("observable_guest.c")
        let result = try openResult(path)
        let openedGuest = try XCTUnwrap(result.success, result.failure?.description ?? "")
        XCTAssertEqual(openedGuest.descriptor.id, Self.guestID)
        XCTAssertEqual(openedGuest.descriptor.version, "2.3.4")
        XCTAssertEqual(openedGuest.descriptor.capabilities, .multipleScenes)
        let channel = try XCTUnwrap(openedGuest.channel as? InProcessChannel)
        channel.guest.mainQueue.setSpecific(key: FixtureObserver.queueKey, value: "guest")
        let guest = try ObservableGuest(path: path)
        FixtureObserver.watch(guest)
        opened.append((channel, guest))
        return (channel, guest)
    }

    private func openResult(_ path: String) throws -> OpenResult {
        let result = Mutex<OpenResult?>(nil)
        let done = DispatchSemaphore(value: 0)
        InProcessOpener().open(
            path: path, guestsDirectory: guestsDirectory, hostQueue: hostQueue,
            onEvent: { [events] event in events!.append(event) },
            completion: { opened in
                XCTAssertEqual(FixtureObserver.currentQueue, "host")
                result.withLock { $0 = OpenResult(opened) }
                done.signal()
            })
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success, "open completes")
        return try XCTUnwrap(result.withLock { $0 })
    }

    private func close(_ channel: any GuestChannel) {
        let done = DispatchSemaphore(value: 0)
        channel.close { done.signal() }
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success, "close completes")
    }

    private struct Reply: Sendable {
        var index: Int
        var reply: GuestReply
        var queue: String?
    }

    /// Sends every message at once, then waits for all replies, in the order they arrived.
    private func sendAll(_ messages: [GuestMessage], to channel: any GuestChannel) -> [Reply] {
        let replies = Mutex<[Reply]>([])
        let group = DispatchGroup()
        for (index, message) in messages.enumerated() {
            group.enter()
            channel.send(message) { reply in
                replies.withLock { $0.append(Reply(index: index, reply: reply, queue: FixtureObserver.currentQueue)) }
                group.leave()
            }
        }
        XCTAssertEqual(group.wait(timeout: .now() + 10), .success, "every reply arrives")
        return replies.withLock { $0 }
    }

    private func send(_ message: GuestMessage, to channel: any GuestChannel) -> GuestReply? {
        sendAll([message], to: channel).first?.reply
    }

    /// A foreground scene connecting, whose session id is commands for the scenes fixture.
    private func scenesConnect(_ scene: SceneHandle, _ commands: String) -> GuestMessage {
        GuestMessage(
            call: .sceneWillConnect(
                SceneConnection(
                    scene: scene, sessionID: commands, role: .primary, initialState: .foregroundInactive,
                    restorationData: nil)), appState: .active, sceneState: .foregroundActive)
    }

    /// Waits until what the guest's main queue and the host queue hold has run.
    private func settle(_ channel: any GuestChannel) {
        _ = sendAll([], to: channel)
        (channel as? InProcessChannel)?.guest.mainQueue.sync {}
        hostQueue.sync {}
    }

}

// MARK: - Fixture access

/// The observable fixture's test hooks, through a reference of the test's own to the library
/// the opener loaded (RTLD_NOLOAD), which also keeps it mapped after the channel closed.
final class ObservableGuest: @unchecked Sendable {
    // Immutable after init; `release` runs once, in tearDown.
    typealias Observer =
        @convention(c) (UnsafePointer<CChar>?, UInt64, UnsafePointer<apphost_scene_connection_t>?) -> Void

    private let handle: UnsafeMutableRawPointer
    let setObserver: @convention(c) (Observer?) -> Void
    let host: @convention(c) () -> UnsafePointer<apphost_host_t>?
    let setLaunchStatus: @convention(c) (Int32) -> Void
    let startLogger: @convention(c) (Int32) -> Int32
    let joinLogger: @convention(c) () -> Int32

    init(path: String) throws {
        let library = try XCTUnwrap(dlopen(path, RTLD_NOW | RTLD_NOLOAD), "the opener loaded \(path)")
        handle = library
        func hook<F>(_ name: String, as _: F.Type) throws -> F {
            unsafeBitCast(try XCTUnwrap(dlsym(library, name), name), to: F.self)
        }
        setObserver = try hook("fixture_set_observer", as: (@convention(c) (Observer?) -> Void).self)
        host = try hook("fixture_host", as: (@convention(c) () -> UnsafePointer<apphost_host_t>?).self)
        setLaunchStatus = try hook("fixture_set_launch_status", as: (@convention(c) (Int32) -> Void).self)
        startLogger = try hook("fixture_start_logger", as: (@convention(c) (Int32) -> Int32).self)
        joinLogger = try hook("fixture_join_logger", as: (@convention(c) () -> Int32).self)
    }

    func release() {
        setObserver(nil)
        dlclose(handle)
    }
}

struct ObservedConnection: Sendable, Equatable {
    var size: UInt32
    var scene: UInt64
    var sessionID: String
    var role: Int32
    var initialState: Int32
    var restoration: [UInt8]?
}

/// What the guest saw from inside one callback.
struct Observation: Sendable {
    var event: String
    var scene: UInt64
    var queue: String?
    var appState: Int32
    var sceneStatus: Int32
    var sceneState: Int32?
    var connection: ObservedConnection?
}

/// CONTRACT S1: inside each scene callback the guest read its scene's state as the message
/// said, except in did_disconnect, where the handle is already gone.
func assertSceneStatesSeen(
    _ seen: [Observation], during messages: [GuestMessage], file: StaticString = #filePath, line: UInt = #line
) {
    for (observation, message) in zip(seen, messages) where observation.scene != 0 {
        if message.call == .scene(1, .didDisconnect) {
            XCTAssertEqual(
                observation.sceneStatus, StatusCode.invalidHandle, "the handle is gone in did_disconnect", file: file,
                line: line)
        } else {
            XCTAssertEqual(observation.sceneStatus, StatusCode.ok, observation.event, file: file, line: line)
            XCTAssertEqual(
                observation.sceneState, message.sceneState?.rawValue, observation.event, file: file, line: line)
        }
    }
}

/// Receives the fixture's observer calls. A C function pointer cannot capture, hence the globals.
enum FixtureObserver {
    static let queueKey = DispatchSpecificKey<String>()
    typealias Action = @Sendable (_ event: String, _ scene: UInt64) -> Void

    private struct State {
        var host: UInt = 0
        var observations: [Observation] = []
        var action: Action?
    }
    private static let state = Mutex(State())

    static var currentQueue: String? { DispatchQueue.getSpecific(key: queueKey) }
    static var observations: [Observation] { state.withLock { $0.observations } }

    static func reset() { state.withLock { $0 = State() } }

    static func setAction(_ action: @escaping Action) { state.withLock { $0.action = action } }

    static func watch(_ guest: ObservableGuest) {
        state.withLock { $0.host = UInt(bitPattern: guest.host()) }
        guest.setObserver(observe)
    }

    private static let observe: ObservableGuest.Observer = { event, scene, connection in
        let name = event.map { String(cString: $0) } ?? "?"
        let (host, action) = state.withLock { ($0.host, $0.action) }
        var observation = Observation(
            event: name, scene: scene, queue: currentQueue, appState: -1, sceneStatus: -1, sceneState: nil)
        // [main-queue] host functions, called where they may be: inside the callback.
        if let host = UnsafePointer<apphost_host_t>(bitPattern: host), name != "deinit" {
            observation.appState = host.pointee.app_state(host)
            var sceneState: Int32 = -1
            observation.sceneStatus = host.pointee.scene_state(host, scene, &sceneState)
            if observation.sceneStatus == StatusCode.ok { observation.sceneState = sceneState }
        }
        if let connection {
            let value = connection.pointee
            observation.connection = ObservedConnection(
                size: value.struct_size, scene: value.scene, sessionID: String(cString: value.session_id),
                role: value.role, initialState: value.initial_state,
                restoration: value.restoration_data.map {
                    Array(UnsafeRawBufferPointer(start: $0, count: value.restoration_length))
                })
        }
        state.withLock { $0.observations.append(observation) }
        action?(name, scene)
    }
}

/// What the guest sent the host, as the opener's onEvent received it.
final class EventLog: Sendable {
    struct Log: Equatable {
        var level: GuestLogLevel
        var message: String
    }
    struct Save: Equatable, CustomStringConvertible {
        var scene: SceneHandle
        var bytes: [UInt8]
        var description: String {
            "scene \(scene): " + (bytes.count > 32 ? "\(bytes.count) bytes" : "\(bytes)")
        }
    }

    private let state = Mutex<(events: [GuestEvent], offQueue: Int)>(([], 0))

    func append(_ event: GuestEvent) {
        let onHost = FixtureObserver.currentQueue == "host"
        state.withLock {
            $0.events.append(event)
            if !onHost { $0.offQueue += 1 }
        }
    }

    var allOnHostQueue: Bool { state.withLock { $0.offQueue == 0 } }

    /// Every event, in the order it arrived.
    var events: [GuestEvent] { state.withLock { $0.events } }

    var logs: [Log] {
        state.withLock { state in
            state.events.compactMap { event in
                guard case .log(let level, let message) = event else { return nil }
                return Log(level: level, message: message)
            }
        }
    }

    var logLines: [String] { logs.map(\.message) }

    var saves: [Save] {
        state.withLock { state in
            state.events.compactMap { event in
                guard case .saveSceneState(let scene, let data, _) = event else { return nil }
                return Save(scene: scene, bytes: Array(data))
            }
        }
    }
}
