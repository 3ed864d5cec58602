import ApphostGuestRuntime
import ApphostModel
import ApphostPolicy
import ApphostVocabulary
import CApphost
import Foundation
import Synchronization
import XCTest

@testable import ApphostChannels

/// The C guest runtime (Sources/ApphostGuestRuntime), called directly from Swift as the host will
/// call it for in-process guests, on the fixtures of Plugins/Fixtures and on the probe guest below.
/// Every call runs on the test's thread, which plays the guest's main queue.
final class GuestRuntimeCTests: XCTestCase {
    private var runtimes: [OpaquePointer] = []
    private var guests: [ObservableGuest] = []
    /// Reporters given to runtimes: kept until the runtimes have stopped, as ahr_start asks.
    private var recorders: [ReporterRecorder] = []

    override func setUp() {
        FixtureObserver.reset()
    }

    override func tearDown() {
        for runtime in runtimes { ahr_stop(runtime) }
        runtimes = []
        for guest in guests { guest.release() }
        guests = []
        recorders = []
        FixtureObserver.reset()
    }

    // MARK: Loading

    // CONTRACT X1: a file dlopen refuses is reported with dlerror's own text, for the host to classify.
    func testLoadReportsDlopenFailureWithItsText() throws {
        let missing = GuestFixtures.path("no-such-guest.so")
        let unresolved = try GuestFixtures.library("unresolved_symbol.c")
        for path in [missing, unresolved] {
            let expected = dlopenError(path)
            let (result, runtime, error) = load(path)
            XCTAssertEqual(result, AHR_LOAD_DLOPEN_FAILED, path)
            XCTAssertNil(runtime)
            XCTAssertEqual(error, expected)
        }
        XCTAssertTrue(dlopenError(missing).hasPrefix(missing + ": cannot open shared object file"))
        XCTAssertTrue(dlopenError(unresolved).contains("undefined symbol: "))
    }

    // CONTRACT X1
    func testLoadOfALibraryWithoutTheEntrySymbol() throws {
        let path = try GuestFixtures.library("no_entry.c")
        let (result, runtime, error) = load(path)
        XCTAssertEqual(result, AHR_LOAD_NO_ENTRY)
        XCTAssertNil(runtime)
        XCTAssertEqual(error, "\(path): undefined symbol: apphost_entry")
    }

    // The error text is cut to the caller's buffer, NUL included; no buffer is fine too.
    func testLoadErrorFitsTheBuffer() {
        let path = GuestFixtures.path("no-such-guest.so")
        var buffer = [CChar](repeating: 0x7F, count: 10)
        var runtime: OpaquePointer?
        XCTAssertEqual(ahr_load(path, &runtime, &buffer, buffer.count), AHR_LOAD_DLOPEN_FAILED)
        XCTAssertEqual(Self.text(buffer), String(path.prefix(9)))
        XCTAssertEqual(ahr_load(path, &runtime, nil, 0), AHR_LOAD_DLOPEN_FAILED)
        XCTAssertEqual(ahr_load(path, &runtime, &buffer, 0), AHR_LOAD_DLOPEN_FAILED)
    }

    // MARK: The raw descriptor

    // CONTRACT X1: the runtime reports what the guest declared, every member.
    func testRawDescriptorOfAValidGuest() throws {
        let runtime = try loaded(try GuestFixtures.library("observable_guest.c", name: "observable-c-runtime"))
        XCTAssertEqual(
            RawDescriptor(ahr_descriptor(runtime).pointee),
            RawDescriptor(
                abi: Self.headersABI, hasDescriptor: true,
                structSize: UInt32(MemoryLayout<apphost_guest_descriptor_t>.size),
                id: "org.apphost.fixtures.observable", name: "Observable Fixture", version: "2.3.4",
                vendor: "apphost tests", description: "Reports every callback to the test that loaded it.",
                capabilities: UInt64(APPHOST_CAPABILITY_MULTIPLE_SCENES.rawValue), hasInit: true, hasDeinit: true,
                hasQuery: true))
    }

    // CONTRACT X1: members past struct_size are not read, and a size that cuts a member in half
    // does not read that half; a struct_size larger than the runtime's reads the runtime's members.
    func testRawDescriptorReadsOnlyMembersWithinStructSize() throws {
        let capabilitiesOffset = try XCTUnwrap(
            MemoryLayout<apphost_guest_descriptor_t>.offset(of: \apphost_guest_descriptor_t.capabilities))
        let cases: [(size: Int, strings: Int, capabilities: UInt64)] = [
            (0, 0, 0), (12, 0, 0), (20, 1, 0), (24, 2, 0), (capabilitiesOffset, 5, 0),
            (capabilitiesOffset + 4, 5, 0), (capabilitiesOffset + 8, 5, 4), (4096, 5, 4),
        ]
        for (size, strings, capabilities) in cases {
            let path = try GuestFixtures.library(
                "minimal_guest.c", name: "c-runtime-size-\(size)",
                flags: ["-DFIXTURE_STRUCT_SIZE=\(size)", "-DFIXTURE_CAPABILITIES=4"])
            let raw = RawDescriptor(ahr_descriptor(try loaded(path)).pointee)
            XCTAssertTrue(raw.hasDescriptor)
            XCTAssertEqual(raw.structSize, UInt32(size))
            let all: [String?] = [
                "org.apphost.fixtures.minimal", "Minimal Fixture", "1.0.0", "apphost tests",
                "A minimal guest for loader tests.",
            ]
            XCTAssertEqual(
                [raw.id, raw.name, raw.version, raw.vendor, raw.description],
                all.enumerated().map { $0.offset < strings ? $0.element : nil }, "struct_size \(size)")
            XCTAssertEqual(raw.capabilities, capabilities, "struct_size \(size)")
        }
    }

    // CONTRACT X1: NULL pointers in the entry and the descriptor are reported as absent.
    func testRawDescriptorReportsNullMembers() throws {
        let noDescriptor = RawDescriptor(
            ahr_descriptor(
                try loaded(
                    try GuestFixtures.library(
                        "minimal_guest.c", name: "c-runtime-null-descriptor", flags: ["-DFIXTURE_NULL_DESCRIPTOR"]))
            ).pointee)
        XCTAssertFalse(noDescriptor.hasDescriptor)
        XCTAssertEqual(noDescriptor.structSize, 0)
        XCTAssertNil(noDescriptor.id)
        XCTAssertTrue(noDescriptor.hasInit)

        let nulls = RawDescriptor(
            ahr_descriptor(
                try loaded(
                    try GuestFixtures.library(
                        "minimal_guest.c", name: "c-runtime-nulls",
                        flags: ["-DFIXTURE_NULL_ID", "-DFIXTURE_NULL_INIT", "-DFIXTURE_NULL_QUERY"]))
            ).pointee)
        XCTAssertTrue(nulls.hasDescriptor)
        XCTAssertNil(nulls.id)
        XCTAssertEqual(nulls.name, "Minimal Fixture")
        XCTAssertEqual([nulls.hasInit, nulls.hasDeinit, nulls.hasQuery], [false, true, false])
    }

    // CONTRACT X1: a guest of another ABI major may lay its entry out differently: only its version
    // is read, and it cannot be started. A newer minor is read as usual (and the host loads it).
    func testAnotherABIMajorIsReadNoFurtherThanItsVersion() throws {
        let major = try loaded(
            try GuestFixtures.library(
                "minimal_guest.c", name: "c-runtime-abi-2", flags: ["-DFIXTURE_ABI_MAJOR=2", "-DFIXTURE_ABI_MINOR=0"]))
        XCTAssertEqual(
            RawDescriptor(ahr_descriptor(major).pointee),
            RawDescriptor(
                abi: [2, 0, 0], hasDescriptor: false, structSize: 0, id: nil, name: nil, version: nil, vendor: nil,
                description: nil, capabilities: 0, hasInit: false, hasDeinit: false, hasQuery: false))
        let recorder = ReporterRecorder()
        XCTAssertEqual(start(major, recorder), StartOutcome(AHR_START_INIT_FAILED, APPHOST_ERROR_UNSUPPORTED))

        let minor = try loaded(
            try GuestFixtures.library("minimal_guest.c", name: "c-runtime-abi-1-7", flags: ["-DFIXTURE_ABI_MINOR=7"]))
        let raw = RawDescriptor(ahr_descriptor(minor).pointee)
        XCTAssertEqual(raw.abi, [1, 7, 0])
        XCTAssertEqual(raw.id, "org.apphost.fixtures.minimal")
    }

    // A descriptor string is read up to AHR_DESCRIPTOR_STRING_MAX_BYTES, never half a character.
    func testLongDescriptorStringsAreCutAtACharacterBoundary() throws {
        let limit = Int(AHR_DESCRIPTOR_STRING_MAX_BYTES)
        let path = try GuestFixtures.library(
            "minimal_guest.c", name: "c-runtime-long-strings",
            flags: [
                "-DFIXTURE_NAME=\"\(String(repeating: "n", count: limit + 1000))\"",
                "-DFIXTURE_VERSION=\"\(String(repeating: "v", count: limit - 1))\\xc3\\xa9\"",
                "-DFIXTURE_ID=\"\(String(repeating: "i", count: limit))\"",
            ])
        let descriptor = ahr_descriptor(try loaded(path)).pointee
        XCTAssertEqual(descriptor.name.length, limit)
        XCTAssertEqual(RawDescriptor.string(descriptor.name), String(repeating: "n", count: limit))
        XCTAssertEqual(RawDescriptor.string(descriptor.version), String(repeating: "v", count: limit - 1))
        XCTAssertEqual(descriptor.id.length, limit, "a string of exactly the limit is whole")
    }

    // MARK: Starting

    // The host interface init receives: its members and the strings given to ahr_start.
    func testStartHandsInitTheHostInterface() throws {
        let (runtime, guest) = try startedObservable()
        let host = try XCTUnwrap(guest.host())
        XCTAssertEqual(host.pointee.struct_size, UInt32(MemoryLayout<apphost_host_t>.size))
        XCTAssertEqual(
            [host.pointee.abi_version.major, host.pointee.abi_version.minor, host.pointee.abi_version.revision],
            Self.headersABI)
        XCTAssertEqual(String(cString: host.pointee.name), "apphost")
        XCTAssertEqual(String(cString: host.pointee.version), "9.8.7")
        XCTAssertEqual(host.pointee.data_directory(host).map { String(cString: $0) }, "/data/observable")
        _ = runtime
    }

    // NULL strings read as "" (ahr_start's promise).
    func testStartWithNullStrings() throws {
        let runtime = try loaded(try ProbeGuest.library())
        var status: Int32 = -1
        XCTAssertEqual(ahr_start(runtime, nil, nil, nil, ReporterRecorder.silent, &status), AHR_START_OK)
        let host = try XCTUnwrap(ProbeGuest.host())
        XCTAssertEqual(String(cString: host.pointee.name), "")
        XCTAssertEqual(String(cString: host.pointee.version), "")
        XCTAssertEqual(host.pointee.data_directory(host).map { String(cString: $0) }, "")
    }

    // CONTRACT A2 X1: init's error is reported; deinit is not called (the fixture's deinit aborts),
    // the guest is unloaded, and no call reaches it.
    func testInitFailureIsReportedWithoutDeinit() throws {
        let runtime = try loaded(
            try GuestFixtures.library(
                "minimal_guest.c", name: "c-runtime-init-fails",
                flags: ["-DFIXTURE_INIT_STATUS=APPHOST_ERROR_GUEST_FAILED", "-DFIXTURE_DEINIT_ABORTS"]))
        XCTAssertEqual(
            start(runtime, ReporterRecorder()), StartOutcome(AHR_START_INIT_FAILED, APPHOST_ERROR_GUEST_FAILED))
        XCTAssertEqual(deliver(GuestMessage(call: .didFinishLaunching, appState: .inactive), to: runtime), 8)
    }

    // CONTRACT X1: a guest without app callbacks gets deinit after its successful init.
    func testGuestWithoutAppCallbacksGetsDeinit() throws {
        let runtime = try loaded(try ProbeGuest.library(name: "probe-no-app", flags: ["-DPROBE_NO_APP_CALLBACKS"]))
        let recorder = ReporterRecorder()
        XCTAssertEqual(start(runtime, recorder), StartOutcome(AHR_START_NO_APP_CALLBACKS, APPHOST_OK))
        let size = MemoryLayout<apphost_host_t>.size
        XCTAssertEqual(
            recorder.lines,
            ["init host=apphost/9.8.7 size=\(size) abi=\(Self.headersABIMajorMinor) dir=/data/probe", "deinit"])
        XCTAssertEqual(
            deliver(GuestMessage(call: .didFinishLaunching, appState: .inactive), to: runtime),
            Int32(APPHOST_ERROR_INTERNAL.rawValue))
    }

    // A runtime starts once; a second start changes nothing.
    func testSecondStartIsRefused() throws {
        let runtime = try loaded(try ProbeGuest.library())
        let recorder = ReporterRecorder()
        XCTAssertEqual(start(runtime, recorder), StartOutcome(AHR_START_OK, APPHOST_OK))
        XCTAssertEqual(start(runtime, recorder), StartOutcome(AHR_START_INIT_FAILED, APPHOST_ERROR_INVALID_STATE))
        XCTAssertEqual(deliver(GuestMessage(call: .didFinishLaunching, appState: .inactive), to: runtime), 0)
        XCTAssertEqual(recorder.lines.count, 2, "one init, one launch: \(recorder.lines)")
    }

    // MARK: Calls and the mirror

    // CONTRACT A2 S2 S3 S6: callbacks run in the order delivered and see each message's app and scene
    // states; a disconnecting scene's handle is already stale in did_disconnect.
    func testCallsRunInOrderAndSeeTheirStates() throws {
        let (runtime, _) = try startedObservable()
        let messages = TestMessages.sceneLifecycle
        XCTAssertEqual(messages.map { deliver($0, to: runtime) }, Array(repeating: 0, count: messages.count))

        let seen = FixtureObserver.observations
        XCTAssertEqual(seen.map(\.event), messages.map(\.call.callbackName))
        XCTAssertEqual(seen.map(\.appState), messages.map(\.appState.rawValue))
        assertSceneStatesSeen(seen, during: messages)
    }

    // CONTRACT A2: did_finish_launching's status is ahr_handle's.
    func testLaunchStatusIsReturned() throws {
        let (runtime, guest) = try startedObservable()
        guest.setLaunchStatus(Int32(APPHOST_ERROR_GUEST_FAILED.rawValue))
        XCTAssertEqual(deliver(GuestMessage(call: .didFinishLaunching, appState: .inactive), to: runtime), 7)
    }

    // CONTRACT S12 S8: will_connect gets the session id and the saved bytes: none (NULL), an empty
    // saved state (non-NULL, length 0) and some.
    func testWillConnectGivesSessionAndRestorationData() throws {
        let (runtime, _) = try startedObservable()
        for message in [
            TestMessages.connect(1, restoration: Data("counter=3".utf8)), TestMessages.connect(2, restoration: nil),
            TestMessages.connect(3, restoration: Data()),
        ] {
            XCTAssertEqual(deliver(message, to: runtime), 0)
        }
        let size = UInt32(MemoryLayout<apphost_scene_connection_t>.size)
        let primary = SceneRole.primary.rawValue
        let inactive = SceneState.foregroundInactive.rawValue
        XCTAssertEqual(
            FixtureObserver.observations.compactMap(\.connection),
            [
                ObservedConnection(
                    size: size, scene: 1, sessionID: "session-1", role: primary, initialState: inactive,
                    restoration: Array("counter=3".utf8)),
                ObservedConnection(
                    size: size, scene: 2, sessionID: "session-2", role: primary, initialState: inactive,
                    restoration: nil),
                ObservedConnection(
                    size: size, scene: 3, sessionID: "session-3", role: primary, initialState: inactive,
                    restoration: []),
            ])
    }

    // CONTRACT A3 S12: scenes stay valid during will_terminate, so the guest can save them there,
    // and not after it.
    func testWillTerminateEndsSceneHandlesAfterItsCallback() throws {
        let recorder = ReporterRecorder()
        let runtime = try startedProbe(recorder)
        let host = try XCTUnwrap(ProbeGuest.host())
        XCTAssertEqual(deliver(TestMessages.connect(1), to: runtime), 0)
        XCTAssertEqual(deliver(GuestMessage(call: .willTerminate, appState: .background), to: runtime), 0)
        XCTAssertEqual(recorder.lines.last, "will_terminate app=3 save=ok")
        XCTAssertEqual(recorder.saves, [ReporterRecorder.Save(scene: 1, bytes: Array("terminating".utf8))])
        var state: Int32 = -1
        XCTAssertEqual(onMainQueue(runtime) { host.pointee.scene_state(host, 1, &state) }, StatusCode.invalidHandle)
        XCTAssertEqual(TestMessages.save(host, scene: 1, [1]), StatusCode.invalidHandle)
    }

    // A scene callback for a scene that is not connected does not connect it.
    func testSceneCallbackForAnUnknownSceneLeavesItUnknown() throws {
        let recorder = ReporterRecorder()
        let runtime = try startedProbe(recorder)
        XCTAssertEqual(
            deliver(
                TestMessages.scene(9, .willEnterForeground, app: .inactive, state: .foregroundInactive), to: runtime), 0
        )
        XCTAssertEqual(recorder.lines.last, "will_enter_foreground scene=9 app=1 state=invalid_handle")
    }

    // Callbacks past a table's struct_size, even cut in half by it, are skipped; so are scene
    // calls of a guest without scene callbacks, whose mirror still follows the host.
    func testCallbacksPastStructSizeAreSkipped() throws {
        let recorder = ReporterRecorder()
        let runtime = try loaded(
            try ProbeGuest.library(
                name: "probe-small-tables",
                flags: [
                    "-DPROBE_APP_CALLBACKS_SIZE=20",
                    "-DPROBE_SCENE_CALLBACKS_SIZE=offsetof(apphost_scene_callbacks_t,did_become_active)+4",
                ]))
        XCTAssertEqual(start(runtime, recorder), StartOutcome(AHR_START_OK, APPHOST_OK))
        let messages = [
            GuestMessage(call: .didFinishLaunching, appState: .inactive),
            TestMessages.connect(1),
            TestMessages.scene(1, .willEnterForeground, app: .inactive, state: .foregroundInactive),
            TestMessages.scene(1, .didBecomeActive, app: .active, state: .foregroundActive),
            GuestMessage(call: .willTerminate, appState: .active),
        ]
        XCTAssertEqual(messages.map { deliver($0, to: runtime) }, [0, 0, 0, 0, 0])
        XCTAssertEqual(
            Array(recorder.lines.dropFirst()).map { $0.components(separatedBy: " ")[0] },
            ["did_finish_launching", "will_connect", "will_enter_foreground"])

        let bare = try loaded(try ProbeGuest.library(name: "probe-no-scenes", flags: ["-DPROBE_NO_SCENE_CALLBACKS"]))
        XCTAssertEqual(start(bare, ReporterRecorder()), StartOutcome(AHR_START_OK, APPHOST_OK))
        XCTAssertEqual(deliver(TestMessages.connect(4), to: bare), 0)
        XCTAssertEqual(
            deliver(TestMessages.scene(4, .willEnterForeground, app: .inactive, state: .foregroundInactive), to: bare),
            0)
        let host = try XCTUnwrap(ProbeGuest.host(named: "probe-no-scenes"))
        var state: Int32 = -1
        XCTAssertEqual(onMainQueue(bare) { host.pointee.scene_state(host, 4, &state) }, StatusCode.ok)
        XCTAssertEqual(state, SceneState.foregroundInactive.rawValue)
    }

    // Calls the runtime does not know, or cannot make, are refused; a runtime not started runs none.
    func testMalformedCallsAreRefused() throws {
        let loadedOnly = try loaded(try ProbeGuest.library(name: "probe-not-started"))
        XCTAssertEqual(
            deliver(GuestMessage(call: .didFinishLaunching, appState: .inactive), to: loadedOnly),
            Int32(APPHOST_ERROR_INTERNAL.rawValue))

        let recorder = ReporterRecorder()
        let runtime = try startedProbe(recorder)
        let invalid = Int32(APPHOST_ERROR_INVALID_ARGUMENT.rawValue)
        var call = ahr_call()
        call.kind = ahr_call_kind(rawValue: 99)
        XCTAssertEqual(ahr_handle(runtime, &call), invalid)
        call.kind = AHR_CALL_BACKGROUND_TIME
        call.background_time.background_time_ns = -2
        XCTAssertEqual(ahr_handle(runtime, &call), invalid, "below AHR_BACKGROUND_TIME_UNLIMITED")
        call = ahr_call()
        call.kind = AHR_CALL_SCENE_CALLBACK
        call.scene_callback.scene = 1
        call.scene_callback.scene_callback = ahr_scene_callback(rawValue: 0)
        XCTAssertEqual(ahr_handle(runtime, &call), invalid)
        call = ahr_call()
        call.kind = AHR_CALL_WILL_CONNECT
        call.will_connect.scene = 1
        call.will_connect.session_id_length = 3
        XCTAssertEqual(ahr_handle(runtime, &call), invalid, "a NULL session id of 3 bytes")
        call.will_connect.session_id_length = 0
        call.will_connect.has_restoration = true
        call.will_connect.restoration_length = 5
        XCTAssertEqual(ahr_handle(runtime, &call), invalid, "NULL restoration bytes of 5 bytes")
        XCTAssertEqual(recorder.lines.count, 1, "only init ran: \(recorder.lines)")
    }

    // MARK: Host functions (CONTRACT X3)

    // CONTRACT X3: log refuses NULL, bad levels and unknown hosts; cuts long messages at a character
    // boundary; passes invalid UTF-8 on for the receiver to repair.
    func testLog() throws {
        let recorder = ReporterRecorder()
        _ = try startedProbe(recorder)
        let host = try XCTUnwrap(ProbeGuest.host())
        let levels = Int32(APPHOST_LOG_TRACE.rawValue)...Int32(APPHOST_LOG_ERROR.rawValue)
        for level in levels {
            XCTAssertEqual(host.pointee.log(host, level, "at \(level)"), StatusCode.ok)
        }
        let invalidArgument = StatusCode.invalidArgument
        XCTAssertEqual(host.pointee.log(nil, 2, "no host"), invalidArgument)
        XCTAssertEqual(host.pointee.log(host, 2, nil), invalidArgument)
        XCTAssertEqual(host.pointee.log(host, 5, "level 5"), invalidArgument)
        XCTAssertEqual(host.pointee.log(host, -1, "level -1"), invalidArgument)
        var foreign = host.pointee
        XCTAssertEqual(host.pointee.log(&foreign, 2, "a copy is not the host"), invalidArgument)

        let limit = Int(APPHOST_LOG_MESSAGE_MAX_BYTES)
        let long: [(message: String, kept: String)] = [
            (String(repeating: "x", count: limit + 1000), String(repeating: "x", count: limit)),
            (String(repeating: "a", count: limit - 1) + "é", String(repeating: "a", count: limit - 1)),
            (String(repeating: "b", count: limit - 2) + "é", String(repeating: "b", count: limit - 2) + "é"),
            (String(repeating: "c", count: limit - 2) + "😀", String(repeating: "c", count: limit - 2)),
            (String(repeating: "d", count: limit - 4) + "😀!", String(repeating: "d", count: limit - 4) + "😀"),
        ]
        for (message, _) in long {
            XCTAssertEqual(host.pointee.log(host, 2, message), StatusCode.ok)
        }
        let invalid: [CChar] = [0x61, -1, 0x62, 0]  // "a\xffb"
        XCTAssertEqual(host.pointee.log(host, 2, invalid), StatusCode.ok)

        let logs = Array(recorder.logs.dropFirst())  // init's
        XCTAssertEqual(logs.count, levels.count + long.count + 1, "refused messages reach no reporter")
        XCTAssertEqual(logs.prefix(levels.count).map(\.level), Array(levels))
        XCTAssertEqual(logs.prefix(levels.count).map(\.text), levels.map { "at \($0)" })
        XCTAssertEqual(logs.dropFirst(levels.count).prefix(long.count).map(\.text), long.map(\.kept))
        XCTAssertEqual(logs.last?.bytes, [0x61, 0xFF, 0x62], "passed on as it is")
    }

    // CONTRACT X3: data_directory, app_state, scene_state and get_extension with NULL, foreign and
    // unknown arguments.
    func testHostFunctionsWithNullAndUnknownArguments() throws {
        let runtime = try startedProbe(ReporterRecorder())
        let host = try XCTUnwrap(ProbeGuest.host())
        var foreign = host.pointee

        let directory = try XCTUnwrap(host.pointee.data_directory(host))
        XCTAssertEqual(String(cString: directory), "/data/probe")
        XCTAssertEqual(host.pointee.data_directory(host), directory, "one string, owned by the runtime")
        XCTAssertNil(host.pointee.data_directory(nil))
        XCTAssertNil(host.pointee.data_directory(&foreign))

        XCTAssertEqual(
            onMainQueue(runtime) { host.pointee.app_state(host) }, AppState.notRunning.rawValue,
            "nothing delivered yet")
        XCTAssertEqual(host.pointee.app_state(nil), -1)
        XCTAssertEqual(host.pointee.app_state(&foreign), -1)
        XCTAssertEqual(deliver(GuestMessage(call: .didReceiveMemoryWarning, appState: .background), to: runtime), 0)
        XCTAssertEqual(onMainQueue(runtime) { host.pointee.app_state(host) }, AppState.background.rawValue)

        XCTAssertEqual(deliver(TestMessages.connect(1), to: runtime), 0)
        var state: Int32 = -1
        XCTAssertEqual(onMainQueue(runtime) { host.pointee.scene_state(host, 1, &state) }, StatusCode.ok)
        XCTAssertEqual(state, SceneState.unattached.rawValue)
        onMainQueue(runtime) {
            XCTAssertEqual(host.pointee.scene_state(host, 1, nil), StatusCode.invalidArgument)
            XCTAssertEqual(host.pointee.scene_state(host, 2, &state), StatusCode.invalidHandle)
            XCTAssertEqual(host.pointee.scene_state(host, 0, &state), StatusCode.invalidHandle)
            XCTAssertEqual(host.pointee.scene_state(nil, 1, &state), StatusCode.invalidArgument)
            XCTAssertEqual(host.pointee.scene_state(&foreign, 1, &state), StatusCode.invalidArgument)
        }
        // Handle 0 is refused first, whatever else is wrong (one rule for every function).
        XCTAssertEqual(host.pointee.scene_state(nil, 0, nil), StatusCode.invalidHandle)
        XCTAssertEqual(host.pointee.save_scene_state(nil, 0, nil, 5), StatusCode.invalidHandle)

        XCTAssertNotNil(host.pointee.get_extension(host, APPHOST_BACKGROUND_EXTENSION_ID))
        XCTAssertNotNil(host.pointee.get_extension(host, APPHOST_SCENES_EXTENSION_ID))
        for id in [
            "apphost.background/2", "apphost.background", "apphost.guest.app/1", "apphost.scenes/2",
            APPHOST_GUEST_SCENES_CALLBACKS_ID, "",
        ] {
            XCTAssertNil(host.pointee.get_extension(host, id), id)
        }
        for id in ["apphost.background/1", "apphost.scenes/1", ""] {
            XCTAssertNil(host.pointee.get_extension(nil, id))
            XCTAssertNil(host.pointee.get_extension(&foreign, id))
        }
        XCTAssertNil(host.pointee.get_extension(host, nil))
    }

    // CONTRACT S12 X3: save_scene_state copies the bytes; refuses NULL bytes with a length, more
    // than APPHOST_SCENE_STATE_MAX_BYTES, unknown and disconnected handles, and unknown hosts.
    func testSaveSceneStateAndItsLimits() throws {
        let recorder = ReporterRecorder()
        let runtime = try startedProbe(recorder)
        let host = try XCTUnwrap(ProbeGuest.host())
        var foreign = host.pointee
        XCTAssertEqual(deliver(TestMessages.connect(1), to: runtime), 0)

        var buffer: [UInt8] = [1, 2, 3]
        XCTAssertEqual(TestMessages.save(host, scene: 1, buffer), StatusCode.ok)
        buffer[0] = 9  // the runtime handed the reporter the bytes before returning
        XCTAssertEqual(host.pointee.save_scene_state(host, 1, nil, 0), StatusCode.ok, "NULL with 0: an empty state")
        XCTAssertEqual(host.pointee.save_scene_state(host, 1, nil, 4), StatusCode.invalidArgument)
        let maximum = Int(APPHOST_SCENE_STATE_MAX_BYTES)
        XCTAssertEqual(TestMessages.save(host, scene: 1, [UInt8](repeating: 7, count: maximum)), StatusCode.ok)
        XCTAssertEqual(
            TestMessages.save(host, scene: 1, [UInt8](repeating: 7, count: maximum + 1)), StatusCode.tooLarge)
        XCTAssertEqual(TestMessages.save(host, scene: 42, [1]), StatusCode.invalidHandle)
        XCTAssertEqual(TestMessages.save(host, scene: 0, [1]), StatusCode.invalidHandle)
        XCTAssertEqual(host.pointee.save_scene_state(nil, 1, buffer, 1), StatusCode.invalidArgument)
        XCTAssertEqual(host.pointee.save_scene_state(&foreign, 1, buffer, 1), StatusCode.invalidArgument)

        XCTAssertEqual(
            deliver(TestMessages.scene(1, .didDisconnect, app: .background, state: .unattached), to: runtime), 0)
        XCTAssertEqual(
            TestMessages.save(host, scene: 1, [1]), StatusCode.invalidHandle, "a disconnected scene's handle is stale")
        XCTAssertEqual(
            recorder.saves,
            [
                .init(scene: 1, bytes: [1, 2, 3]), .init(scene: 1, bytes: []),
                .init(scene: 1, bytes: [UInt8](repeating: 7, count: maximum)),
            ])
        XCTAssertTrue(recorder.everySaveHadBytes, "the reporter never gets NULL, even for an empty state")
    }

    // CONTRACT X3: a guest thread logs while callbacks run; every line reaches the reporter, in order.
    func testGuestThreadLogsWhileCallbacksRun() throws {
        let recorder = ReporterRecorder()
        let (runtime, guest) = try startedObservable(recorder)
        let count = 2000
        XCTAssertEqual(guest.startLogger(Int32(count)), 0)
        for _ in 0..<200 {
            XCTAssertEqual(deliver(GuestMessage(call: .didReceiveMemoryWarning, appState: .background), to: runtime), 0)
        }
        XCTAssertEqual(guest.joinLogger(), 0)
        XCTAssertEqual(recorder.lines.filter { $0.hasPrefix("logger ") }, (0..<count).map { "logger \($0)" })
        XCTAssertEqual(recorder.lines.filter { $0.hasPrefix("callback ") }.count, 200)
    }

    // MARK: The background extension

    // get_extension offers one table for apphost.background/1, with every member, until the host
    // is withdrawn.
    func testGetExtensionOffersTheBackgroundTable() throws {
        let (_, fixture) = try startedBackground(ReporterRecorder())
        let host = try XCTUnwrap(fixture.host())
        let raw = try XCTUnwrap(host.pointee.get_extension(host, APPHOST_BACKGROUND_EXTENSION_ID))
        let table = raw.assumingMemoryBound(to: apphost_background_t.self)
        XCTAssertEqual(table.pointee.struct_size, UInt32(MemoryLayout<apphost_background_t>.size))
        XCTAssertEqual(fixture.background(), UnsafePointer(table), "the guest got the same table in init")
        XCTAssertNotNil(table.pointee.begin_task)
        XCTAssertNotNil(table.pointee.end_task)
        XCTAssertNotNil(table.pointee.time_remaining)
        XCTAssertNotNil(table.pointee.schedule_timer)
        XCTAssertNotNil(table.pointee.cancel_timer)
        XCTAssertNotNil(table.pointee.dispatch_async)
    }

    // CONTRACT B1: begin_task gives ids from 1, reported with their names; it refuses (the invalid
    // id) before the guest runs (init), once the budget is known to be spent, while and after
    // will_terminate runs, and in deinit. Timers and async work are refused before it runs too.
    func testBeginTaskIsRefusedWhenBackgroundWorkIsNotPossible() throws {
        let recorder = ReporterRecorder()
        let (runtime, fixture) = try startedBackground(recorder)
        XCTAssertEqual(
            recorder.lines, ["init begin=0 timer=invalid_state async=invalid_state time=unlimited"],
            "before ahr_start returned")
        fixture.run("begin upload")
        XCTAssertEqual(deliver(.backgroundTime(.zero), to: runtime), 0)
        fixture.run("begin after-zero")
        XCTAssertEqual(deliver(.backgroundTime(nil), to: runtime), 0)
        fixture.run("begin foreground")
        XCTAssertEqual(deliver(.backgroundTime(.milliseconds(50)), to: runtime), 0)
        fixture.run("begin in-budget")
        usleep(80_000)
        fixture.run("begin after-budget")
        XCTAssertEqual(deliver(.backgroundTime(.seconds(30)), to: runtime), 0)
        fixture.run("begin fresh-budget")
        XCTAssertEqual(deliver(GuestMessage(call: .willTerminate, appState: .background), to: runtime), 0)
        fixture.run("begin terminated")
        XCTAssertEqual(
            Array(recorder.lines.dropFirst()),
            [
                "begin upload = 1", "begin after-zero = 0", "begin foreground = 2", "begin in-budget = 3",
                "begin after-budget = 0", "begin fresh-budget = 4", "will_terminate begin = 0",
                "begin terminated = 0",
            ])
        XCTAssertEqual(
            recorder.background,
            [
                .taskBegan(1, "upload"), .taskBegan(2, "foreground"), .taskBegan(3, "in-budget"),
                .taskBegan(4, "fresh-budget"),
            ])
        runtimes.removeAll { $0 == runtime }
        ahr_stop(runtime)
        XCTAssertEqual(recorder.lines.last, "deinit begin=0")
    }

    // CONTRACT B1 X3: each id is ended once: ending it again, the invalid id or an id never given
    // is INVALID_HANDLE, never a crash; only the one end reaches the reporter.
    func testEndTaskOnceThenInvalidHandle() throws {
        let recorder = ReporterRecorder()
        let fixture = try startedBackground(recorder).fixture
        fixture.run("begin a;begin-bare;end 1;end 1;end 0;end 3;end 18446744073709551615;end 2")
        XCTAssertEqual(
            Array(recorder.lines.dropFirst()),
            [
                "begin a = 1", "begin (null) = 2", "end 1 = ok", "end 1 = invalid_handle", "end 0 = invalid_handle",
                "end 3 = invalid_handle", "end 18446744073709551615 = invalid_handle", "end 2 = ok",
            ])
        XCTAssertEqual(
            recorder.background, [.taskBegan(1, "a"), .taskBegan(2, ""), .taskEnded(1), .taskEnded(2)],
            "a NULL name reads as \"\"")
    }

    // CONTRACT B3 B1: EXPIRE_TASK runs the handler of an open task on the main queue, once; not
    // for a task already ended (a no-op that succeeds), nor for one without a handler; an id never
    // given is INVALID_HANDLE.
    func testExpirationHandlerRunsOnceAndNeverAfterEnd() throws {
        let recorder = ReporterRecorder()
        let (runtime, fixture) = try startedBackground(recorder)
        fixture.run("begin ends-itself;begin-keep keeps;begin-bare;begin ended;end 4")
        let invalidHandle = StatusCode.invalidHandle
        let calls: [(GuestCall, Int32)] = [
            (.expireTask(1), 0), (.expireTask(1), 0), (.expireTask(2), 0), (.expireTask(2), 0), (.expireTask(3), 0),
            (.expireTask(4), 0), (.expireTask(0), invalidHandle), (.expireTask(5), invalidHandle),
        ]
        for (call, status) in calls {
            recorder.mark(call.callbackName)
            XCTAssertEqual(deliver(call, to: runtime), status, "\(call)")
        }
        fixture.run("end 2;end 3")
        XCTAssertEqual(
            recorder.timeline.drop { $0 != .mark("expiration_handler") }.filter { $0 != .mark("expiration_handler") },
            [
                .log("expired 1"), .taskEnded(1), .log("end 1 = ok"), .log("expired 2"), .taskEnded(2),
                .log("end 2 = ok"), .taskEnded(3), .log("end 3 = ok"),
            ])
    }

    // CONTRACT B2: unlimited until the host gives a budget, then counting down from it, never
    // below 0; unlimited again in the foreground. The call runs no guest code.
    func testTimeRemainingIsUnlimitedThenCountsDown() throws {
        let recorder = ReporterRecorder()
        let (runtime, fixture) = try startedBackground(recorder)
        let host = try XCTUnwrap(fixture.host())
        let table = try XCTUnwrap(fixture.background())
        func remaining() -> Double {
            var seconds = -1.0
            XCTAssertEqual(table.pointee.time_remaining(host, &seconds), StatusCode.ok)
            return seconds
        }
        XCTAssertEqual(remaining(), APPHOST_BACKGROUND_TIME_UNLIMITED)
        XCTAssertEqual(
            deliver(GuestMessage(call: .backgroundTime(.seconds(30)), appState: .background), to: runtime), 0)
        XCTAssertEqual(
            onMainQueue(runtime) { host.pointee.app_state(host) }, AppState.background.rawValue,
            "the mirror follows every call")
        let first = remaining()
        XCTAssertLessThanOrEqual(first, 30)
        XCTAssertGreaterThan(first, 29)
        usleep(100_000)
        let second = remaining()
        XCTAssertLessThan(second, first - 0.09)
        XCTAssertGreaterThan(second, 28)
        XCTAssertEqual(deliver(.backgroundTime(.milliseconds(20)), to: runtime), 0)
        usleep(40_000)
        XCTAssertEqual(remaining(), 0, "never below 0")
        fixture.run("time")
        XCTAssertEqual(deliver(.backgroundTime(nil), to: runtime), 0)
        fixture.run("time")
        XCTAssertEqual(Array(recorder.lines.dropFirst()), ["time = 0.000", "time = unlimited"], "no guest code ran")
        XCTAssertEqual(recorder.background, [])
    }

    // CONTRACT B7: timers the host runs: a one-shot timer runs once and is forgotten; a repeating
    // one runs each time until cancelled (here by its own work); FIRE_TIMER of a cancelled or
    // finished timer does nothing; ids never given are INVALID_HANDLE (X3).
    func testTimersOneShotRepeatingAndCancelled() throws {
        let recorder = ReporterRecorder()
        let (runtime, fixture) = try startedBackground(recorder)
        fixture.run("timer 5 0;repeat 2 3;timer 0 0;cancel 3;cancel 3")
        XCTAssertEqual(
            recorder.background,
            [
                .timerScheduled(1, delay: 5_000_000, interval: 0),
                .timerScheduled(2, delay: 2_000_000, interval: 2_000_000),
                .timerScheduled(3, delay: 0, interval: 0), .timerCancelled(3),
            ])
        let invalidHandle = StatusCode.invalidHandle
        let calls: [(GuestCall, Int32)] = [
            (.fireTimer(1), 0), (.fireTimer(1), 0), (.fireTimer(2), 0), (.fireTimer(2), 0), (.fireTimer(2), 0),
            (.fireTimer(2), 0), (.fireTimer(3), 0), (.fireTimer(0), invalidHandle), (.fireTimer(4), invalidHandle),
        ]
        for (call, status) in calls {
            XCTAssertEqual(deliver(call, to: runtime), status, "\(call)")
        }
        fixture.run("cancel 1;cancel 2;cancel 0")
        XCTAssertEqual(
            Array(recorder.lines.dropFirst()),
            [
                "timer = 1", "timer = 2", "timer = 3", "cancel 3 = ok", "cancel 3 = invalid_handle", "fired 1 1",
                "fired 2 1", "fired 2 2", "fired 2 3", "cancel 2 = ok", "cancel 1 = invalid_handle",
                "cancel 2 = invalid_handle", "cancel 0 = invalid_handle",
            ])
        XCTAssertEqual(recorder.background.last, .timerCancelled(2), "cancelled once, by its own work")
        XCTAssertEqual(recorder.background.count, 5)
    }

    // dispatch_async: each piece of work is reported, runs once when the host says, in the order
    // the host says, and is forgotten: running it again, or an id never given, is INVALID_HANDLE.
    func testDispatchAsyncRunsEachWorkOnce() throws {
        let recorder = ReporterRecorder()
        let (runtime, fixture) = try startedBackground(recorder)
        fixture.run("async a;async b")
        XCTAssertEqual(recorder.background, [.workSubmitted(1), .workSubmitted(2)])
        let invalidHandle = StatusCode.invalidHandle
        let calls: [(GuestCall, Int32)] = [
            (.runWork(2), 0), (.runWork(1), 0), (.runWork(1), invalidHandle), (.runWork(0), invalidHandle),
            (.runWork(3), invalidHandle),
        ]
        for (call, status) in calls {
            XCTAssertEqual(deliver(call, to: runtime), status, "\(call)")
        }
        XCTAssertEqual(Array(recorder.lines.dropFirst()), ["async = ok", "async = ok", "async b", "async a"])
    }

    // CONTRACT X3: every function with NULL pointers, the invalid id, ids never given and hosts that
    // are not the guest's gets an error code or the invalid id; none reaches the reporter. After
    // ahr_stop, a stale host pointer gets the same.
    func testNullAndUnknownArgumentsGetErrorCodes() throws {
        let recorder = ReporterRecorder()
        let (runtime, fixture) = try startedBackground(recorder)
        fixture.run("abuse")
        XCTAssertEqual(
            recorder.lines.last,
            "abuse begin=0,0 end=invalid_handle,invalid_handle,invalid_argument,invalid_argument "
                + "time=invalid_argument,invalid_argument,invalid_argument "
                + "schedule=invalid_argument,invalid_argument,invalid_argument,invalid_argument timer=99 "
                + "cancel=invalid_handle,invalid_handle,invalid_argument "
                + "async=invalid_argument,invalid_argument,invalid_argument")
        XCTAssertEqual(recorder.background, [])

        fixture.run("begin open;timer 1 1;async never-run")
        let host = try XCTUnwrap(fixture.host())
        let table = try XCTUnwrap(fixture.background())
        let getExtension = try XCTUnwrap(host.pointee.get_extension)
        runtimes.removeAll { $0 == runtime }
        ahr_stop(runtime)  // frees the open task, timer and work
        let before = recorder.timeline.count
        var seconds = 0.0
        var timer: apphost_timer_t = 0
        XCTAssertEqual(table.pointee.begin_task(host, "late", nil, nil), 0)
        XCTAssertEqual(table.pointee.end_task(host, 1), StatusCode.invalidArgument)
        XCTAssertEqual(table.pointee.time_remaining(host, &seconds), StatusCode.invalidArgument)
        XCTAssertEqual(table.pointee.schedule_timer(host, 0, 0, { _ in }, nil, &timer), StatusCode.invalidArgument)
        XCTAssertEqual(table.pointee.cancel_timer(host, 1), StatusCode.invalidArgument)
        XCTAssertEqual(table.pointee.dispatch_async(host, { _ in }, nil), StatusCode.invalidArgument)
        XCTAssertNil(getExtension(host, APPHOST_BACKGROUND_EXTENSION_ID))
        XCTAssertEqual(recorder.timeline.count, before, "nothing reached the reporter after stop")
    }

    // A task name is cut at APPHOST_TASK_NAME_MAX_BYTES on a character boundary; a reporter without the
    // background members drops their calls, and the extension works on.
    func testLongNamesAreCutAndANullSinkMemberDropsItsCalls() throws {
        let recorder = ReporterRecorder()
        let (runtime, fixture) = try startedBackground(recorder)
        fixture.run("begin-long")
        XCTAssertEqual(recorder.lines.last, "begin long = 1")
        let limit = Int(APPHOST_TASK_NAME_MAX_BYTES)
        XCTAssertEqual(recorder.background, [.taskBegan(1, String(repeating: "n", count: limit - 1))])
        runtimes.removeAll { $0 == runtime }
        ahr_stop(runtime)

        let silent = try loaded(try BackgroundFixture.library(name: "background-c-runtime"))
        var status: Int32 = -1
        XCTAssertEqual(ahr_start(silent, "/data", "apphost", "1", ReporterRecorder.silent, &status), AHR_START_OK)
        let table = try XCTUnwrap(fixture.background())
        let host = try XCTUnwrap(fixture.host())
        XCTAssertEqual(table.pointee.begin_task(host, "quiet", nil, nil), 1)
        XCTAssertEqual(table.pointee.end_task(host, 1), StatusCode.ok)
        XCTAssertEqual(table.pointee.dispatch_async(host, { _ in }, nil), StatusCode.ok)
        XCTAssertEqual(deliver(.runWork(1), to: silent), 0)
    }

    // CONTRACT B1 B7: a task begun on a guest thread is reported before ahr_handle returns from any
    // call handled after begin_task returned: once BACKGROUND_TIME(0) has been handled, no task
    // begins and none is reported. The host relies on this to suspend a guest with no open task.
    func testTaskBeganBeforeTheReplyToALaterCall() throws {
        let recorder = ReporterRecorder()
        let (runtime, fixture) = try startedBackground(recorder)
        fixture.run("spin")
        XCTAssertTrue(
            WorkerEventLog().wait { _ in recorder.background.count >= 20 }, "the thread begins tasks meanwhile")
        XCTAssertEqual(deliver(.backgroundTime(.zero), to: runtime), 0)
        recorder.mark("reply")
        fixture.run("join")
        let timeline = recorder.timeline
        let reply = try XCTUnwrap(timeline.firstIndex(of: .mark("reply")))
        let began = timeline.filter { if case .taskBegan = $0 { true } else { false } }
        XCTAssertFalse(
            timeline[reply...].contains { if case .taskBegan = $0 { true } else { false } },
            "a task reported after the reply")
        XCTAssertEqual(recorder.lines.last, "spin stopped after \(began.count)")
        XCTAssertEqual(began, (1...UInt64(began.count)).map { .taskBegan($0, "spin") })
    }

    // The extension's functions from many threads at once: every id is given once, every call is
    // reported once, and the work all runs.
    func testManyThreadsAtOnce() throws {
        let recorder = ReporterRecorder()
        let (runtime, fixture) = try startedBackground(recorder)
        let host = try XCTUnwrap(fixture.host())
        let table = try XCTUnwrap(fixture.background())
        let threads = 4
        let rounds = 500
        // Addresses, which are Sendable, across the threads.
        let (hostAddress, tableAddress) = (UInt(bitPattern: host), UInt(bitPattern: table))
        DispatchQueue.concurrentPerform(iterations: threads) { _ in
            let host = UnsafePointer<apphost_host_t>(bitPattern: hostAddress)
            let table = UnsafePointer<apphost_background_t>(bitPattern: tableAddress)!
            for _ in 0..<rounds {
                let task = table.pointee.begin_task(host, "busy", nil, nil)
                var timer: apphost_timer_t = 0
                XCTAssertEqual(table.pointee.schedule_timer(host, 1, 1, { _ in }, nil, &timer), StatusCode.ok)
                XCTAssertEqual(table.pointee.dispatch_async(host, { _ in }, nil), StatusCode.ok)
                XCTAssertEqual(table.pointee.cancel_timer(host, timer), StatusCode.ok)
                XCTAssertEqual(table.pointee.end_task(host, task), StatusCode.ok)
            }
        }
        let expected = Set(1...UInt64(threads * rounds))
        let background = recorder.background
        func ids(_ select: (ReporterRecorder.Entry) -> UInt64?) -> Set<UInt64> { Set(background.compactMap(select)) }
        XCTAssertEqual(background.count, 5 * threads * rounds)
        XCTAssertEqual(ids { if case .taskBegan(let id, _) = $0 { id } else { nil } }, expected)
        XCTAssertEqual(ids { if case .taskEnded(let id) = $0 { id } else { nil } }, expected)
        XCTAssertEqual(ids { if case .timerScheduled(let id, _, _) = $0 { id } else { nil } }, expected)
        XCTAssertEqual(ids { if case .timerCancelled(let id) = $0 { id } else { nil } }, expected)
        XCTAssertEqual(ids { if case .workSubmitted(let id) = $0 { id } else { nil } }, expected)
        for work in expected.sorted() {
            XCTAssertEqual(deliver(.runWork(work), to: runtime), 0)
        }
        XCTAssertEqual(deliver(.runWork(1), to: runtime), StatusCode.invalidHandle)
    }

    // MARK: The scenes extension

    // get_extension offers one table for apphost.scenes/1, with every member; during init the
    // extension refuses every request (INVALID_STATE), after the checks that need no state.
    // CONTRACT X3
    func testGetExtensionOffersTheScenesTableWhichRefusesRequestsDuringInit() throws {
        let recorder = ReporterRecorder()
        let (_, fixture) = try startedScenes(recorder)
        let host = try XCTUnwrap(fixture.host())
        let raw = try XCTUnwrap(host.pointee.get_extension(host, APPHOST_SCENES_EXTENSION_ID))
        let table = raw.assumingMemoryBound(to: apphost_scenes_t.self)
        XCTAssertEqual(table.pointee.struct_size, UInt32(MemoryLayout<apphost_scenes_t>.size))
        XCTAssertEqual(fixture.scenes(), UnsafePointer(table), "the guest got the same table in init")
        XCTAssertNotNil(table.pointee.request_scene)
        XCTAssertNotNil(table.pointee.activate_session)
        XCTAssertNotNil(table.pointee.scene_size)
        XCTAssertNotNil(table.pointee.set_loading_progress)
        XCTAssertNotNil(table.pointee.present_modal)
        XCTAssertNotNil(table.pointee.dismiss_modal)
        XCTAssertNotNil(table.pointee.post_notification)
        XCTAssertEqual(recorder.lines, [ScenesFixture.initLine], "before ahr_start returned")
        XCTAssertEqual(recorder.scenes, [])
    }

    // CONTRACT S9: a user action grants one activation, a token: request_scene spends it only on
    // the thread running perform_action, while it runs; the token, taken there with
    // activation_token, opens one scene later from any thread, until the window from
    // PERFORM_ACTION's delivery has passed; a newer action leaves an older token as it was.
    // Without an action, once spent, and once run out: NO_ACTIVATION. A refused `from` or state
    // spends nothing.
    func testRequestSceneNeedsAnActivationThatAnActionGrantsOnce() throws {
        let recorder = ReporterRecorder()
        let (runtime, fixture) = try startedScenes(recorder)
        XCTAssertEqual(deliver(connect(1), to: runtime), 0)
        fixture.run("request 1 0 1 never")
        XCTAssertEqual(recorder.lines.last, "request = no_activation", "no action yet")

        var mark = recorder.lines.count
        XCTAssertEqual(
            deliver(
                action(1, "request 9 0 0 x;request-big here;request here 1 2 first;request here 0 0 again"), to: runtime
            ), 0)
        XCTAssertEqual(
            lines(recorder, since: mark),
            [
                "perform_action 1 request 9 0 0 x;request-big here;request here 1 2 first;request here 0 0 again "
                    + "payload=null",
                "request = invalid_handle", "request big = too_large", "request = ok", "request = no_activation",
            ])

        // After perform_action returned, request_scene has no activation, from any thread; the token
        // taken inside it opens one scene, from any thread, within its window.
        XCTAssertEqual(deliver(action(1, "token", payload: "xyz", token: 8), to: runtime), 0)
        XCTAssertEqual(recorder.lines.last, "token = ok")
        mark = recorder.lines.count
        DispatchQueue.global().sync {
            fixture.run("request here 0 0 plain;left;request-with here 0 0 later;left;request-with here 0 0 twice")
        }
        XCTAssertEqual(
            lines(recorder, since: mark),
            [
                "request = no_activation", "left = ok", "request-with = ok", "left = no_activation 0.000",
                "request-with = no_activation",
            ])

        // Another thread while perform_action runs has none either; activation_token is main-queue.
        mark = recorder.lines.count
        XCTAssertEqual(
            deliver(action(1, "thread request here 0 0 threaded;thread token", token: 9), to: runtime), 0)
        XCTAssertEqual(
            Array(lines(recorder, since: mark).dropFirst()).filter { !$0.contains("[main-queue]") },
            ["request = no_activation", "token = wrong_thread"])

        // No other callback spends it, even within the window: not a new scene's will_connect (as
        // after `ctl action; ctl open`), as none did after an alert (`ctl alert --dismiss`).
        XCTAssertEqual(deliver(action(1, "tap", token: 15), to: runtime), 0)
        XCTAssertEqual(deliver(connect(2, commands: "request here 0 0 other-callback"), to: runtime), 0)
        XCTAssertEqual(recorder.lines.last, "request = no_activation")
        XCTAssertEqual(
            deliver(TestMessages.scene(2, .didDisconnect, app: .background, state: .unattached), to: runtime), 0)

        // A newer action leaves an older token as it was.
        XCTAssertEqual(deliver(action(1, "token", token: 10), to: runtime), 0)
        XCTAssertEqual(deliver(action(1, "tap", token: 11), to: runtime), 0)
        fixture.run("request-with here 0 0 older")
        XCTAssertEqual(recorder.lines.last, "request-with = ok")

        // Run out after its window, from its delivery.
        XCTAssertEqual(deliver(action(1, "token", activation: .milliseconds(50), token: 12), to: runtime), 0)
        usleep(80_000)
        mark = recorder.lines.count
        fixture.run("left;request-with here 0 0 late")
        XCTAssertEqual(lines(recorder, since: mark), ["left = no_activation 0.000", "request-with = no_activation"])
        XCTAssertEqual(deliver(action(1, "request here 0 0 zero", activation: .zero, token: 13), to: runtime), 0)
        XCTAssertEqual(recorder.lines.last, "request = no_activation", "an activation of 0 ends at once")
        XCTAssertEqual(deliver(action(1, "token", activation: .zero, token: 14), to: runtime), 0)
        XCTAssertEqual(recorder.lines.last, "token = no_activation", "nothing to hand out")

        // An action on a scene that is not connected reaches no guest code and grants nothing.
        mark = recorder.lines.count
        XCTAssertEqual(deliver(action(9, "request 1 0 0 unseen"), to: runtime), StatusCode.invalidHandle)
        fixture.run("request 1 0 0 after-stale-action")
        XCTAssertEqual(lines(recorder, since: mark), ["request = no_activation"])

        XCTAssertEqual(
            recorder.scenes,
            [
                .sceneRequested(activation: 7, from: 1, role: 1, style: 2, "first"),
                .sceneRequested(activation: 8, from: 1, role: 0, style: 0, "later"),
                .sceneRequested(activation: 10, from: 1, role: 0, style: 0, "older"),
            ])
        XCTAssertTrue(recorder.scenesPointersWereNeverNull)
        XCTAssertTrue(recorder.lines.contains("perform_action 1 token payload=xyz"))
    }

    // CONTRACT S9: each accepted request gets an id, never 0, each another, which
    // submit_scene_request (ABI 1.8) tells and SCENE_REQUESTED carries (request_scene's too);
    // a refusal names it to did_refuse_request on the main queue. A request the runtime refuses
    // gets no id.
    func testS9ScenesRequestIDsAndTheHostsRefusal() throws {
        let recorder = ReporterRecorder()
        let (runtime, fixture) = try startedScenes(recorder)
        XCTAssertEqual(deliver(connect(1), to: runtime), 0)
        XCTAssertEqual(deliver(action(1, "submit here 1 0 a", token: 7), to: runtime), 0)
        XCTAssertEqual(recorder.lines.last, "submit = ok id=1")
        XCTAssertEqual(deliver(action(1, "request here 1 0 b", token: 8), to: runtime), 0)
        XCTAssertEqual(deliver(action(1, "submit here 1 0 c", token: 9), to: runtime), 0)
        XCTAssertEqual(recorder.lines.last, "submit = ok id=3")
        XCTAssertEqual(recorder.sceneRequestIDs, [1, 2, 3])
        var mark = recorder.lines.count
        fixture.run("submit here 1 0 no-action;submit-small")
        XCTAssertEqual(
            lines(recorder, since: mark),
            ["submit = no_activation id=0", "submit small = invalid_argument id=0"])
        XCTAssertEqual(recorder.sceneRequestIDs, [1, 2, 3])

        mark = recorder.lines.count
        XCTAssertEqual(deliver(.sceneRequestRefused(3, reason: .noActivation), to: runtime), 0)
        XCTAssertEqual(deliver(.sceneRequestRefused(2, reason: .suspended), to: runtime), 0)
        XCTAssertEqual(
            lines(recorder, since: mark), ["did_refuse_request 3 1 main=1", "did_refuse_request 2 3 main=1"])
        XCTAssertEqual(
            deliver(.sceneRequestRefused(0, reason: .noActivation), to: runtime), StatusCode.invalidArgument,
            "0 is never a request's id")
    }

    // CONTRACT S9: a guest built before ABI 1.8, whose apphost_guest_scenes_t ends before
    // did_refuse_request, is never called with a refusal.
    func testS9OlderGuestHearsNoRefusal() throws {
        let recorder = ReporterRecorder()
        let (runtime, _) = try startedScenes(
            recorder, name: "scenes-runtime-1-7",
            flags: ["-DFIXTURE_SCENES_CALLBACKS_SIZE=offsetof(apphost_guest_scenes_t,did_refuse_request)"])
        XCTAssertEqual(deliver(connect(1), to: runtime), 0)
        let mark = recorder.lines.count
        XCTAssertEqual(deliver(.sceneRequestRefused(1, reason: .noActivation), to: runtime), 0)
        XCTAssertEqual(lines(recorder, since: mark), [])
    }

    // CONTRACT S9: one activation, many guest threads asking at once: exactly one scene.
    func testOneActivationOpensOneSceneWhateverTheThreads() throws {
        let recorder = ReporterRecorder()
        let (runtime, fixture) = try startedScenes(recorder)
        let host = try XCTUnwrap(fixture.host())
        let table = try XCTUnwrap(fixture.scenes())
        XCTAssertEqual(deliver(connect(1), to: runtime), 0)
        XCTAssertEqual(deliver(action(1, "tap"), to: runtime), 0)
        let (hostAddress, tableAddress) = (UInt(bitPattern: host), UInt(bitPattern: table))
        let granted = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            let host = UnsafePointer<apphost_host_t>(bitPattern: hostAddress)
            let table = UnsafePointer<apphost_scenes_t>(bitPattern: tableAddress)!
            for _ in 0..<200
            where table.pointee.request_scene_with_activation(host, 7, 1, 0, 0, nil, 0) == StatusCode.ok {
                granted.withLock { $0 += 1 }
            }
        }
        XCTAssertEqual(granted.withLock { $0 }, 1)
        XCTAssertEqual(recorder.scenes, [.sceneRequested(activation: 7, from: 1, role: 0, style: 0, "")])
        XCTAssertTrue(recorder.scenesPointersWereNeverNull, "an empty state is not NULL")
    }

    // CONTRACT S11: scene_size answers from the runtime: 0x0 compact from will_connect until
    // SCENE_SIZE, which stores the size before did_change_size runs; a scene that is not connected
    // is INVALID_HANDLE, and a reconnected one starts over. The guest's struct_size bounds the
    // write, which says how much it wrote.
    func testSceneSizeBeforeAndAfterSceneSize() throws {
        let recorder = ReporterRecorder()
        let (runtime, fixture) = try startedScenes(recorder)
        let host = try XCTUnwrap(fixture.host())
        let table = try XCTUnwrap(fixture.scenes())
        XCTAssertEqual(deliver(connect(1, commands: "size here"), to: runtime), 0)
        XCTAssertEqual(recorder.lines.last, "size here = 0x0 class=0 size=16")
        let size = SceneSize(width: 1024, height: 768, sizeClass: .regular)
        XCTAssertEqual(deliver(.sceneSize(1, size), to: runtime), 0)
        XCTAssertEqual(recorder.lines.last, "did_change_size 1 1024x768 class=1 size=16 query=1024x768")
        onMainQueue(runtime) { fixture.run("size 1") }
        XCTAssertEqual(recorder.lines.last, "size 1 = 1024x768 class=1 size=16")
        let mark = recorder.lines.count
        XCTAssertEqual(deliver(.sceneSize(2, size), to: runtime), StatusCode.invalidHandle)
        XCTAssertEqual(recorder.lines.count, mark, "no guest code for a scene that is not connected")

        func query(declaring declared: UInt32) -> (Int32, apphost_scene_size_t) {
            var out = apphost_scene_size_t(struct_size: declared, width: 7, height: 7, size_class: 7)
            return (onMainQueue(runtime) { table.pointee.scene_size(host, 1, &out) }, out)
        }
        // A struct smaller than ABI 1.1's (16 bytes) lacks members every caller needs (CONTRACT X3).
        for declared: UInt32 in [0, 3, 8, 15] {
            let (status, out) = query(declaring: declared)
            XCTAssertEqual(status, StatusCode.invalidArgument, "struct_size \(declared)")
            XCTAssertEqual([out.struct_size, out.width], [declared, 7], "nothing written")
        }
        var (status, out) = query(declaring: 16)
        XCTAssertEqual(status, StatusCode.ok)
        XCTAssertEqual(
            [out.struct_size, out.width, out.height, UInt32(bitPattern: out.size_class)], [16, 1024, 768, 1])
        (status, out) = query(declaring: 4096)
        XCTAssertEqual(
            [out.struct_size, out.width, out.height, UInt32(bitPattern: out.size_class)], [16, 1024, 768, 1],
            "a later, larger struct gets the members this runtime knows")
        var zero = apphost_scene_size_t(struct_size: 0, width: 7, height: 7, size_class: 7)
        XCTAssertEqual(table.pointee.scene_size(host, 0, &zero), StatusCode.invalidHandle, "handle 0 first")
        XCTAssertEqual(table.pointee.scene_size(nil, 0, nil), StatusCode.invalidHandle, "handle 0 first")

        XCTAssertEqual(
            deliver(TestMessages.scene(1, .didDisconnect, app: .background, state: .unattached), to: runtime), 0)
        onMainQueue(runtime) { fixture.run("size 1") }
        XCTAssertEqual(recorder.lines.last, "size 1 = invalid_handle")
        XCTAssertEqual(deliver(connect(1), to: runtime), 0)
        onMainQueue(runtime) { fixture.run("size 1") }
        XCTAssertEqual(recorder.lines.last, "size 1 = 0x0 class=0 size=16", "a new connection starts over")

        var call = ahr_call()
        call.kind = AHR_CALL_SCENE_SIZE
        call.scene_size.scene = 1
        call.scene_size.size_class = 2
        XCTAssertEqual(ahr_handle(runtime, &call), StatusCode.invalidArgument, "a size class out of range")
    }

    // CONTRACT N3: modal ids count from 1 per guest; each scene has its stack; dismiss_modal takes a
    // modal and those above it off its own scene's stack only, once; a scene's modals are forgotten
    // when it disconnects, and every scene's after will_terminate.
    func testModalStacks() throws {
        let recorder = ReporterRecorder()
        let (runtime, fixture) = try startedScenes(recorder)
        XCTAssertEqual(deliver(connect(1), to: runtime), 0)
        XCTAssertEqual(deliver(connect(2), to: runtime), 0)
        fixture.run("present 1 0 A;present 1 1 B;present 2 0 C;present 1 0 D")
        fixture.run("dismiss 2 1;dismiss 1 2;dismiss 1 4;dismiss 1 1;dismiss 1 1;dismiss 2 3;present 2 1 E")
        XCTAssertEqual(
            Array(recorder.lines.dropFirst()),
            [
                "present A = 1", "present B = 2", "present C = 3", "present D = 4", "dismiss 1 = invalid_handle",
                "dismiss 2 = ok", "dismiss 4 = invalid_handle", "dismiss 1 = ok", "dismiss 1 = invalid_handle",
                "dismiss 3 = ok", "present E = 5",
            ])
        XCTAssertEqual(
            recorder.scenes,
            [
                .modalPresented(1, modal: 1, style: 0, title: "A"), .modalPresented(1, modal: 2, style: 1, title: "B"),
                .modalPresented(2, modal: 3, style: 0, title: "C"), .modalPresented(1, modal: 4, style: 0, title: "D"),
                .modalDismissed(1, modal: 2), .modalDismissed(1, modal: 1), .modalDismissed(2, modal: 3),
                .modalPresented(2, modal: 5, style: 1, title: "E"),
            ])

        // Disconnected, its modals go; reconnected, it has none.
        XCTAssertEqual(
            deliver(TestMessages.scene(2, .didDisconnect, app: .background, state: .unattached), to: runtime), 0)
        XCTAssertEqual(deliver(connect(2), to: runtime), 0)
        fixture.run("dismiss 2 5;present 1 0 F;present 2 0 G")
        XCTAssertEqual(
            Array(recorder.lines.suffix(3)), ["dismiss 5 = invalid_handle", "present F = 6", "present G = 7"])
        XCTAssertEqual(deliver(GuestMessage(call: .willTerminate, appState: .background), to: runtime), 0)
        let before = recorder.lines.count
        XCTAssertEqual(deliver(.shouldDismissModal(1, 6), to: runtime), 1, "forgotten: nothing to keep")
        XCTAssertEqual(recorder.lines.count, before, "no guest code for a modal that is not open")
    }

    // CONTRACT N3: SHOULD_DISMISS_MODAL asks the guest about an open modal: 0 keeps it, 1 lets it
    // (and those above it) go from the runtime's stack too; a modal that is not open has nothing to
    // keep (1, no guest code). DID_DISMISS_MODAL runs did_dismiss_modal, also for a modal already
    // gone; a scene that is not connected is INVALID_HANDLE.
    func testShouldDismissModalAsksTheGuest() throws {
        let recorder = ReporterRecorder()
        let (runtime, fixture) = try startedScenes(recorder)
        XCTAssertEqual(deliver(connect(1), to: runtime), 0)
        fixture.run("present 1 0 A;present 1 0 B;present 1 0 C;keep 2")
        let mark = recorder.lines.count
        let calls: [(GuestCall, Int32)] = [
            (.shouldDismissModal(1, 3), 1), (.shouldDismissModal(1, 3), 1), (.shouldDismissModal(1, 2), 0),
            (.shouldDismissModal(1, 99), 1), (.shouldDismissModal(7, 1), 1), (.didDismissModal(1, 3), 0),
            (.didDismissModal(7, 3), StatusCode.invalidHandle),
        ]
        for (call, answer) in calls {
            XCTAssertEqual(deliver(call, to: runtime), answer, "\(call)")
        }
        fixture.run("dismiss 1 3;keep 0")
        XCTAssertEqual(deliver(.shouldDismissModal(1, 1), to: runtime), 1)
        fixture.run("dismiss 1 2;dismiss 1 1")
        XCTAssertEqual(
            lines(recorder, since: mark),
            [
                "should_dismiss 1 3 = 1", "should_dismiss 1 2 = 0", "did_dismiss 1 3", "dismiss 3 = invalid_handle",
                "should_dismiss 1 1 = 1", "dismiss 2 = invalid_handle", "dismiss 1 = invalid_handle",
            ])
        XCTAssertEqual(recorder.scenes.filter { if case .modalDismissed = $0 { true } else { false } }, [])
    }

    // CONTRACT X3: the [main-queue] functions (app_state, scene_state, scene_size) answer the
    // thread that delivers a callback; a thread of the guest's own gets APPHOST_ERROR_WRONG_THREAD
    // (app_state: its negation) and changes nothing, and the guest's log hears of it once per
    // function. Between callbacks no thread is the main queue.
    func testMainQueueFunctionsRefuseOtherThreads() throws {
        let recorder = ReporterRecorder()
        let (runtime, fixture) = try startedScenes(recorder)
        XCTAssertEqual(deliver(connect(1), to: runtime), 0)
        XCTAssertEqual(
            deliver(.sceneSize(1, SceneSize(width: 300, height: 200, sizeClass: .compact)), to: runtime), 0)
        let mark = recorder.lines.count
        XCTAssertEqual(deliver(action(1, "states here;thread states here;thread states here"), to: runtime), 0)
        let warning =
            " is a [main-queue] function, called here from a thread that is not delivering a callback: "
            + "it returns APPHOST_ERROR_WRONG_THREAD (logged once)"
        XCTAssertEqual(
            Array(lines(recorder, since: mark).dropFirst()),
            [
                "states here = app=3 scene=2 size=300x200", "scene_state" + warning, "scene_size" + warning,
                "app_state" + warning, "states here = app=-10 scene=wrong_thread size=wrong_thread",
                "states here = app=-10 scene=wrong_thread size=wrong_thread",
            ])
        let between = recorder.lines.count
        fixture.run("states 1")
        XCTAssertEqual(lines(recorder, since: between), ["states 1 = app=-10 scene=wrong_thread size=wrong_thread"])
    }

    // CONTRACT S13: a guest that does not declare APPHOST_CAPABILITY_MULTIPLE_SCENES has one
    // scene: request_scene is refused with APPHOST_ERROR_NOT_DECLARED, before the handle and the
    // activation are looked at, and the host hears nothing.
    func testASingleSceneGuestCannotRequestAnother() throws {
        let recorder = ReporterRecorder()
        let (runtime, _) = try startedScenes(recorder, name: "scenes-single", flags: ["-DFIXTURE_CAPABILITIES=0"])
        XCTAssertEqual(deliver(connect(1), to: runtime), 0)
        let mark = recorder.lines.count
        XCTAssertEqual(deliver(action(1, "request here 1 1;request 999 1 1"), to: runtime), 0)
        XCTAssertEqual(
            Array(lines(recorder, since: mark).dropFirst()), ["request = not_declared", "request = not_declared"])
        XCTAssertFalse(recorder.scenes.contains { if case .sceneRequested = $0 { true } else { false } })
    }

    // CONTRACT N1 (ABI 1.2): once the host said its notification limit, post_notification over it
    // is refused at once with APPHOST_ERROR_LIMIT_REACHED and reaches no reporter; the window slides.
    // Before the limit came, every one goes to the host. A limit of 0 is none the runtime takes.
    func testNotificationsOverTheHostsLimitAreRefusedAtOnce() throws {
        let recorder = ReporterRecorder()
        let (runtime, fixture) = try startedScenes(recorder)
        fixture.run("notify Early")
        XCTAssertEqual(
            deliver(.notificationLimit(count: 0, window: .seconds(1)), to: runtime), StatusCode.invalidArgument)
        XCTAssertEqual(deliver(.notificationLimit(count: 2, window: .milliseconds(200)), to: runtime), 0)
        var mark = recorder.lines.count
        fixture.run("notify A;notify B;notify C")
        XCTAssertEqual(lines(recorder, since: mark), ["notify A = ok", "notify B = ok", "notify C = limit_reached"])
        usleep(250_000)
        mark = recorder.lines.count
        fixture.run("notify D;notify E;notify F")
        XCTAssertEqual(lines(recorder, since: mark), ["notify D = ok", "notify E = ok", "notify F = limit_reached"])
        XCTAssertEqual(
            recorder.scenes.map(\.description),
            ["notification Early ", "notification A ", "notification B ", "notification D ", "notification E "])
    }

    // CONTRACT X5: once the host said it could not store a scene's last save, save_scene_state of
    // that scene still hands its bytes to the host, to try, and returns APPHOST_ERROR_INTERNAL,
    // from any thread; another scene's saves are not concerned, and once the host says the
    // scene's saves work again, ok. A reconnection starts with its saves taken to work; a scene
    // that is not connected is an invalid handle.
    func testSavesTheHostCannotStoreReturnAnErrorAndStillReachTheHost() throws {
        let recorder = ReporterRecorder()
        let (runtime, fixture) = try startedScenes(recorder)
        XCTAssertEqual(deliver(connect(4), to: runtime), 0)
        XCTAssertEqual(deliver(connect(5), to: runtime), 0)
        XCTAssertEqual(deliver(.saveStatus(4, failed: true), to: runtime), 0)
        XCTAssertEqual(deliver(.saveStatus(9, failed: true), to: runtime), StatusCode.invalidHandle)
        var mark = recorder.lines.count
        fixture.run("save 4 3;save 5 2;thread save 4 1")
        XCTAssertEqual(lines(recorder, since: mark), ["save 3 = internal", "save 2 = ok", "save 1 = internal"])
        XCTAssertEqual(
            recorder.saves.map(\.description),
            ["scene 4: \(Array("sss".utf8))", "scene 5: \(Array("ss".utf8))", "scene 4: \(Array("s".utf8))"])

        XCTAssertEqual(deliver(.saveStatus(4, failed: false), to: runtime), 0)
        mark = recorder.lines.count
        fixture.run("save 4 1")
        XCTAssertEqual(lines(recorder, since: mark), ["save 1 = ok"])

        XCTAssertEqual(deliver(.saveStatus(5, failed: true), to: runtime), 0)
        XCTAssertEqual(deliver(.scene(5, .didDisconnect), to: runtime), 0)
        XCTAssertEqual(deliver(.saveStatus(5, failed: false), to: runtime), StatusCode.invalidHandle)
        XCTAssertEqual(deliver(connect(5), to: runtime), 0)
        mark = recorder.lines.count
        fixture.run("save 5 1")
        XCTAssertEqual(lines(recorder, since: mark), ["save 1 = ok"], "a new connection")
    }

    // CONTRACT X5 (ABI 1.7): save_scene_state_confirmed hands a save over as save_scene_state
    // does, with the id of its confirmation (per guest, from 1), from any thread; SAVE_CONFIRMATION
    // of that id runs the guest's confirmation once, on the main queue (app_state answers there),
    // with ok or internal, and still after the scene disconnected; an id that does not wait gets
    // an invalid handle and runs nothing. At most 64 wait: the next save is refused with
    // limit_reached and reaches no reporter, until one is confirmed. A NULL confirmation is an
    // invalid argument (after the scene's check, as host.h's rule for handles says).
    func testConfirmedSavesAreConfirmedOnceOnTheMainQueue() throws {
        let recorder = ReporterRecorder()
        let (runtime, fixture) = try startedScenes(recorder)
        XCTAssertEqual(deliver(connect(4), to: runtime), 0)
        var mark = recorder.lines.count
        fixture.run("confirm 4 3;thread confirm 4 2;confirm 9 1;save 4 1;confirm-null 4;confirm-null 0")
        XCTAssertEqual(
            lines(recorder, since: mark),
            [
                "save 3 = ok", "save 2 = ok", "save 1 = invalid_handle", "save 1 = ok",
                "confirm null = invalid_argument", "confirm null = invalid_handle",
            ])
        XCTAssertEqual(
            recorder.saves.map(\.description),
            ["scene 4: \(Array("ccc".utf8)) #1", "scene 4: \(Array("cc".utf8)) #2", "scene 4: \(Array("s".utf8))"])

        mark = recorder.lines.count
        XCTAssertEqual(deliver(.saveConfirmation(2, stored: false), to: runtime), 0)
        XCTAssertEqual(deliver(.saveConfirmation(2, stored: true), to: runtime), StatusCode.invalidHandle, "once")
        XCTAssertEqual(deliver(.saveConfirmation(3, stored: true), to: runtime), StatusCode.invalidHandle)
        XCTAssertEqual(deliver(.scene(4, .didDisconnect), to: runtime), 0)
        XCTAssertEqual(deliver(.saveConfirmation(1, stored: true), to: runtime), 0, "its scene gone")
        let background = AppState.background.rawValue
        XCTAssertEqual(
            lines(recorder, since: mark),
            ["stored 2 @4 = internal main=\(background)", "stored 3 @4 = ok main=\(background)"])

        XCTAssertEqual(deliver(connect(5), to: runtime), 0)
        fixture.run("confirm 5 1 64")
        mark = recorder.lines.count
        let saves = recorder.saves.count
        fixture.run("confirm 5 7")
        XCTAssertEqual(lines(recorder, since: mark), ["save 7 = limit_reached"])
        XCTAssertEqual(recorder.saves.count, saves, "refused: nothing handed over")
        XCTAssertEqual(recorder.saves.last?.confirmation, 66)
        XCTAssertEqual(deliver(.saveConfirmation(40, stored: true), to: runtime), 0)
        mark = recorder.lines.count
        fixture.run("confirm 5 7")
        XCTAssertEqual(lines(recorder, since: mark), ["save 7 = ok"])
        XCTAssertEqual(recorder.saves.last?.confirmation, 67)
    }

    // CONTRACT S7, S8 (ABI 1.2): list_sessions lists the guest's sessions, connected or not, in
    // the order they first connected, on the main queue; activate_session and close_session
    // answer at once for a session the guest does not have; close_session hands the host the
    // guest's own close, and the session is gone from the list once did_discard came.
    func testSessionsAreListedActivatedAndClosed() throws {
        let recorder = ReporterRecorder()
        let (runtime, _) = try startedScenes(recorder)
        // Session ids are commands for the fixture: "keep" and "sleep" do nothing here.
        XCTAssertEqual(deliver(connect(1, commands: "keep"), to: runtime), 0)
        XCTAssertEqual(deliver(connect(2, commands: "sleep"), to: runtime), 0)
        XCTAssertEqual(
            deliver(TestMessages.scene(2, .didDisconnect, app: .background, state: .unattached), to: runtime), 0)
        var mark = recorder.lines.count
        XCTAssertEqual(
            deliver(action(1, "list;activate sleep 0;activate nope 0;close nope;close-last;thread list"), to: runtime),
            0)
        XCTAssertEqual(
            Array(lines(recorder, since: mark).dropFirst()).filter { !$0.contains("[main-queue]") },
            [
                "sessions = 0:1, 0:0", "activate sleep = ok", "activate nope = invalid_handle",
                "close nope = invalid_handle", "close last = ok", "sessions = wrong_thread",
            ])
        XCTAssertEqual(recorder.scenes, [.sessionActivation("sleep", style: 0), .sessionClose("sleep")])

        XCTAssertEqual(deliver(.didDiscard(sessionID: "sleep"), to: runtime), 0)
        mark = recorder.lines.count
        XCTAssertEqual(deliver(action(1, "list;activate sleep 0;close sleep"), to: runtime), 0)
        XCTAssertEqual(
            Array(lines(recorder, since: mark).dropFirst()),
            ["sessions = 0:1", "activate sleep = invalid_handle", "close sleep = invalid_handle"])
    }

    // CONTRACT N3 S9 S11 S7: a guest without the scenes callbacks, or with a table too small for
    // some, still gets its sizes kept and its modals always dismissable; never hearing of an
    // action, it has no activation to spend.
    func testGuestWithoutScenesCallbacks() throws {
        let recorder = ReporterRecorder()
        let (runtime, fixture) = try startedScenes(
            recorder, name: "scenes-runtime-bare", flags: ["-DFIXTURE_NO_SCENES_CALLBACKS"])
        XCTAssertEqual(deliver(connect(1, commands: "present here 0 A"), to: runtime), 0)
        let mark = recorder.lines.count
        XCTAssertEqual(deliver(.shouldDismissModal(1, 1), to: runtime), 1, "always dismissable")
        XCTAssertEqual(deliver(action(1, "tap"), to: runtime), 0)
        XCTAssertEqual(
            deliver(.sceneSize(1, SceneSize(width: 300, height: 200, sizeClass: .compact)), to: runtime), 0)
        XCTAssertEqual(deliver(.didDismissModal(1, 1), to: runtime), 0)
        XCTAssertEqual(deliver(.didDiscard(sessionID: "gone"), to: runtime), 0)
        onMainQueue(runtime) { fixture.run("dismiss 1 1;request 1 0 0;size 1") }
        // A guest that never hears of an action has no activation to spend outside it (S9).
        XCTAssertEqual(
            lines(recorder, since: mark),
            ["dismiss 1 = invalid_handle", "request = no_activation", "size 1 = 300x200 class=0 size=16"])

        // A table whose struct_size ends before should_dismiss_modal: the members past it are skipped.
        let small = ReporterRecorder()
        let (cut, cutFixture) = try startedScenes(
            small, name: "scenes-runtime-small",
            flags: ["-DFIXTURE_SCENES_CALLBACKS_SIZE=offsetof(apphost_guest_scenes_t,should_dismiss_modal)"])
        XCTAssertEqual(deliver(connect(1, commands: "present here 0 A;keep 1"), to: cut), 0)
        XCTAssertEqual(deliver(.shouldDismissModal(1, 1), to: cut), 1, "should_dismiss_modal is past struct_size")
        XCTAssertEqual(deliver(action(1, "tap"), to: cut), 0)
        XCTAssertEqual(deliver(.didDiscard(sessionID: "gone"), to: cut), 0)
        cutFixture.run("dismiss 1 1")
        XCTAssertEqual(
            Array(small.lines.dropFirst()),
            ["present A = 1", "perform_action 1 tap payload=null", "unknown command tap", "dismiss 1 = invalid_handle"])
    }

    // CONTRACT S7: DID_DISCARD hands did_discard the session id, NUL-terminated; a NULL id with a
    // length is refused.
    func testDidDiscard() throws {
        let recorder = ReporterRecorder()
        let (runtime, _) = try startedScenes(recorder)
        XCTAssertEqual(deliver(.didDiscard(sessionID: "closed-1"), to: runtime), 0)
        XCTAssertEqual(deliver(.didDiscard(sessionID: ""), to: runtime), 0)
        XCTAssertEqual(Array(recorder.lines.dropFirst()), ["did_discard closed-1", "did_discard "])
        var call = ahr_call()
        call.kind = AHR_CALL_DID_DISCARD
        call.did_discard.session_id_length = 3
        XCTAssertEqual(ahr_handle(runtime, &call), StatusCode.invalidArgument)
    }

    // PERFORM_ACTION's name is cut at APPHOST_SCENES_TEXT_MAX_BYTES on a character boundary; a
    // payload past APPHOST_ACTION_PAYLOAD_MAX_BYTES is TOO_LARGE and grants nothing; NULL name or
    // payload bytes with a length are refused.
    func testActionNameAndPayloadLimits() throws {
        let recorder = ReporterRecorder()
        let (runtime, fixture) = try startedScenes(recorder)
        XCTAssertEqual(deliver(connect(1), to: runtime), 0)
        let limit = Int(APPHOST_SCENES_TEXT_MAX_BYTES)
        let name = String(repeating: "n", count: limit - 1) + "é"
        XCTAssertEqual(deliver(action(1, name), to: runtime), 0)
        XCTAssertEqual(
            recorder.lines.suffix(2),
            [
                "perform_action 1 \(String(repeating: "n", count: limit - 1)) payload=null",
                "unknown command \(String(repeating: "n", count: limit - 1))",
            ])
        fixture.run("request 1 0 0")  // uses that action's activation up
        let large = Data(count: Int(APPHOST_ACTION_PAYLOAD_MAX_BYTES) + 1)
        let mark = recorder.lines.count
        XCTAssertEqual(
            deliver(
                .performAction(1, name: "request here 0 0", payload: large, activation: .seconds(5), token: 7),
                to: runtime),
            StatusCode.tooLarge)
        fixture.run("request 1 0 0")
        XCTAssertEqual(lines(recorder, since: mark), ["request = no_activation"])
        let largest = Data(count: Int(APPHOST_ACTION_PAYLOAD_MAX_BYTES))
        XCTAssertEqual(
            deliver(.performAction(1, name: "x", payload: largest, activation: .seconds(5), token: 7), to: runtime), 0)

        var call = ahr_call()
        call.kind = AHR_CALL_PERFORM_ACTION
        call.perform_action.scene = 1
        call.perform_action.action_name_length = 2
        XCTAssertEqual(ahr_handle(runtime, &call), StatusCode.invalidArgument, "a NULL name of 2 bytes")
        call.perform_action.action_name_length = 0
        call.perform_action.payload_length = 2
        XCTAssertEqual(ahr_handle(runtime, &call), StatusCode.invalidArgument, "a NULL payload of 2 bytes")
    }

    // CONTRACT N2 N1: loading progress takes a fraction, -1 or -2 for a connected scene; sessions
    // the guest has are asked for by id with a style (another id is invalid_handle at once, ABI
    // 1.2); notifications need a title, their body may be NULL; texts are
    // cut at APPHOST_SCENES_TEXT_MAX_BYTES on a character boundary. The reporter gets each accepted one.
    func testLoadingProgressSessionsAndNotificationsReachTheSink() throws {
        let recorder = ReporterRecorder()
        let (runtime, fixture) = try startedScenes(recorder)
        // Session ids are commands for the fixture: "keep" and "sleep" do nothing here.
        XCTAssertEqual(deliver(connect(3, commands: "keep"), to: runtime), 0)
        XCTAssertEqual(deliver(connect(4, commands: "sleep"), to: runtime), 0)
        XCTAssertEqual(deliver(connect(1), to: runtime), 0)
        fixture.run(
            "progress 1 0;progress 1 1;progress 1 0.5;progress 1 -1;progress 1 -2;progress 1 nan;progress 1 1.0001;"
                + "progress 1 -3;progress 2 0.5;activate keep 0;activate sleep 2;activate s-1 0;activate s 3;"
                + "notify T B;notify T;long")
        let limit = Int(APPHOST_SCENES_TEXT_MAX_BYTES)
        XCTAssertEqual(
            Array(recorder.lines.dropFirst()),
            [
                "progress 0 = ok", "progress 1 = ok", "progress 0.5 = ok", "progress -1 = ok", "progress -2 = ok",
                "progress nan = invalid_argument", "progress 1.0001 = invalid_argument",
                "progress -3 = invalid_argument", "progress 0.5 = invalid_handle", "activate keep = ok",
                "activate sleep = ok", "activate s-1 = invalid_handle", "activate s = invalid_argument",
                "notify T = ok", "notify T = ok",
                "long present=ok modal=1 notify=ok",
            ])
        XCTAssertEqual(
            recorder.scenes,
            [
                .loadingProgress(1, 0), .loadingProgress(1, 1), .loadingProgress(1, 0.5), .loadingProgress(1, -1),
                .loadingProgress(1, -2), .sessionActivation("keep", style: 0), .sessionActivation("sleep", style: 2),
                .notification(title: "T", body: "B"), .notification(title: "T", body: ""),
                .modalPresented(1, modal: 1, style: 1, title: String(repeating: "m", count: limit - 1)),
                .notification(
                    title: String(repeating: "m", count: limit - 1), body: String(repeating: "b", count: limit - 1)),
            ])
        XCTAssertTrue(recorder.scenesPointersWereNeverNull, "a NULL body is \"\"")
    }

    // set_scene_title (ABI 1.3): a connected scene's title reaches the reporter, cut at
    // APPHOST_SCENES_TEXT_MAX_BYTES on a character boundary; NULL and "" take it away (an empty
    // title, never a NULL pointer); scene 0 or one not connected is invalid_handle, reporting nothing.
    func testSceneTitlesReachTheReporter() throws {
        let recorder = ReporterRecorder()
        let (runtime, fixture) = try startedScenes(recorder)
        XCTAssertEqual(deliver(connect(1), to: runtime), 0)
        let limit = Int(APPHOST_SCENES_TEXT_MAX_BYTES)
        let long = String(repeating: "t", count: limit - 1) + "é"
        fixture.run("title 1 Inbox;title 1;title 0 x;title 2 x;title 1 \(long)")
        XCTAssertEqual(
            Array(recorder.lines.dropFirst()),
            ["title 1 = ok", "title 1 = ok", "title 0 = invalid_handle", "title 2 = invalid_handle", "title 1 = ok"])
        XCTAssertEqual(
            recorder.scenes,
            [.sceneTitle(1, "Inbox"), .sceneTitle(1, ""), .sceneTitle(1, String(repeating: "t", count: limit - 1))])
        XCTAssertTrue(recorder.scenesPointersWereNeverNull, "a NULL title is \"\"")
    }

    // CONTRACT X3: every function with NULL pointers, hosts that are not the guest's, out-of-range
    // values and unknown scenes or modals gets an error code; none reaches the reporter. During deinit
    // and after ahr_stop, requests are refused too.
    func testScenesFunctionsWithNullAndUnknownArguments() throws {
        let recorder = ReporterRecorder()
        let (runtime, fixture) = try startedScenes(recorder)
        XCTAssertEqual(deliver(connect(1, commands: "abuse"), to: runtime), 0)
        let statuses: [String] = [
            "abuse request=invalid_argument,invalid_argument,invalid_argument,invalid_argument,invalid_argument,",
            "invalid_argument,invalid_handle activate=invalid_argument,invalid_argument,invalid_argument,",
            "invalid_argument,invalid_argument,invalid_argument size=invalid_argument,invalid_argument,",
            "invalid_handle progress=invalid_argument,invalid_argument,invalid_argument,invalid_handle ",
            "present=invalid_argument,invalid_argument,invalid_argument,invalid_argument,invalid_argument,",
            "invalid_handle modal=0 dismiss=invalid_handle,invalid_handle,invalid_argument ",
            "notify=invalid_argument,invalid_argument,invalid_argument",
        ]
        XCTAssertEqual(recorder.lines.last, statuses.joined())
        XCTAssertEqual(recorder.scenes, [])

        XCTAssertEqual(deliver(action(1, "tap"), to: runtime), 0)
        let host = try XCTUnwrap(fixture.host())
        let table = try XCTUnwrap(fixture.scenes())
        let getExtension = try XCTUnwrap(host.pointee.get_extension)
        runtimes.removeAll { $0 == runtime }
        ahr_stop(runtime)
        XCTAssertEqual(recorder.lines.last, "deinit notify=invalid_state activate=invalid_state")
        let before = recorder.timeline.count
        var size = apphost_scene_size_t(struct_size: 16, width: 0, height: 0, size_class: 0)
        var modal: apphost_modal_t = 9
        let invalidArgument = StatusCode.invalidArgument
        XCTAssertEqual(table.pointee.request_scene(host, 1, 0, 0, nil, 0), invalidArgument)
        XCTAssertEqual(table.pointee.activate_session(host, "s", 0), invalidArgument)
        XCTAssertEqual(table.pointee.scene_size(host, 1, &size), invalidArgument)
        XCTAssertEqual(table.pointee.set_loading_progress(host, 1, 0.5), invalidArgument)
        XCTAssertEqual(table.pointee.present_modal(host, 1, 0, "t", &modal), invalidArgument)
        XCTAssertEqual(modal, 0)
        XCTAssertEqual(table.pointee.dismiss_modal(host, 1, 1), invalidArgument)
        XCTAssertEqual(table.pointee.post_notification(host, "t", nil), invalidArgument)
        XCTAssertNil(getExtension(host, APPHOST_SCENES_EXTENSION_ID))
        XCTAssertEqual(recorder.timeline.count, before, "nothing reached the reporter after stop")
    }

    // MARK: The audio extension

    // get_extension offers one table for apphost.audio/1, with every member. During init every
    // function but get_session is refused (INVALID_STATE) after the checks that need no state, so
    // that a combination the table refuses is INVALID_COMBINATION even then; get_session tells the
    // session of launch: soloAmbient, default mode, no options, inactive, gain 1, no format or
    // route before AUDIO_SETUP. CONTRACT C1 X3
    func testGetExtensionOffersTheAudioTableWhichRefusesChangesDuringInit() throws {
        let recorder = ReporterRecorder()
        let (_, fixture) = try startedAudio(recorder)
        let host = try XCTUnwrap(fixture.host())
        let raw = try XCTUnwrap(host.pointee.get_extension(host, APPHOST_AUDIO_EXTENSION_ID))
        let table = raw.assumingMemoryBound(to: apphost_audio_t.self)
        XCTAssertEqual(table.pointee.struct_size, UInt32(MemoryLayout<apphost_audio_t>.size))
        XCTAssertEqual(fixture.audio(), UnsafePointer(table), "the guest got the same table in init")
        XCTAssertNotNil(table.pointee.set_configuration)
        XCTAssertNotNil(table.pointee.activate)
        XCTAssertNotNil(table.pointee.deactivate)
        XCTAssertNotNil(table.pointee.set_rendering)
        XCTAssertNotNil(table.pointee.set_gain)
        XCTAssertNotNil(table.pointee.override_output)
        XCTAssertNotNil(table.pointee.get_session)
        XCTAssertEqual(recorder.lines, [AudioFixture.line(at: "init")], "before ahr_start returned")
        XCTAssertEqual(recorder.audio, [])
        XCTAssertEqual(fixture.session(), AudioSession())
    }

    // CONTRACT C1 C3 C4: every category, mode and option bits the table refuses together (a mixing
    // option outside playback and playAndRecord, defaultToSpeaker outside playAndRecord, a mode
    // outside its category) gets INVALID_COMBINATION and changes nothing, the reporter hearing
    // nothing; every one it takes is kept, with the mixWithOthers that duckOthers and
    // interruptSpokenAudioAndMixWithOthers imply, and reported so. Options not given are off: a
    // new category resets them.
    func testEveryCombinationTheTableRefusesChangesNothing() throws {
        let recorder = ReporterRecorder()
        let (runtime, fixture) = try startedAudio(recorder)
        ahr_set_audio_request_limit(runtime, 0)  // 800 requests: X7's limit is another test's
        let host = try XCTUnwrap(fixture.host())
        let table = try XCTUnwrap(fixture.audio())
        // The C3 and C4 tables, as the contract words them.
        let optionsTaken: [Int32: UInt32] = [
            AudioConstants.ambient: 0, AudioConstants.soloAmbient: 0, AudioConstants.record: 0,
            AudioConstants.playback: AudioConstants.mixWithOthers | AudioConstants.duckOthers
                | AudioConstants.interruptSpokenAudio,
            AudioConstants.playAndRecord: AudioConstants.mixWithOthers | AudioConstants.duckOthers
                | AudioConstants.interruptSpokenAudio
                | AudioConstants.defaultToSpeaker,
        ]
        let modesTaken: [Int32: Set<Int32>] = [
            AudioConstants.ambient: [AudioConstants.defaultMode],
            AudioConstants.soloAmbient: [AudioConstants.defaultMode],
            AudioConstants.record: [AudioConstants.defaultMode],
            AudioConstants.playback: [
                AudioConstants.defaultMode, AudioConstants.spokenAudio, AudioConstants.moviePlayback,
            ],
            AudioConstants.playAndRecord: [
                AudioConstants.defaultMode, AudioConstants.voiceChat, AudioConstants.videoChat,
            ],
        ]
        // A configuration no refused one could be mistaken for.
        let before = AudioSession(
            category: AudioConstants.playAndRecord, mode: AudioConstants.videoChat, options: 0b1111)
        var reports: [AudioReport] = []
        var accepted = 0
        for category in Int32(0)...4 {
            for mode in Int32(0)...4 {
                for options in UInt32(0)...0b1111 {
                    let label = "category \(category) mode \(mode) options \(options)"
                    XCTAssertEqual(table.pointee.set_configuration(host, before.category, before.mode, 0b1111), 0)
                    reports.append(.configured(before.category, before.mode, 0b1111))
                    let status = table.pointee.set_configuration(host, category, mode, options)
                    if options & ~optionsTaken[category]! == 0 && modesTaken[category]!.contains(mode) {
                        let mixing = AudioConstants.duckOthers | AudioConstants.interruptSpokenAudio
                        let kept = options & mixing != 0 ? options | AudioConstants.mixWithOthers : options
                        XCTAssertEqual(status, StatusCode.ok, label)
                        XCTAssertEqual(
                            fixture.session(), AudioSession(category: category, mode: mode, options: kept), label)
                        reports.append(.configured(category, mode, kept))
                        accepted += 1
                    } else {
                        XCTAssertEqual(status, StatusCode.invalidCombination, label)
                        XCTAssertEqual(fixture.session(), before, label)
                    }
                }
            }
        }
        XCTAssertEqual(accepted, 1 + 1 + 3 * 8 + 1 + 3 * 16, "every combination the tables take")
        XCTAssertEqual(recorder.audio, reports)

        // C1: setting a category resets the options, its own included.
        XCTAssertEqual(table.pointee.set_configuration(host, AudioConstants.playback, 0, AudioConstants.duckOthers), 0)
        XCTAssertEqual(fixture.session()?.options, AudioConstants.duckOthers | AudioConstants.mixWithOthers)
        XCTAssertEqual(table.pointee.set_configuration(host, AudioConstants.playback, 0, 0), 0)
        XCTAssertEqual(fixture.session(), AudioSession(category: AudioConstants.playback))
    }

    // CONTRACT X3: unknown categories, modes, option bits, flags, rendering values, gains and
    // overrides are INVALID_ARGUMENT, before the table is looked at; so are NULL pointers, NULL
    // and foreign hosts. None changes the session or reaches the reporter.
    func testUnknownValuesNullPointersAndForeignHostsAreInvalidArguments() throws {
        let recorder = ReporterRecorder()
        let (_, fixture) = try startedAudio(recorder)
        let host = try XCTUnwrap(fixture.host())
        let table = try XCTUnwrap(fixture.audio()).pointee
        var foreign = host.pointee
        // playAndRecord takes every option and an override: only the unknown value is wrong.
        XCTAssertEqual(table.set_configuration(host, AudioConstants.playAndRecord, 0, 0), 0)
        let configured = AudioSession(category: AudioConstants.playAndRecord)
        let invalid = StatusCode.invalidArgument
        let configurations: [(Int32, Int32, UInt32)] = [
            (-1, 0, 0), (5, 0, 0), (.max, 0, 0), (.min, 0, 0), (4, -1, 0), (4, 5, 0), (4, 0, 1 << 4),
            (4, 0, 1 << 31), (4, 0, .max), (5, 0, AudioConstants.mixWithOthers),
            (0, 9, AudioConstants.defaultToSpeaker),
        ]
        for (category, mode, options) in configurations {
            XCTAssertEqual(
                table.set_configuration(host, category, mode, options), invalid, "\(category) \(mode) \(options)")
        }
        for flags: UInt32 in [2, 3, 1 << 31] {
            XCTAssertEqual(table.deactivate(host, flags), invalid, "flags \(flags)")
        }
        for rendering: Int32 in [-1, 2, .max] {
            XCTAssertEqual(table.set_rendering(host, rendering), invalid, "rendering \(rendering)")
        }
        for gain in [-0.001, 1.001, .nan, .infinity, -.infinity, -1] {
            XCTAssertEqual(table.set_gain(host, gain), invalid, "gain \(gain)")
        }
        for value: Int32 in [-1, 2, .max] {
            XCTAssertEqual(table.override_output(host, value), invalid, "override \(value)")
        }
        XCTAssertEqual(table.activate(host, nil), invalid)
        XCTAssertEqual(table.get_session(host, nil), invalid)

        var session = apphost_audio_session_t()
        session.struct_size = UInt32(MemoryLayout<apphost_audio_session_t>.size)
        withUnsafePointer(to: &foreign) { foreign in
            for stranger in [nil, foreign] {
                var request: apphost_audio_request_t = 9
                XCTAssertEqual(table.set_configuration(stranger, AudioConstants.playback, 0, 0), invalid)
                XCTAssertEqual(table.activate(stranger, &request), invalid)
                XCTAssertEqual(request, APPHOST_AUDIO_REQUEST_INVALID, "written even so")
                XCTAssertEqual(table.deactivate(stranger, 0), invalid)
                XCTAssertEqual(table.set_rendering(stranger, 1), invalid)
                XCTAssertEqual(table.set_gain(stranger, 0.5), invalid)
                XCTAssertEqual(table.override_output(stranger, AudioConstants.overrideSpeaker), invalid)
                XCTAssertEqual(table.get_session(stranger, &session), invalid)
            }
        }
        XCTAssertEqual(fixture.session(), configured)
        XCTAssertEqual(recorder.audio, [.configured(AudioConstants.playAndRecord, 0, 0)])
    }

    // audio.h's override_output (CONTRACT C10's override reason): only a playAndRecord session has
    // a choice of output, others get INVALID_STATE; the host hears each override, and the route
    // changes only when it says so (AUDIO_ROUTE_CHANGED).
    func testOverrideOutputOnlyForPlayAndRecord() throws {
        let recorder = ReporterRecorder()
        let (runtime, fixture) = try startedAudio(recorder)
        XCTAssertEqual(deliverAudio(AHR_CALL_AUDIO_SETUP, to: runtime, Self.setUp), 0)
        fixture.run(
            "override 1;configure 2 0 0;override 1;configure 3 0 0;override 0;configure 4 3 8;override 1;"
                + "override 0;override 2")
        XCTAssertEqual(
            Array(recorder.lines.dropFirst()),
            [
                "override 1 = invalid_state", "configure 2 0 0 = ok", "override 1 = invalid_state",
                "configure 3 0 0 = ok", "override 0 = invalid_state", "configure 4 3 8 = ok", "override 1 = ok",
                "override 0 = ok", "override 2 = invalid_argument",
            ])
        XCTAssertEqual(
            recorder.audio,
            [
                .configured(2, 0, 0), .configured(3, 0, 0), .configured(4, 3, 8),
                .outputOverridden(AudioConstants.overrideSpeaker), .outputOverridden(AudioConstants.overrideNone),
            ])
        XCTAssertEqual(fixture.session()?.output, AudioConstants.speaker, "the route the host last gave")
    }

    // CONTRACT C5: activation request ids count from 1 per guest, each reported; the session is
    // active once the host answers APPHOST_AUDIO_ACTIVATED, before activation_finished runs, and
    // stays as it was on a refusal; activating an active session succeeds and changes nothing. An
    // answer to a request never given out is INVALID_HANDLE, one with an unknown result
    // INVALID_ARGUMENT: no guest code runs and nothing changes, the app state included.
    func testActivationRequestsCountFromOneAndTheAnswerSetsTheSession() throws {
        let recorder = ReporterRecorder()
        let (runtime, fixture) = try startedAudio(recorder)
        let host = try XCTUnwrap(fixture.host())
        XCTAssertEqual(deliverAudio(AHR_CALL_AUDIO_SETUP, to: runtime, Self.setUp), 0)
        fixture.run("activate;activate")
        XCTAssertEqual(finish(2, AudioConstants.refusedCallInProgress, on: runtime), 0)
        XCTAssertEqual(fixture.session()?.active, 0, "refused")
        XCTAssertEqual(finish(1, AudioConstants.activated, on: runtime), 0)
        XCTAssertEqual(fixture.session()?.active, 1)
        fixture.run("activate")
        XCTAssertEqual(fixture.session()?.active, 1, "activating an active session changes nothing")
        XCTAssertEqual(finish(3, AudioConstants.activated, on: runtime), 0)
        XCTAssertEqual(
            Array(recorder.lines.dropFirst()),
            [
                "activate = ok 1", "activate = ok 2", "activation_finished 2 1 active=0",
                "activation_finished 1 0 active=1", "activate = ok 3", "activation_finished 3 0 active=1",
            ])
        XCTAssertEqual(recorder.audio, [.activationRequested(1), .activationRequested(2), .activationRequested(3)])

        let mark = recorder.lines.count
        XCTAssertEqual(deliverAudio(AHR_CALL_AUDIO_INTERRUPTION_BEGAN, to: runtime, Self.interrupted(1)), 0)
        let answers: [(request: UInt64, result: Int32, status: Int32)] = [
            (0, AudioConstants.activated, StatusCode.invalidHandle),
            (4, AudioConstants.activated, StatusCode.invalidHandle),
            (.max, AudioConstants.activated, StatusCode.invalidHandle), (1, -1, StatusCode.invalidArgument),
            (1, 4, StatusCode.invalidArgument),
        ]
        for (request, result, status) in answers {
            XCTAssertEqual(
                deliverAudio(AHR_CALL_AUDIO_ACTIVATION_FINISHED, to: runtime, app: APPHOST_APP_STATE_BACKGROUND) {
                    $0.audio_activation_finished.audio_request = request
                    $0.audio_activation_finished.activation_result = result
                }, status, "request \(request) result \(result)")
        }
        XCTAssertEqual(lines(recorder, since: mark), ["interruption_began 1 active=0"], "no guest code")
        XCTAssertEqual(fixture.session()?.active, 0)
        XCTAssertEqual(
            onMainQueue(runtime) { host.pointee.app_state(host) }, Int32(APPHOST_APP_STATE_ACTIVE.rawValue),
            "the app state of the last call delivered")
    }

    // audio.h's deactivate (CONTRACT C5, C7): the session is inactive when deactivate returns; an
    // ACTIVATED answer to a request made before the latest deactivate leaves it inactive, while
    // activation_finished still says what the host decided; one made after activates. The host
    // hears each deactivate, with whether to notify the others; deactivating an inactive session
    // succeeds.
    func testAnAnswerToARequestMadeBeforeDeactivateLeavesTheSessionInactive() throws {
        let recorder = ReporterRecorder()
        let (runtime, fixture) = try startedAudio(recorder)
        XCTAssertEqual(deliverAudio(AHR_CALL_AUDIO_SETUP, to: runtime, Self.setUp), 0)
        fixture.run("activate;deactivate 1")
        XCTAssertEqual(finish(1, AudioConstants.activated, on: runtime), 0)
        XCTAssertEqual(fixture.session()?.active, 0)
        fixture.run("activate;activate;deactivate 0;activate")
        XCTAssertEqual(finish(3, AudioConstants.activated, on: runtime), 0)
        XCTAssertEqual(fixture.session()?.active, 0, "request 3 came before the deactivate")
        XCTAssertEqual(finish(4, AudioConstants.activated, on: runtime), 0)
        XCTAssertEqual(fixture.session()?.active, 1, "request 4 came after it")
        fixture.run("deactivate 0;session;deactivate 1")
        XCTAssertEqual(
            Array(recorder.lines.dropFirst()),
            [
                "activate = ok 1", "deactivate 1 = ok", "activation_finished 1 0 active=0", "activate = ok 2",
                "activate = ok 3", "deactivate 0 = ok", "activate = ok 4", "activation_finished 3 0 active=0",
                "activation_finished 4 0 active=1", "deactivate 0 = ok",
                "session = cat=1 mode=0 options=0 active=0 route=1/1 format=48000/480/2 gain=1 size=48",
                "deactivate 1 = ok",
            ])
        XCTAssertEqual(
            recorder.audio,
            [
                .activationRequested(1), .deactivated(notifyOthers: true), .activationRequested(2),
                .activationRequested(3), .deactivated(notifyOthers: false), .activationRequested(4),
                .deactivated(notifyOthers: false), .deactivated(notifyOthers: true),
            ])
    }

    // CONTRACT C6 C7: interruption_began finds the session already inactive; interruption_ended
    // carries its reason and should_resume as 1 or 0. Every reason of the enum is delivered, others
    // are INVALID_ARGUMENT and leave an active session active. The guest's callback runs without
    // the runtime's locks: it may activate again at once.
    func testInterruptionsFindTheSessionInactiveAndCarryTheirReasons() throws {
        let recorder = ReporterRecorder()
        let (runtime, fixture) = try startedAudio(recorder)
        XCTAssertEqual(deliverAudio(AHR_CALL_AUDIO_SETUP, to: runtime, Self.setUp), 0)
        fixture.run("activate")
        XCTAssertEqual(finish(1, AudioConstants.activated, on: runtime), 0)
        var mark = recorder.lines.count
        for reason in Int32(1)...5 {
            XCTAssertEqual(deliverAudio(AHR_CALL_AUDIO_INTERRUPTION_BEGAN, to: runtime, Self.interrupted(reason)), 0)
        }
        XCTAssertEqual(
            deliverAudio(AHR_CALL_AUDIO_INTERRUPTION_ENDED, to: runtime) {
                $0.audio_interruption_ended.interruption_reason = 2
                $0.audio_interruption_ended.should_resume = true
            }, 0)
        XCTAssertEqual(
            deliverAudio(AHR_CALL_AUDIO_INTERRUPTION_ENDED, to: runtime) {
                $0.audio_interruption_ended.interruption_reason = 1
            }, 0)
        XCTAssertEqual(
            lines(recorder, since: mark),
            [
                "interruption_began 1 active=0", "interruption_began 2 active=0", "interruption_began 3 active=0",
                "interruption_began 4 active=0", "interruption_began 5 active=0",
                "interruption_ended 2 resume=1 active=0", "interruption_ended 1 resume=0 active=0",
            ])

        fixture.run("activate")
        XCTAssertEqual(finish(2, AudioConstants.activated, on: runtime), 0)
        mark = recorder.lines.count
        for kind in [AHR_CALL_AUDIO_INTERRUPTION_BEGAN, AHR_CALL_AUDIO_INTERRUPTION_ENDED] {
            for reason: Int32 in [0, 6, -1] {
                XCTAssertEqual(
                    deliverAudio(kind, to: runtime, Self.interrupted(reason)), StatusCode.invalidArgument,
                    "\(kind) \(reason)")
            }
        }
        XCTAssertEqual(lines(recorder, since: mark), [], "no guest code")
        XCTAssertEqual(fixture.session()?.active, 1, "still active")

        fixture.run("react activate")
        XCTAssertEqual(deliverAudio(AHR_CALL_AUDIO_INTERRUPTION_BEGAN, to: runtime, Self.interrupted(1)), 0)
        XCTAssertEqual(
            lines(recorder, since: mark), ["interruption_began 1 active=0", "activate = ok 3"],
            "activate from inside the callback")
        XCTAssertEqual(recorder.audio.last, .activationRequested(3))
    }

    // CONTRACT C10: AUDIO_SETUP stores the format and route and runs no guest code; a route change
    // is stored before route_changed runs, which gets both routes with their struct_size. Values
    // out of range, or a format of 0, are INVALID_ARGUMENT, reach no guest code and change nothing.
    func testRouteChangesAreStoredBeforeTheGuestHears() throws {
        let recorder = ReporterRecorder()
        let (runtime, fixture) = try startedAudio(recorder)
        let setUp = AudioSession(
            output: AudioConstants.speaker, input: AudioConstants.builtInMic, sampleRate: 48000,
            periodFrames: 480, channelCount: 2)
        XCTAssertEqual(deliverAudio(AHR_CALL_AUDIO_SETUP, to: runtime, Self.setUp), 0)
        XCTAssertEqual(fixture.session(), setUp)
        XCTAssertEqual(
            deliverAudio(AHR_CALL_AUDIO_ROUTE_CHANGED, to: runtime) {
                $0.audio_route_changed.route_change_reason = 1
                ($0.audio_route_changed.previous_output, $0.audio_route_changed.previous_input) = (
                    AudioConstants.speaker, AudioConstants.builtInMic
                )
                ($0.audio_route_changed.output, $0.audio_route_changed.input) = (
                    AudioConstants.headphones, AudioConstants.headsetMic
                )
            }, 0)
        XCTAssertEqual(
            deliverAudio(AHR_CALL_AUDIO_ROUTE_CHANGED, to: runtime) {
                $0.audio_route_changed.route_change_reason = 2
                ($0.audio_route_changed.previous_output, $0.audio_route_changed.previous_input) = (
                    AudioConstants.headphones, AudioConstants.headsetMic
                )
                ($0.audio_route_changed.output, $0.audio_route_changed.input) = (
                    AudioConstants.speaker, AudioConstants.builtInMic
                )
            }, 0)
        XCTAssertEqual(
            deliverAudio(AHR_CALL_AUDIO_ROUTE_CHANGED, to: runtime) {
                $0.audio_route_changed.route_change_reason = 3
                ($0.audio_route_changed.previous_output, $0.audio_route_changed.previous_input) = (
                    AudioConstants.speaker, AudioConstants.builtInMic
                )
                ($0.audio_route_changed.output, $0.audio_route_changed.input) = (0, 4)
            }, 0)
        XCTAssertEqual(
            Array(recorder.lines.dropFirst()),
            [
                "route_changed 1 1/1 -> 2/2 sizes=12/12 session=2/2",
                "route_changed 2 2/2 -> 1/1 sizes=12/12 session=1/1",
                "route_changed 3 1/1 -> 0/4 sizes=12/12 session=0/4",
            ])
        var now = setUp
        (now.output, now.input) = (0, 4)
        XCTAssertEqual(fixture.session(), now)

        let mark = recorder.lines.count
        let badRoutes: [(inout ahr_call) -> Void] = [
            { $0.audio_route_changed.route_change_reason = 0 }, { $0.audio_route_changed.route_change_reason = 5 },
            { $0.audio_route_changed.output = 5 }, { $0.audio_route_changed.input = -1 },
            { $0.audio_route_changed.previous_output = -1 }, { $0.audio_route_changed.previous_input = 5 },
        ]
        for (index, bad) in badRoutes.enumerated() {
            XCTAssertEqual(
                deliverAudio(AHR_CALL_AUDIO_ROUTE_CHANGED, to: runtime) {
                    $0.audio_route_changed.route_change_reason = 4
                    ($0.audio_route_changed.output, $0.audio_route_changed.input) = (
                        AudioConstants.speaker, AudioConstants.builtInMic
                    )
                    bad(&$0)
                }, StatusCode.invalidArgument, "route \(index)")
        }
        let badSetUps: [(inout ahr_call) -> Void] = [
            { $0.audio_setup.sample_rate = 0 }, { $0.audio_setup.period_frames = 0 },
            { $0.audio_setup.channel_count = 0 }, { $0.audio_setup.output = 5 },
            { $0.audio_setup.input = 5 }, { $0.audio_setup.output = -1 },
        ]
        for (index, bad) in badSetUps.enumerated() {
            XCTAssertEqual(
                deliverAudio(AHR_CALL_AUDIO_SETUP, to: runtime) {
                    Self.setUp(&$0)
                    $0.audio_setup.sample_rate = 44100
                    bad(&$0)
                }, StatusCode.invalidArgument, "setup \(index)")
        }
        XCTAssertEqual(lines(recorder, since: mark), [], "no guest code")
        XCTAssertEqual(fixture.session(), now, "nothing changed")
        XCTAssertEqual(recorder.audio, [], "the host's calls are not reported back")
    }

    // CONTRACT C11: secondary_audio_hint hears the host's hint as 1 or 0.
    func testSecondaryAudioHintReachesTheGuest() throws {
        let recorder = ReporterRecorder()
        let (runtime, _) = try startedAudio(recorder)
        XCTAssertEqual(
            deliverAudio(AHR_CALL_SECONDARY_AUDIO_HINT, to: runtime) {
                $0.secondary_audio_hint.silence_secondary = true
            }, 0)
        XCTAssertEqual(
            deliverAudio(AHR_CALL_SECONDARY_AUDIO_HINT, to: runtime) {
                $0.secondary_audio_hint.silence_secondary = false
            }, 0)
        XCTAssertEqual(Array(recorder.lines.dropFirst()), ["secondary_audio_hint 1", "secondary_audio_hint 0"])
    }

    // CONTRACT C15: a media services reset puts the session back as at launch (soloAmbient, default
    // mode, no options, inactive, gain 1) before media_services_reset runs; the host's format and
    // route stay. The guest sets its session up again from there.
    func testMediaServicesResetPutsTheSessionBackAsAtLaunch() throws {
        let recorder = ReporterRecorder()
        let (runtime, fixture) = try startedAudio(recorder)
        XCTAssertEqual(deliverAudio(AHR_CALL_AUDIO_SETUP, to: runtime, Self.setUp), 0)
        fixture.run("configure 2 1 2;gain 0.25;activate")
        XCTAssertEqual(finish(1, AudioConstants.activated, on: runtime), 0)
        XCTAssertEqual(
            fixture.session(),
            AudioSession(
                category: 2, mode: 1, options: 3, active: 1, output: 1, input: 1, sampleRate: 48000, periodFrames: 480,
                channelCount: 2, gain: 0.25))
        fixture.run("react configure 2 0 0")
        let mark = recorder.lines.count
        XCTAssertEqual(deliverAudio(AHR_CALL_MEDIA_SERVICES_RESET, to: runtime), 0)
        XCTAssertEqual(
            lines(recorder, since: mark),
            [
                "media_services_reset cat=1 mode=0 options=0 active=0 route=1/1 format=48000/480/2 gain=1 size=48",
                "configure 2 0 0 = ok",
            ])
        XCTAssertEqual(
            fixture.session(),
            AudioSession(
                category: 2, output: 1, input: 1, sampleRate: 48000, periodFrames: 480, channelCount: 2, gain: 1))
        XCTAssertEqual(
            recorder.audio,
            [.configured(2, 1, 3), .gain(0.25), .activationRequested(1), .configured(2, 0, 0)])
    }

    // CONTRACT C12 C7 B9: set_gain keeps the guest's relative gain, 0 to 1, for get_session and the
    // host; set_rendering tells the host whether the guest plays, and is not kept.
    func testGainAndRenderingReachTheHost() throws {
        let recorder = ReporterRecorder()
        let (_, fixture) = try startedAudio(recorder)
        fixture.run("gain 0;gain 1;gain 0.5;rendering 1;rendering 0;thread gain 0.75")
        XCTAssertEqual(
            Array(recorder.lines.dropFirst()),
            ["gain 0 = ok", "gain 1 = ok", "gain 0.5 = ok", "rendering 1 = ok", "rendering 0 = ok", "gain 0.75 = ok"])
        XCTAssertEqual(fixture.session(), AudioSession(gain: 0.75))
        XCTAssertEqual(
            recorder.audio, [.gain(0), .gain(1), .gain(0.5), .rendering(true), .rendering(false), .gain(0.75)])
    }

    // audio.h, "from will_terminate on" (CONTRACT X3, A3): from the moment will_terminate is
    // delivered, its callback included, and during deinit, every function but get_session is
    // INVALID_STATE (activate writes the invalid id); a refused combination is still
    // INVALID_COMBINATION. After ahr_stop, the withdrawn host gets INVALID_ARGUMENT and
    // get_extension NULL; nothing reaches the reporter.
    func testWillTerminateAndDeinitRefuseEveryFunctionButGetSession() throws {
        let recorder = ReporterRecorder()
        let (runtime, fixture) = try startedAudio(recorder)
        XCTAssertEqual(deliverAudio(AHR_CALL_AUDIO_SETUP, to: runtime, Self.setUp), 0)
        // playAndRecord, so that only the state refuses override_output below.
        fixture.run("configure 4 0 0")
        XCTAssertEqual(deliver(GuestMessage(call: .willTerminate, appState: .background), to: runtime), 0)
        XCTAssertEqual(recorder.lines.last, AudioFixture.line(at: "will_terminate"))
        let mark = recorder.lines.count
        fixture.run("thread activate;gain 0.5;override 1;deactivate 0;rendering 0;configure 2 0 0;session")
        XCTAssertEqual(
            lines(recorder, since: mark),
            [
                "activate = invalid_state 0", "gain 0.5 = invalid_state", "override 1 = invalid_state",
                "deactivate 0 = invalid_state", "rendering 0 = invalid_state", "configure 2 0 0 = invalid_state",
                "session = cat=4 mode=0 options=0 active=0 route=1/1 format=48000/480/2 gain=1 size=48",
            ])

        let host = try XCTUnwrap(fixture.host())
        let table = try XCTUnwrap(fixture.audio())
        let getExtension = try XCTUnwrap(host.pointee.get_extension)
        runtimes.removeAll { $0 == runtime }
        ahr_stop(runtime)
        XCTAssertEqual(recorder.lines.last, AudioFixture.line(at: "deinit"))
        var session = apphost_audio_session_t()
        session.struct_size = UInt32(MemoryLayout<apphost_audio_session_t>.size)
        var request: apphost_audio_request_t = 9
        let invalid = StatusCode.invalidArgument
        XCTAssertEqual(table.pointee.set_configuration(host, AudioConstants.playback, 0, 0), invalid)
        XCTAssertEqual(table.pointee.activate(host, &request), invalid)
        XCTAssertEqual(request, APPHOST_AUDIO_REQUEST_INVALID)
        XCTAssertEqual(table.pointee.deactivate(host, 0), invalid)
        XCTAssertEqual(table.pointee.set_rendering(host, 0), invalid)
        XCTAssertEqual(table.pointee.set_gain(host, 1), invalid)
        XCTAssertEqual(table.pointee.override_output(host, 0), invalid)
        XCTAssertEqual(table.pointee.get_session(host, &session), invalid)
        XCTAssertNil(getExtension(host, APPHOST_AUDIO_EXTENSION_ID))
        XCTAssertEqual(recorder.audio, [.configured(4, 0, 0)], "nothing from will_terminate on")
    }

    // audio.h's activate (CONTRACT C5, B7): while the guest's background time is 0, as before a
    // suspension, activate is INVALID_STATE and writes the invalid id, the host hearing nothing;
    // the other functions still work. A budget that runs out counts as 0; a new one, or the
    // foreground, lets activate through again.
    func testActivateIsRefusedWhileTheBackgroundTimeIsZero() throws {
        let recorder = ReporterRecorder()
        let (runtime, fixture) = try startedAudio(recorder)
        XCTAssertEqual(deliver(.backgroundTime(.zero), to: runtime), 0)
        fixture.run("activate;gain 0.5;deactivate 0")
        XCTAssertEqual(deliver(.backgroundTime(nil), to: runtime), 0)
        fixture.run("activate")
        XCTAssertEqual(deliver(.backgroundTime(.seconds(30)), to: runtime), 0)
        fixture.run("activate")
        XCTAssertEqual(deliver(.backgroundTime(.milliseconds(1)), to: runtime), 0)
        usleep(20_000)
        fixture.run("activate")
        XCTAssertEqual(
            Array(recorder.lines.dropFirst()),
            [
                "activate = invalid_state 0", "gain 0.5 = ok", "deactivate 0 = ok", "activate = ok 1",
                "activate = ok 2",
                "activate = invalid_state 0",
            ])
        XCTAssertEqual(
            recorder.audio,
            [.gain(0.5), .deactivated(notifyOthers: false), .activationRequested(1), .activationRequested(2)])
    }

    // CONTRACT X3: get_session needs a struct of at least ABI 1.4's 48 bytes (smaller:
    // INVALID_ARGUMENT, nothing written); it writes the members it has that fit, never past the
    // guest's struct, sets struct_size to what it wrote, and answers any thread.
    func testGetSessionWritesWhatFitsAndSaysSo() throws {
        let recorder = ReporterRecorder()
        let (runtime, fixture) = try startedAudio(recorder)
        let host = try XCTUnwrap(fixture.host())
        let table = try XCTUnwrap(fixture.audio())
        XCTAssertEqual(MemoryLayout<apphost_audio_session_t>.size, 48)
        XCTAssertEqual(deliverAudio(AHR_CALL_AUDIO_SETUP, to: runtime, Self.setUp), 0)
        fixture.run("configure 4 4 9;gain 0.5")

        /// get_session into 64 bytes of 0xAB whose first four say `declared`.
        func query(declaring declared: UInt32) -> (Int32, [UInt8]) {
            var bytes = [UInt8](repeating: 0xAB, count: 64)
            let status = bytes.withUnsafeMutableBytes { buffer in
                buffer.storeBytes(of: declared, as: UInt32.self)
                return table.pointee.get_session(
                    host, buffer.baseAddress!.assumingMemoryBound(to: apphost_audio_session_t.self))
            }
            return (status, bytes)
        }
        for declared: UInt32 in [0, 4, 40, 47] {
            let (status, bytes) = query(declaring: declared)
            XCTAssertEqual(status, StatusCode.invalidArgument, "struct_size \(declared)")
            XCTAssertEqual(Array(bytes[4...]), Array(repeating: 0xAB, count: 60), "nothing written")
        }
        for declared: UInt32 in [48, 64] {
            let (status, bytes) = query(declaring: declared)
            XCTAssertEqual(status, StatusCode.ok, "struct_size \(declared)")
            let session = bytes.withUnsafeBytes { $0.load(as: apphost_audio_session_t.self) }
            XCTAssertEqual(session.struct_size, 48, "what it wrote")
            XCTAssertEqual(
                AudioSession(session),
                AudioSession(
                    category: 4, mode: 4, options: 9, output: 1, input: 1, sampleRate: 48000, periodFrames: 480,
                    channelCount: 2, gain: 0.5))
            XCTAssertEqual(Array(bytes[48...]), Array(repeating: 0xAB, count: 16), "nothing past its own struct")
        }
        // Any thread, the main queue's or not, within a callback or not.
        let (hostAddress, tableAddress) = (UInt(bitPattern: host), UInt(bitPattern: table))
        let category = DispatchQueue.global().sync {
            var session = apphost_audio_session_t()
            session.struct_size = 48
            let table = UnsafePointer<apphost_audio_t>(bitPattern: tableAddress)!
            let status = table.pointee.get_session(UnsafePointer(bitPattern: hostAddress), &session)
            return status == StatusCode.ok ? session.category : -1
        }
        XCTAssertEqual(category, AudioConstants.playAndRecord)
    }

    // A guest without the audio callbacks, or with a table too small for some, has its session kept
    // all the same: the host's calls change it, and the members it lacks are skipped.
    func testGuestWithoutAudioCallbacks() throws {
        let recorder = ReporterRecorder()
        let (runtime, fixture) = try startedAudio(
            recorder, name: "audio-runtime-bare", flags: ["-DFIXTURE_NO_AUDIO_CALLBACKS"])
        XCTAssertEqual(deliverAudio(AHR_CALL_AUDIO_SETUP, to: runtime, Self.setUp), 0)
        fixture.run("activate")
        XCTAssertEqual(finish(1, AudioConstants.activated, on: runtime), 0)
        XCTAssertEqual(fixture.session()?.active, 1)
        XCTAssertEqual(deliverAudio(AHR_CALL_AUDIO_INTERRUPTION_BEGAN, to: runtime, Self.interrupted(2)), 0)
        XCTAssertEqual(fixture.session()?.active, 0)
        XCTAssertEqual(
            deliverAudio(AHR_CALL_AUDIO_ROUTE_CHANGED, to: runtime) {
                $0.audio_route_changed.route_change_reason = 1
                ($0.audio_route_changed.output, $0.audio_route_changed.input) = (
                    AudioConstants.headphones, AudioConstants.headsetMic
                )
            }, 0)
        XCTAssertEqual(deliverAudio(AHR_CALL_AUDIO_INTERRUPTION_ENDED, to: runtime, Self.interrupted(2)), 0)
        XCTAssertEqual(deliverAudio(AHR_CALL_SECONDARY_AUDIO_HINT, to: runtime), 0)
        fixture.run("gain 0.5")
        XCTAssertEqual(deliverAudio(AHR_CALL_MEDIA_SERVICES_RESET, to: runtime), 0)
        XCTAssertEqual(
            fixture.session(),
            AudioSession(
                output: AudioConstants.headphones, input: AudioConstants.headsetMic, sampleRate: 48000,
                periodFrames: 480,
                channelCount: 2))
        XCTAssertEqual(Array(recorder.lines.dropFirst()), ["activate = ok 1", "gain 0.5 = ok"])

        // A table whose struct_size ends before interruption_ended: it and the members after it are
        // skipped.
        let small = ReporterRecorder()
        let (cut, _) = try startedAudio(
            small, name: "audio-runtime-small",
            flags: ["-DFIXTURE_AUDIO_CALLBACKS_SIZE=offsetof(apphost_guest_audio_t,interruption_ended)"])
        XCTAssertEqual(deliverAudio(AHR_CALL_AUDIO_INTERRUPTION_BEGAN, to: cut, Self.interrupted(2)), 0)
        XCTAssertEqual(deliverAudio(AHR_CALL_AUDIO_INTERRUPTION_ENDED, to: cut, Self.interrupted(2)), 0)
        XCTAssertEqual(
            deliverAudio(AHR_CALL_AUDIO_ROUTE_CHANGED, to: cut) { $0.audio_route_changed.route_change_reason = 1 }, 0)
        XCTAssertEqual(deliverAudio(AHR_CALL_SECONDARY_AUDIO_HINT, to: cut), 0)
        XCTAssertEqual(deliverAudio(AHR_CALL_MEDIA_SERVICES_RESET, to: cut), 0)
        XCTAssertEqual(Array(small.lines.dropFirst()), ["interruption_began 2 active=0"])
    }

    // CONTRACT X3 C5: the functions are safe from any thread at once; reports are made under the
    // session's lock, so the host hears them in the order they changed the session: the last gain
    // reported is the session's, and request ids come 1, 2, 3... in report order, each given out once.
    // The reporter takes its time, so that a report made outside the lock would be overtaken.
    func testAudioReportsComeInTheOrderTheSessionChanged() throws {
        let recorder = ReporterRecorder(slowAudio: true)
        let (runtime, fixture) = try startedAudio(recorder)
        ahr_set_audio_request_limit(runtime, 0)  // X7's limit is another test's
        let (hostAddress, tableAddress) = (
            UInt(bitPattern: try XCTUnwrap(fixture.host())), UInt(bitPattern: try XCTUnwrap(fixture.audio()))
        )
        let threads = 8
        let rounds = 200
        let requests = Mutex<[UInt64]>([])
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            let host = UnsafePointer<apphost_host_t>(bitPattern: hostAddress)
            let table = UnsafePointer<apphost_audio_t>(bitPattern: tableAddress)!.pointee
            for round in 0..<rounds {
                var request: apphost_audio_request_t = 0
                _ = table.set_gain(host, Double(thread * rounds + round) / Double(threads * rounds))
                if table.activate(host, &request) == StatusCode.ok { requests.withLock { $0.append(request) } }
            }
        }
        let count = UInt64(threads * rounds)
        XCTAssertEqual(requests.withLock { $0.sorted() }, Array(1...count), "each id once")
        let reported = recorder.audio
        XCTAssertEqual(
            reported.filter { $0.kind == AHR_REPORT_AUDIO_ACTIVATION_REQUESTED.rawValue }.map(\.id), Array(1...count),
            "in the order given out")
        let gains = reported.filter { $0.kind == AHR_REPORT_AUDIO_GAIN.rawValue }.map(\.gain)
        XCTAssertEqual(gains.count, threads * rounds)
        XCTAssertEqual(fixture.session()?.gain, gains.last, "the last reported is the one kept")

        // Two threads at once, many times: the gain the host heard last is the one kept each time.
        var overtaken = 0
        for trial in 0..<100 {
            DispatchQueue.concurrentPerform(iterations: 2) { thread in
                let host = UnsafePointer<apphost_host_t>(bitPattern: hostAddress)
                let table = UnsafePointer<apphost_audio_t>(bitPattern: tableAddress)!.pointee
                _ = table.set_gain(host, Double(trial * 2 + thread) / 1000)
            }
            if fixture.session()?.gain != recorder.audio.last?.gain { overtaken += 1 }
        }
        XCTAssertEqual(overtaken, 0, "trials whose last report was not the gain kept")
    }

    // CONTRACT X7: 100 audio session requests within a second, counted together; the rest of the
    // window gets APPHOST_ERROR_LIMIT_REACHED at once, reaches no reporter and changes nothing;
    // the next window takes them again.
    func testX7AudioRequestsPastTheLimitAreRefusedAtOnce() throws {
        let recorder = ReporterRecorder()
        let (_, fixture) = try startedAudio(recorder)
        let host = try XCTUnwrap(fixture.host())
        let table = try XCTUnwrap(fixture.audio()).pointee
        let before = recorder.audio.count
        XCTAssertEqual(Int(AHR_AUDIO_REQUEST_LIMIT), FloodPolicy.audioRequests.limit)
        XCTAssertEqual(
            Duration.nanoseconds(Int64(AHR_AUDIO_REQUEST_WINDOW_NS)), FloodPolicy.audioRequests.window,
            "the host's policy is the runtime's")
        var statuses: [Int32] = []
        for index in 0..<50 {
            statuses.append(table.set_gain(host, Double(index) / 100))
            statuses.append(table.set_rendering(host, Int32(index % 2)))
        }
        XCTAssertEqual(statuses, Array(repeating: StatusCode.ok, count: 100))
        var request: apphost_audio_request_t = 7
        XCTAssertEqual(table.activate(host, &request), StatusCode.limitReached)
        XCTAssertEqual(request, APPHOST_AUDIO_REQUEST_INVALID)
        XCTAssertEqual(table.set_gain(host, 1), StatusCode.limitReached)
        XCTAssertEqual(table.deactivate(host, 0), StatusCode.limitReached)
        XCTAssertEqual(
            table.set_configuration(host, Int32(APPHOST_AUDIO_CATEGORY_PLAYBACK.rawValue), 0, 0),
            StatusCode.limitReached)
        XCTAssertEqual(recorder.audio.count - before, 100, "the refused ones reach no reporter")
        XCTAssertEqual(fixture.session()?.gain, 0.49, "and change nothing")
        usleep(1_100_000)
        XCTAssertEqual(table.activate(host, &request), StatusCode.ok)
        XCTAssertEqual(request, 1)
    }

    // MARK: Stopping

    // CONTRACT A3 X3: stop runs deinit once, and the withdrawn host pointer gets error codes.
    func testStopRunsDeinitOnceAndWithdrawsTheHost() throws {
        let recorder = ReporterRecorder()
        let (runtime, guest) = try startedObservable(recorder)
        let host = try XCTUnwrap(guest.host())
        // The struct itself is freed with the runtime; a guest may still hold its functions.
        let log = try XCTUnwrap(host.pointee.log)
        let save = try XCTUnwrap(host.pointee.save_scene_state)
        let appState = try XCTUnwrap(host.pointee.app_state)
        let dataDirectory = try XCTUnwrap(host.pointee.data_directory)
        XCTAssertEqual(deliver(TestMessages.connect(1), to: runtime), 0)

        runtimes.removeAll { $0 == runtime }
        ahr_stop(runtime)
        XCTAssertEqual(FixtureObserver.observations.map(\.event), ["will_connect", "deinit"])
        XCTAssertEqual(recorder.lines.last, "callback deinit", "deinit still logs")
        XCTAssertNil(guest.host(), "the guest's deinit ran")
        XCTAssertEqual(log(host, 2, "after stop"), StatusCode.invalidArgument, "a stale host pointer")
        XCTAssertEqual(save(host, 1, nil, 0), StatusCode.invalidArgument, "a stale host pointer")
        XCTAssertEqual(appState(host), -1)
        XCTAssertNil(dataDirectory(host))
        XCTAssertEqual(recorder.lines.last, "callback deinit", "nothing reached the reporter after stop")
        ahr_stop(nil)
    }

    // A runtime that was only loaded, or whose start failed, is stopped without deinit (the
    // fixture's deinit aborts).
    func testStopWithoutStartSkipsDeinit() throws {
        let path = try GuestFixtures.library(
            "minimal_guest.c", name: "c-runtime-deinit-aborts", flags: ["-DFIXTURE_DEINIT_ABORTS"])
        let runtime = try loaded(path)
        runtimes.removeAll { $0 == runtime }
        ahr_stop(runtime)
    }

    // MARK: Harness

    /// ahr_load's result, runtime and error text.
    private func load(_ path: String) -> (ahr_load_result, OpaquePointer?, String) {
        var buffer = [CChar](repeating: 0, count: 8192)
        var runtime: OpaquePointer?
        let result = ahr_load(path, &runtime, &buffer, buffer.count)
        if let runtime { runtimes.append(runtime) }
        return (result, runtime, Self.text(buffer))
    }

    /// A runtime for `path`, stopped in tearDown.
    private func loaded(_ path: String, file: StaticString = #filePath, line: UInt = #line) throws -> OpaquePointer {
        let (result, runtime, error) = load(path)
        XCTAssertEqual(result, AHR_LOAD_OK, error, file: file, line: line)
        return try XCTUnwrap(runtime, error, file: file, line: line)
    }

    private func start(_ runtime: OpaquePointer, _ recorder: ReporterRecorder, directory: String = "/data/probe")
        -> StartOutcome
    {
        var status: Int32 = -1
        recorders.append(recorder)
        let result = ahr_start(runtime, directory, "apphost", "9.8.7", recorder.reporter, &status)
        return StartOutcome(result: result, status: status)
    }

    private func startedProbe(_ recorder: ReporterRecorder) throws -> OpaquePointer {
        let runtime = try loaded(try ProbeGuest.library())
        XCTAssertEqual(start(runtime, recorder), StartOutcome(AHR_START_OK, APPHOST_OK))
        return runtime
    }

    /// The observable fixture, under a name of its own so that it never shares globals with the
    /// in-process channel's tests, started, with FixtureObserver watching it.
    private func startedObservable(_ recorder: ReporterRecorder = ReporterRecorder()) throws -> (
        OpaquePointer, ObservableGuest
    ) {
        let path = try GuestFixtures.library("observable_guest.c", name: "observable-c-runtime")
        let runtime = try loaded(path)
        XCTAssertEqual(start(runtime, recorder, directory: "/data/observable"), StartOutcome(AHR_START_OK, APPHOST_OK))
        let guest = try ObservableGuest(path: path)
        guests.append(guest)
        FixtureObserver.watch(guest)
        return (runtime, guest)
    }

    /// Plugins/Fixtures/background_guest.c, loaded and started in process, with its hooks.
    private func startedBackground(_ recorder: ReporterRecorder, name: String = "background-c-runtime") throws -> (
        runtime: OpaquePointer, fixture: BackgroundFixture
    ) {
        let runtime = try loaded(try BackgroundFixture.library(name: name))
        XCTAssertEqual(start(runtime, recorder, directory: "/data/background"), StartOutcome(AHR_START_OK, APPHOST_OK))
        return (runtime, try XCTUnwrap(BackgroundFixture(name: name)))
    }

    /// Plugins/Fixtures/scenes_runtime_guest.c, loaded and started in process, with its hooks.
    private func startedScenes(_ recorder: ReporterRecorder, name: String = "scenes-runtime", flags: [String] = [])
        throws -> (runtime: OpaquePointer, fixture: ScenesFixture)
    {
        let runtime = try loaded(try ScenesFixture.library(name: name, flags: flags))
        XCTAssertEqual(start(runtime, recorder, directory: "/data/scenes"), StartOutcome(AHR_START_OK, APPHOST_OK))
        return (runtime, try XCTUnwrap(ScenesFixture(name: name)))
    }

    /// Plugins/Fixtures/audio_runtime_guest.c, loaded and started in process, with its hooks.
    private func startedAudio(_ recorder: ReporterRecorder, name: String = "audio-runtime", flags: [String] = [])
        throws -> (runtime: OpaquePointer, fixture: AudioFixture)
    {
        let runtime = try loaded(try AudioFixture.library(name: name, flags: flags))
        XCTAssertEqual(start(runtime, recorder, directory: "/data/audio"), StartOutcome(AHR_START_OK, APPHOST_OK))
        return (runtime, try XCTUnwrap(AudioFixture(name: name)))
    }

    /// Delivers audio call `kind` in app state `app`, with the members `edit` sets (the others 0).
    private func deliverAudio(
        _ kind: ahr_call_kind, to runtime: OpaquePointer, app: apphost_app_state = APPHOST_APP_STATE_ACTIVE,
        _ edit: (inout ahr_call) -> Void = { _ in }
    ) -> Int32 {
        var call = ahr_call()
        call.kind = kind
        call.app_state = Int32(app.rawValue)
        edit(&call)
        return ahr_handle(runtime, &call)
    }

    /// The host's answer to activation `request`.
    private func finish(_ request: UInt64, _ result: Int32, on runtime: OpaquePointer) -> Int32 {
        deliverAudio(AHR_CALL_AUDIO_ACTIVATION_FINISHED, to: runtime) {
            $0.audio_activation_finished.audio_request = request
            $0.audio_activation_finished.activation_result = result
        }
    }

    /// AUDIO_SETUP's members as the tests' host gives them: 48 kHz, periods of 480 frames, stereo,
    /// the speaker and the built-in microphone.
    private static func setUp(_ call: inout ahr_call) {
        (call.audio_setup.sample_rate, call.audio_setup.period_frames, call.audio_setup.channel_count) = (48000, 480, 2)
        (call.audio_setup.output, call.audio_setup.input) = (AudioConstants.speaker, AudioConstants.builtInMic)
    }

    /// An interruption's members: its reason.
    private static func interrupted(_ reason: Int32) -> (inout ahr_call) -> Void {
        {
            if $0.kind == AHR_CALL_AUDIO_INTERRUPTION_BEGAN {
                $0.audio_interruption_began.interruption_reason = reason
            } else {
                $0.audio_interruption_ended.interruption_reason = reason
            }
        }
    }

    /// A foreground scene connecting, whose session id is commands for the scenes fixture.
    private func connect(_ scene: SceneHandle, commands: String = "") -> GuestMessage {
        GuestMessage(
            call: .sceneWillConnect(
                SceneConnection(
                    scene: scene, sessionID: commands, role: .primary, initialState: .foregroundInactive,
                    restorationData: nil)), appState: .active, sceneState: .foregroundActive)
    }

    /// A user action on `scene`, whose name is commands for the scenes fixture.
    private func action(
        _ scene: SceneHandle, _ name: String, payload: String = "", activation: Duration = .seconds(5),
        token: ActivationToken = 7
    ) -> GuestCall {
        .performAction(scene, name: name, payload: Data(payload.utf8), activation: activation, token: token)
    }

    /// The log lines since `mark`, the number of lines there were.
    private func lines(_ recorder: ReporterRecorder, since mark: Int) -> [String] {
        Array(recorder.lines.dropFirst(mark))
    }

    /// Delivers a call with the app state the tests do not look at.
    fileprivate func deliver(_ call: GuestCall, to runtime: OpaquePointer) -> Int32 {
        deliver(GuestMessage(call: call, appState: .background), to: runtime)
    }

    /// The NUL-terminated text in `buffer`.
    private static func text(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private func dlopenError(_ path: String) -> String {
        if let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL) {
            dlclose(handle)
            return "loaded"
        }
        return String(cString: dlerror())
    }

}

// MARK: - Calling the runtime

extension GuestRuntimeCTests {
    /// Delivers `message` through ahr_handle, with the in-process channel's own conversion.
    fileprivate func deliver(_ message: GuestMessage, to runtime: OpaquePointer) -> Int32 {
        RuntimeCall.with(message) { ahr_handle(runtime, $0) }
    }

    /// Runs `body` on the runtime's main queue, as guest code inside a callback runs: the
    /// [main-queue] host functions answer it.
    fileprivate func onMainQueue<T>(_ runtime: OpaquePointer, _ body: () -> T) -> T {
        withoutActuallyEscaping(body) { body in
            var call: () -> Void = {}
            var result: T?
            call = { result = body() }
            withUnsafeMutablePointer(to: &call) { pointer in
                ahr_run_on_main_queue(
                    runtime, { context in context!.assumingMemoryBound(to: (() -> Void).self).pointee() }, pointer)
            }
            return result!
        }
    }

    /// ahr_start's result and init status, comparable.
    struct StartOutcome: Equatable, CustomStringConvertible {
        var result: UInt32
        var status: Int32

        init(result: ahr_start_result, status: Int32) {
            self.result = result.rawValue
            self.status = status
        }

        init(_ result: ahr_start_result, _ status: apphost_status) {
            self.init(result: result, status: Int32(status.rawValue))
        }

        var description: String { "result \(result), status \(status)" }
    }

    /// The ABI version of the headers (version.h), which guests and the runtime stamp: major,
    /// minor, revision.
    static let headersABI = [
        UInt32(APPHOST_ABI_VERSION_MAJOR), UInt32(APPHOST_ABI_VERSION_MINOR), UInt32(APPHOST_ABI_VERSION_REVISION),
    ]

    /// The headers' major.minor, as the probe guest logs it.
    static let headersABIMajorMinor = "\(APPHOST_ABI_VERSION_MAJOR).\(APPHOST_ABI_VERSION_MINOR)"

    /// An `ahr_raw_descriptor` as Swift values.
    struct RawDescriptor: Equatable {
        var abi: [UInt32]
        var hasDescriptor: Bool
        var structSize: UInt32
        var id, name, version, vendor, description: String?
        var capabilities: UInt64
        var hasInit, hasDeinit, hasQuery: Bool
        /// The actions table as "name(arguments)result" each, nil for none (ABI 1.6).
        var actions: [String]? = nil

        init(
            abi: [UInt32], hasDescriptor: Bool, structSize: UInt32, id: String?, name: String?, version: String?,
            vendor: String?, description: String?, capabilities: UInt64, hasInit: Bool, hasDeinit: Bool, hasQuery: Bool
        ) {
            self.abi = abi
            self.hasDescriptor = hasDescriptor
            self.structSize = structSize
            self.id = id
            self.name = name
            self.version = version
            self.vendor = vendor
            self.description = description
            self.capabilities = capabilities
            self.hasInit = hasInit
            self.hasDeinit = hasDeinit
            self.hasQuery = hasQuery
        }

        init(_ raw: ahr_raw_descriptor) {
            self.init(
                abi: [raw.abi_version.major, raw.abi_version.minor, raw.abi_version.revision],
                hasDescriptor: raw.has_descriptor, structSize: raw.struct_size, id: Self.string(raw.id),
                name: Self.string(raw.name), version: Self.string(raw.version), vendor: Self.string(raw.vendor),
                description: Self.string(raw.description), capabilities: raw.capabilities, hasInit: raw.has_init,
                hasDeinit: raw.has_deinit, hasQuery: raw.has_query)
        }

        static func string(_ text: ahr_text) -> String? {
            guard let bytes = text.bytes else { return nil }
            return String(decoding: UnsafeRawBufferPointer(start: bytes, count: text.length), as: UTF8.self)
        }
    }

    /// An `ahr_reporter` that records what the runtime hands it, from any thread.
    final class ReporterRecorder: Sendable {
        struct Log: Equatable {
            var level: Int32
            var bytes: [UInt8]
            var text: String { String(decoding: bytes, as: UTF8.self) }
        }
        struct Save: Equatable, CustomStringConvertible {
            var scene: UInt64
            var bytes: [UInt8]
            /// The id of the confirmation it asked for (ABI 1.7); 0 for none.
            var confirmation: UInt64 = 0
            var description: String {
                "scene \(scene): " + (bytes.count > 32 ? "\(bytes.count) bytes" : "\(bytes)")
                    + (confirmation == 0 ? "" : " #\(confirmation)")
            }
        }

        /// Everything the reporter got, in order, and the marks a test put between.
        enum Entry: Equatable, CustomStringConvertible {
            case log(String)
            case save(UInt64)
            case taskBegan(UInt64, name: [UInt8])
            case taskEnded(UInt64)
            case timerScheduled(UInt64, delay: UInt64, interval: UInt64)
            case timerCancelled(UInt64)
            case workSubmitted(UInt64)
            case sceneRequested(activation: UInt64, from: UInt64, role: Int32, style: Int32, state: [UInt8])
            case sessionActivation(String, style: Int32)
            case sessionClose(String)
            case loadingProgress(UInt64, Double)
            case sceneTitle(UInt64, String)
            case modalPresented(UInt64, modal: UInt64, style: Int32, title: String)
            case modalDismissed(UInt64, modal: UInt64)
            case notification(title: String, body: String)
            case audio(AudioReport)
            case audioThread(UInt64, realtime: Bool)
            case action(ActionOutcome)
            case mark(String)

            static func taskBegan(_ task: UInt64, _ name: String) -> Entry { .taskBegan(task, name: Array(name.utf8)) }

            static func sceneRequested(
                activation: UInt64, from: UInt64, role: Int32, style: Int32, _ state: String
            ) -> Entry {
                .sceneRequested(activation: activation, from: from, role: role, style: style, state: Array(state.utf8))
            }

            var isBackground: Bool {
                switch self {
                case .taskBegan, .taskEnded, .timerScheduled, .timerCancelled, .workSubmitted: true
                default: false
                }
            }

            var isScenes: Bool {
                switch self {
                case .sceneRequested, .sessionActivation, .sessionClose, .loadingProgress, .sceneTitle, .modalPresented,
                    .modalDismissed, .notification:
                    true
                default: false
                }
            }

            var audioReport: AudioReport? {
                if case .audio(let report) = self { report } else { nil }
            }

            var description: String {
                switch self {
                case .log(let line): "log \(line)"
                case .save(let scene): "save \(scene)"
                case .taskBegan(let task, let name): "taskBegan \(task) \(String(decoding: name, as: UTF8.self))"
                case .taskEnded(let task): "taskEnded \(task)"
                case .timerScheduled(let timer, let delay, let interval): "timerScheduled \(timer) \(delay) \(interval)"
                case .timerCancelled(let timer): "timerCancelled \(timer)"
                case .workSubmitted(let work): "workSubmitted \(work)"
                case .sceneRequested(let activation, let from, let role, let style, let state):
                    "sceneRequested #\(activation) \(from) \(role) \(style) \(String(decoding: state, as: UTF8.self))"
                case .sessionActivation(let session, let style): "sessionActivation \(session) \(style)"
                case .sessionClose(let session): "sessionClose \(session)"
                case .loadingProgress(let scene, let value): "loadingProgress \(scene) \(value)"
                case .sceneTitle(let scene, let title): "sceneTitle \(scene) \(title)"
                case .audioThread(let thread, let realtime): "audioThread \(thread) realtime \(realtime)"
                case .action(let outcome): "action \(outcome)"
                case .modalPresented(let scene, let modal, let style, let title):
                    "modalPresented \(scene) \(modal) \(style) \(title)"
                case .modalDismissed(let scene, let modal): "modalDismissed \(scene) \(modal)"
                case .notification(let title, let body): "notification \(title) \(body)"
                case .audio(let report): "audio \(report)"
                case .mark(let text): "mark \(text)"
                }
            }
        }

        private struct State {
            var logs: [Log] = []
            var saves: [Save] = []
            var nullSaves = 0
            /// Texts and states the scenes members got as NULL, which the runtime promises never to pass.
            var nullScenesPointers = 0
            var timeline: [Entry] = []
            /// The ids of the SCENE_REQUESTED reports, in order (ABI 1.8).
            var sceneRequestIDs: [UInt64] = []
        }
        private let state = Mutex(State())
        /// Takes its time over each audio report, so that reports made outside the runtime's lock
        /// would be overtaken by other threads' (testAudioReportsComeInTheOrderTheSessionChanged).
        private let slowAudio: Bool

        init(slowAudio: Bool = false) { self.slowAudio = slowAudio }

        var logs: [Log] { state.withLock { $0.logs } }
        var timeline: [Entry] { state.withLock { $0.timeline } }
        /// The background extension's reporter calls, in order.
        var background: [Entry] { timeline.filter(\.isBackground) }
        /// The scenes extension's reporter calls, in order.
        var scenes: [Entry] { timeline.filter(\.isScenes) }
        var scenesPointersWereNeverNull: Bool { state.withLock { $0.nullScenesPointers == 0 } }
        var sceneRequestIDs: [UInt64] { state.withLock { $0.sceneRequestIDs } }
        /// The audio extension's reporter calls, in order.
        var audio: [AudioReport] { timeline.compactMap(\.audioReport) }

        /// Puts `text` into the timeline, as a point of reference.
        func mark(_ text: String) { record(.mark(text)) }

        fileprivate func record(_ entry: Entry) { state.withLock { $0.timeline.append(entry) } }

        /// Records a scenes entry made of texts the reporter got; a NULL one is counted.
        fileprivate func record(_ pointers: [UnsafeRawPointer?], _ entry: Entry) {
            state.withLock {
                $0.timeline.append(entry)
                $0.nullScenesPointers += pointers.filter { $0 == nil }.count
            }
        }

        fileprivate static func text(_ utf8: UnsafePointer<CChar>?, _ length: Int) -> String {
            String(decoding: UnsafeRawBufferPointer(start: utf8, count: length), as: UTF8.self)
        }
        var lines: [String] { logs.map(\.text) }
        var saves: [Save] { state.withLock { $0.saves } }
        var everySaveHadBytes: Bool { state.withLock { $0.nullSaves == 0 } }

        /// The reporter; the recorder must outlive the runtime it is given to.
        var reporter: ahr_reporter {
            ahr_reporter(
                context: Unmanaged.passUnretained(self).toOpaque(),
                report: { context, report in ReporterRecorder.from(context).record(report!.pointee) })
        }

        /// One report, as the entries the tests compare, each from its kind's own members.
        private func record(_ report: ahr_report) {
            switch report.kind {
            case AHR_REPORT_LOG:
                let log = report.log
                let bytes = Array(UnsafeRawBufferPointer(start: log.text, count: log.text_length))
                state.withLock {
                    $0.logs.append(Log(level: log.level, bytes: bytes))
                    $0.timeline.append(.log(String(decoding: bytes, as: UTF8.self)))
                }
            case AHR_REPORT_SAVE_STATE:
                let save = report.save_state
                let copy = Array(UnsafeRawBufferPointer(start: save.bytes, count: save.bytes_length))
                state.withLock {
                    $0.saves.append(Save(scene: save.scene, bytes: copy, confirmation: save.id))
                    $0.timeline.append(.save(save.scene))
                    if save.bytes == nil { $0.nullSaves += 1 }
                }
            case AHR_REPORT_TASK_BEGAN:
                let task = report.task_began
                let name = Array(UnsafeRawBufferPointer(start: task.text, count: task.text_length))
                record(.taskBegan(task.id, name: name))
            case AHR_REPORT_TASK_ENDED: record(.taskEnded(report.task_ended.id))
            case AHR_REPORT_TIMER_SCHEDULED:
                let timer = report.timer_scheduled
                record(.timerScheduled(timer.id, delay: timer.delay_ns, interval: timer.interval_ns))
            case AHR_REPORT_TIMER_CANCELLED: record(.timerCancelled(report.timer_cancelled.id))
            case AHR_REPORT_WORK_SUBMITTED: record(.workSubmitted(report.work_submitted.id))
            case AHR_REPORT_SCENE_REQUESTED:
                let request = report.scene_requested
                self.state.withLock { $0.sceneRequestIDs.append(request.id) }
                let state = Array(UnsafeRawBufferPointer(start: request.bytes, count: request.bytes_length))
                record(
                    [request.bytes],
                    .sceneRequested(
                        activation: request.activation, from: request.scene, role: request.role, style: request.style,
                        state: state))
            case AHR_REPORT_SESSION_ACTIVATION_REQUESTED:
                let activation = report.session_activation_requested
                record(
                    [UnsafeRawPointer(activation.text)],
                    .sessionActivation(
                        ReporterRecorder.text(activation.text, activation.text_length), style: activation.style))
            case AHR_REPORT_LOADING_PROGRESS:
                record(.loadingProgress(report.loading_progress.scene, report.loading_progress.progress))
            case AHR_REPORT_SCENE_TITLE_CHANGED:
                let title = report.scene_title_changed
                record(
                    [UnsafeRawPointer(title.text)],
                    .sceneTitle(title.scene, ReporterRecorder.text(title.text, title.text_length)))
            case AHR_REPORT_MODAL_PRESENTED:
                let modal = report.modal_presented
                record(
                    [UnsafeRawPointer(modal.text)],
                    .modalPresented(
                        modal.scene, modal: modal.id, style: modal.style,
                        title: ReporterRecorder.text(modal.text, modal.text_length)))
            case AHR_REPORT_MODAL_DISMISSED:
                record(.modalDismissed(report.modal_dismissed.scene, modal: report.modal_dismissed.id))
            case AHR_REPORT_NOTIFICATION_POSTED:
                let notification = report.notification_posted
                record(
                    [UnsafeRawPointer(notification.text), UnsafeRawPointer(notification.body)],
                    .notification(
                        title: ReporterRecorder.text(notification.text, notification.text_length),
                        body: ReporterRecorder.text(notification.body, notification.body_length)))
            case AHR_REPORT_SESSION_CLOSE_REQUESTED:
                let close = report.session_close_requested
                record(
                    [UnsafeRawPointer(close.text)], .sessionClose(ReporterRecorder.text(close.text, close.text_length)))
            case AHR_REPORT_AUDIO_CONFIGURED, AHR_REPORT_AUDIO_ACTIVATION_REQUESTED, AHR_REPORT_AUDIO_DEACTIVATED,
                AHR_REPORT_AUDIO_RENDERING, AHR_REPORT_AUDIO_GAIN, AHR_REPORT_AUDIO_OUTPUT_OVERRIDDEN:
                if slowAudio { usleep(20) }
                state.withLock { $0.timeline.append(.audio(AudioReport(report))) }
            case AHR_REPORT_AUDIO_THREAD:
                record(.audioThread(report.audio_thread.id, realtime: report.audio_thread.flag))
            case AHR_REPORT_ACTION_RESULT:
                // Converted as the host converts it, while its pointers are valid.
                guard case .actionFinished(let outcome) = RuntimeReport.event(of: report) else {
                    return XCTFail("an action result the host cannot read")
                }
                record(.action(outcome))
            default: XCTFail("an unknown report kind \(report.kind)")
            }
        }

        /// A sink that drops everything.
        static var silent: ahr_reporter { ahr_reporter() }

        private static func from(_ context: UnsafeMutableRawPointer?) -> ReporterRecorder {
            Unmanaged<ReporterRecorder>.fromOpaque(context!).takeUnretainedValue()
        }
    }

    /// One report of the audio extension with every audio member a report may have, those of its
    /// kind's type set, the others zero.
    struct AudioReport: Equatable, CustomStringConvertible {
        var kind: UInt32
        var id: UInt64 = 0
        var category: Int32 = 0
        var mode: Int32 = 0
        var options: UInt32 = 0
        var flag = false
        var gain: Double = 0
        var outputOverride: Int32 = 0

        /// The report's own members (its kind's type); the others stay 0.
        init(_ report: ahr_report) {
            kind = report.kind.rawValue
            switch report.kind {
            case AHR_REPORT_AUDIO_CONFIGURED:
                let configured = report.audio_configured
                (category, mode, options) = (configured.category, configured.mode, configured.options)
            case AHR_REPORT_AUDIO_ACTIVATION_REQUESTED: id = report.audio_activation_requested.id
            case AHR_REPORT_AUDIO_DEACTIVATED: flag = report.audio_deactivated.flag
            case AHR_REPORT_AUDIO_RENDERING: flag = report.audio_rendering.flag
            case AHR_REPORT_AUDIO_GAIN: gain = report.audio_gain.gain
            case AHR_REPORT_AUDIO_OUTPUT_OVERRIDDEN: outputOverride = report.audio_output_overridden.output_override
            default: break
            }
        }

        private init(_ kind: ahr_report_kind) { self.kind = kind.rawValue }

        static func configured(_ category: Int32, _ mode: Int32, _ options: UInt32) -> AudioReport {
            var report = AudioReport(AHR_REPORT_AUDIO_CONFIGURED)
            (report.category, report.mode, report.options) = (category, mode, options)
            return report
        }

        static func activationRequested(_ request: UInt64) -> AudioReport {
            var report = AudioReport(AHR_REPORT_AUDIO_ACTIVATION_REQUESTED)
            report.id = request
            return report
        }

        static func deactivated(notifyOthers: Bool) -> AudioReport {
            var report = AudioReport(AHR_REPORT_AUDIO_DEACTIVATED)
            report.flag = notifyOthers
            return report
        }

        static func rendering(_ rendering: Bool) -> AudioReport {
            var report = AudioReport(AHR_REPORT_AUDIO_RENDERING)
            report.flag = rendering
            return report
        }

        static func gain(_ gain: Double) -> AudioReport {
            var report = AudioReport(AHR_REPORT_AUDIO_GAIN)
            report.gain = gain
            return report
        }

        static func outputOverridden(_ outputOverride: Int32) -> AudioReport {
            var report = AudioReport(AHR_REPORT_AUDIO_OUTPUT_OVERRIDDEN)
            report.outputOverride = outputOverride
            return report
        }

        var description: String {
            "kind \(kind) id \(id) category \(category) mode \(mode) options \(options) flag \(flag) gain \(gain) "
                + "override \(outputOverride)"
        }
    }

    /// An apphost_audio_session_t as Swift values, comparable (struct_size left out); the defaults are
    /// the session of launch before AUDIO_SETUP (CONTRACT C1).
    struct AudioSession: Equatable {
        var category = AudioConstants.soloAmbient
        var mode = AudioConstants.defaultMode
        var options: UInt32 = 0
        var active: Int32 = 0
        var output: Int32 = 0
        var input: Int32 = 0
        var sampleRate: UInt32 = 0
        var periodFrames: UInt32 = 0
        var channelCount: UInt32 = 0
        var gain: Double = 1
    }
}

// MARK: - The probe guest

/// A test-only guest, built at test time like the fixtures: every callback logs what it saw through
/// the host interface (the app state, its scene's state or why there is none, what will_connect
/// got, whether a save succeeded), so that a test can check it in process or from the far side of
/// the worker's socket. did_enter_background saves the bytes will_connect restored, or
/// "state of scene <n>"; will_terminate saves "terminating" for scene 1; the first memory warning
/// starts a thread that logs "thread <i>" PROBE_THREAD_LINES times, joined in deinit.
enum ProbeGuest {
    static let id = "org.apphost.tests.probe"

    static let source = #"""
        #include <inttypes.h>
        #include <pthread.h>
        #include <stdarg.h>
        #include <stddef.h>
        #include <stdio.h>
        #include <stdlib.h>
        #include <string.h>

        #include <apphost/apphost.h>

        #ifndef PROBE_LAUNCH_STATUS
        #define PROBE_LAUNCH_STATUS APPHOST_OK
        #endif
        #ifndef PROBE_APP_CALLBACKS_SIZE
        #define PROBE_APP_CALLBACKS_SIZE sizeof(apphost_app_callbacks_t)
        #endif
        #ifndef PROBE_SCENE_CALLBACKS_SIZE
        #define PROBE_SCENE_CALLBACKS_SIZE sizeof(apphost_scene_callbacks_t)
        #endif
        #ifndef PROBE_THREAD_LINES
        #define PROBE_THREAD_LINES 500
        #endif

        static const apphost_host_t *g_host;
        static pthread_t g_thread;
        static int g_thread_started;
        static unsigned char *g_restored;
        static size_t g_restored_length;

        static void say(const char *format, ...)
        {
            char line[512];
            va_list arguments;

            va_start(arguments, format);
            vsnprintf(line, sizeof line, format, arguments);
            va_end(arguments);
            g_host->log(g_host, APPHOST_LOG_INFO, line);
        }

        static const char *states(apphost_scene_t scene, char *text, size_t size)
        {
            int32_t state = -1;
            apphost_status_t status = g_host->scene_state(g_host, scene, &state);

            if (status == APPHOST_OK) {
                snprintf(text, size, "app=%d state=%d", (int)g_host->app_state(g_host), (int)state);
            } else {
                snprintf(text, size, "app=%d state=%s", (int)g_host->app_state(g_host), apphost_status_name(status));
            }
            return text;
        }

        static void report(const char *event, apphost_scene_t scene)
        {
            char text[64];

            say("%s scene=%" PRIu64 " %s", event, scene, states(scene, text, sizeof text));
        }

        static void *log_lines(void *unused)
        {
            int i;

            (void)unused;
            for (i = 0; i < PROBE_THREAD_LINES; i++) {
                say("thread %d", i);
            }
            return NULL;
        }

        static apphost_status_t did_finish_launching(void)
        {
            say("did_finish_launching app=%d", (int)g_host->app_state(g_host));
            return PROBE_LAUNCH_STATUS;
        }

        static void will_terminate(void)
        {
            apphost_status_t status = g_host->save_scene_state(g_host, 1, "terminating", 11);

            say("will_terminate app=%d save=%s", (int)g_host->app_state(g_host), apphost_status_name(status));
        }

        static void did_receive_memory_warning(void)
        {
            if (!g_thread_started) {
                g_thread_started = pthread_create(&g_thread, NULL, log_lines, NULL) == 0;
            }
            say("did_receive_memory_warning app=%d", (int)g_host->app_state(g_host));
        }

        static void will_connect(const apphost_scene_connection_t *connection)
        {
            char text[64];
            char restoration[32] = "none";

            free(g_restored);
            g_restored = NULL;
            if (connection->restoration_data != NULL) {
                g_restored = malloc(connection->restoration_length + 1);
                memcpy(g_restored, connection->restoration_data, connection->restoration_length);
                g_restored_length = connection->restoration_length;
                snprintf(restoration, sizeof restoration, "%zu", connection->restoration_length);
            }
            say("will_connect scene=%" PRIu64 " %s session=%s role=%d initial=%d size=%u restoration=%s",
                connection->scene, states(connection->scene, text, sizeof text), connection->session_id,
                (int)connection->role, (int)connection->initial_state, (unsigned)connection->struct_size,
                restoration);
        }

        static void will_enter_foreground(apphost_scene_t scene) { report("will_enter_foreground", scene); }
        static void did_become_active(apphost_scene_t scene) { report("did_become_active", scene); }
        static void will_resign_active(apphost_scene_t scene) { report("will_resign_active", scene); }
        static void did_disconnect(apphost_scene_t scene) { report("did_disconnect", scene); }

        static void did_enter_background(apphost_scene_t scene)
        {
            char text[64];
            char state[64];
            apphost_status_t status;

            if (g_restored != NULL) {
                status = g_host->save_scene_state(g_host, scene, g_restored, g_restored_length);
            } else {
                snprintf(state, sizeof state, "state of scene %" PRIu64, scene);
                status = g_host->save_scene_state(g_host, scene, state, strlen(state));
            }
            say("did_enter_background scene=%" PRIu64 " %s save=%s", scene, states(scene, text, sizeof text),
                apphost_status_name(status));
        }

        static const apphost_app_callbacks_t app_callbacks = {
            PROBE_APP_CALLBACKS_SIZE, did_finish_launching, will_terminate, did_receive_memory_warning,
        };

        static const apphost_scene_callbacks_t scene_callbacks = {
            PROBE_SCENE_CALLBACKS_SIZE, will_connect, will_enter_foreground, did_become_active,
            will_resign_active, did_enter_background, did_disconnect,
        };

        static apphost_status_t init(const apphost_host_t *host)
        {
            g_host = host;
            say("init host=%s/%s size=%u abi=%u.%u dir=%s", host->name, host->version, (unsigned)host->struct_size,
                (unsigned)host->abi_version.major, (unsigned)host->abi_version.minor, host->data_directory(host));
            return APPHOST_OK;
        }

        static void deinit(void)
        {
            if (g_thread_started) {
                pthread_join(g_thread, NULL);
            }
            free(g_restored);
            say("deinit");
            g_host = NULL;
        }

        static const void *query(const char *interface_id)
        {
        #ifndef PROBE_NO_APP_CALLBACKS
            if (strcmp(interface_id, APPHOST_GUEST_APP_CALLBACKS_ID) == 0) {
                return &app_callbacks;
            }
        #endif
        #ifndef PROBE_NO_SCENE_CALLBACKS
            if (strcmp(interface_id, APPHOST_GUEST_SCENE_CALLBACKS_ID) == 0) {
                return &scene_callbacks;
            }
        #endif
            (void)app_callbacks;
            (void)scene_callbacks;
            return NULL;
        }

        static const apphost_guest_descriptor_t descriptor = {
            sizeof(apphost_guest_descriptor_t), "org.apphost.tests.probe", "Probe", "0.1", "apphost tests", NULL,
            APPHOST_CAPABILITY_MULTIPLE_SCENES | APPHOST_CAPABILITY_BACKGROUND_TASKS,
        };

        APPHOST_EXPORT const apphost_entry_t apphost_entry = {
            APPHOST_ABI_VERSION_INIT, &descriptor, init, deinit, query,
        };

        APPHOST_EXPORT const apphost_host_t *probe_host(void) { return g_host; }
        """#

    private static let built = Mutex<Set<String>>([])

    /// The probe built as `<name>.so` with `flags`, once per test run.
    static func library(name: String = "probe", flags: [String] = []) throws -> String {
        let output = GuestFixtures.path(name + ".so")
        guard !built.withLock({ $0.contains(output) }) else { return output }
        let sourcePath = GuestFixtures.path(name + ".c")
        try source.write(toFile: sourcePath, atomically: true, encoding: .utf8)
        try GuestFixtures.cc(
            ["-shared", "-fPIC", "-pthread", "-Wall", "-Wextra"] + flags + [sourcePath, "-o", output])
        built.withLock { _ = $0.insert(output) }
        return output
    }

    /// The host interface the loaded probe `<name>.so` got in init, NULL after deinit.
    static func host(named name: String = "probe") -> UnsafePointer<apphost_host_t>? {
        guard let library = dlopen(GuestFixtures.path(name + ".so"), RTLD_NOW | RTLD_NOLOAD) else { return nil }
        defer { dlclose(library) }
        guard let symbol = dlsym(library, "probe_host") else { return nil }
        typealias Hook = @convention(c) () -> UnsafePointer<apphost_host_t>?
        return unsafeBitCast(symbol, to: Hook.self)()
    }
}

// MARK: - Fixtures with test hooks

/// A fixture library this process loaded, whose exported test hooks (`fixture_run`,
/// `fixture_host`, ...) reach the copy the runtime runs.
protocol LoadedFixture {
    /// The library's name, without `.so`.
    var name: String { get }
}

extension LoadedFixture {
    /// Whether `<name>.so` is loaded in this process.
    static func isLoaded(_ name: String) -> Bool {
        guard let library = dlopen(GuestFixtures.path(name + ".so"), RTLD_NOW | RTLD_NOLOAD) else { return false }
        dlclose(library)
        return true
    }

    /// Runs the fixture's commands (see its header) on the calling thread.
    func run(_ commands: String) {
        hook("fixture_run", as: (@convention(c) (UnsafePointer<CChar>) -> Void).self)?(commands)
    }

    /// The host interface init got, NULL after deinit.
    func host() -> UnsafePointer<apphost_host_t>? {
        hook("fixture_host", as: (@convention(c) () -> UnsafePointer<apphost_host_t>?).self)?()
    }

    func hook<F>(_ symbol: String, as _: F.Type) -> F? {
        guard let library = dlopen(GuestFixtures.path(name + ".so"), RTLD_NOW | RTLD_NOLOAD) else { return nil }
        defer { dlclose(library) }
        return dlsym(library, symbol).map { unsafeBitCast($0, to: F.self) }
    }
}

/// Plugins/Fixtures/background_guest.c, built under a name (and guest id) of its own, and its test
/// hooks in the copy this process loaded.
struct BackgroundFixture: LoadedFixture {
    let name: String

    /// The fixture as `<name>.so`, guest id `org.apphost.fixtures.<name>`; `flags` go to cc.
    static func library(name: String = "background", flags: [String] = []) throws -> String {
        try GuestFixtures.library(
            "background_guest.c", name: name, flags: flags + ["-DFIXTURE_ID=\"org.apphost.fixtures.\(name)\""])
    }

    /// Nil unless `<name>.so` is loaded in this process.
    init?(name: String) {
        guard Self.isLoaded(name) else { return nil }
        self.name = name
    }

    /// The extension table get_extension gave init, NULL after deinit.
    func background() -> UnsafePointer<apphost_background_t>? {
        hook("fixture_background", as: (@convention(c) () -> UnsafePointer<apphost_background_t>?).self)?()
    }
}

/// Plugins/Fixtures/audio_runtime_guest.c, built under a name (and guest id) of its own, and its
/// test hooks in the copy this process loaded.
struct AudioFixture: LoadedFixture {
    let name: String

    /// What the fixture's init, will_terminate and deinit log (`at`): every function but
    /// get_session refused for the state, a refused combination for what it is.
    static func line(at place: String) -> String {
        "\(place) configure=invalid_state combination=invalid_combination activate=invalid_state 0 "
            + "deactivate=invalid_state rendering=invalid_state gain=invalid_state override=invalid_state session=ok "
            + "active=0"
    }

    /// The fixture as `<name>.so`, guest id `org.apphost.fixtures.<name>`; `flags` go to cc.
    static func library(name: String = "audio-runtime", flags: [String] = []) throws -> String {
        try GuestFixtures.library(
            "audio_runtime_guest.c", name: name,
            flags: flags + ["-Wall", "-Wextra", "-DFIXTURE_ID=\"org.apphost.fixtures.\(name)\""])
    }

    /// Nil unless `<name>.so` is loaded in this process.
    init?(name: String) {
        guard Self.isLoaded(name) else { return nil }
        self.name = name
    }

    /// The extension table get_extension gave init, NULL after deinit.
    func audio() -> UnsafePointer<apphost_audio_t>? {
        hook("fixture_audio", as: (@convention(c) () -> UnsafePointer<apphost_audio_t>?).self)?()
    }

    /// The session as get_session tells it to the calling thread, with the struct of ABI 1.4; nil
    /// when it fails or the guest is gone.
    func session() -> GuestRuntimeCTests.AudioSession? {
        guard let host = host(), let table = audio() else { return nil }
        var session = apphost_audio_session_t()
        session.struct_size = UInt32(MemoryLayout<apphost_audio_session_t>.size)
        guard table.pointee.get_session(host, &session) == StatusCode.ok else { return nil }
        return GuestRuntimeCTests.AudioSession(session)
    }
}

extension GuestRuntimeCTests.AudioSession {
    init(_ raw: apphost_audio_session_t) {
        self.init(
            category: raw.category, mode: raw.mode, options: raw.options, active: raw.active, output: raw.output,
            input: raw.input, sampleRate: raw.sample_rate, periodFrames: raw.period_frames,
            channelCount: raw.channel_count, gain: raw.gain)
    }
}

/// audio.h's values as its functions and the runtime's calls take them.
enum AudioConstants {
    static let ambient = Int32(APPHOST_AUDIO_CATEGORY_AMBIENT.rawValue)
    static let soloAmbient = Int32(APPHOST_AUDIO_CATEGORY_SOLO_AMBIENT.rawValue)
    static let playback = Int32(APPHOST_AUDIO_CATEGORY_PLAYBACK.rawValue)
    static let record = Int32(APPHOST_AUDIO_CATEGORY_RECORD.rawValue)
    static let playAndRecord = Int32(APPHOST_AUDIO_CATEGORY_PLAY_AND_RECORD.rawValue)
    static let defaultMode = Int32(APPHOST_AUDIO_MODE_DEFAULT.rawValue)
    static let spokenAudio = Int32(APPHOST_AUDIO_MODE_SPOKEN_AUDIO.rawValue)
    static let moviePlayback = Int32(APPHOST_AUDIO_MODE_MOVIE_PLAYBACK.rawValue)
    static let voiceChat = Int32(APPHOST_AUDIO_MODE_VOICE_CHAT.rawValue)
    static let videoChat = Int32(APPHOST_AUDIO_MODE_VIDEO_CHAT.rawValue)
    static let mixWithOthers = UInt32(APPHOST_AUDIO_OPTION_MIX_WITH_OTHERS.rawValue)
    static let duckOthers = UInt32(APPHOST_AUDIO_OPTION_DUCK_OTHERS.rawValue)
    static let interruptSpokenAudio = UInt32(APPHOST_AUDIO_OPTION_INTERRUPT_SPOKEN_AUDIO_AND_MIX_WITH_OTHERS.rawValue)
    static let defaultToSpeaker = UInt32(APPHOST_AUDIO_OPTION_DEFAULT_TO_SPEAKER.rawValue)
    static let speaker = Int32(APPHOST_AUDIO_OUTPUT_SPEAKER.rawValue)
    static let headphones = Int32(APPHOST_AUDIO_OUTPUT_HEADPHONES.rawValue)
    static let builtInMic = Int32(APPHOST_AUDIO_INPUT_BUILT_IN_MIC.rawValue)
    static let headsetMic = Int32(APPHOST_AUDIO_INPUT_HEADSET_MIC.rawValue)
    static let overrideNone = Int32(APPHOST_AUDIO_OVERRIDE_NONE.rawValue)
    static let overrideSpeaker = Int32(APPHOST_AUDIO_OVERRIDE_SPEAKER.rawValue)
    static let activated = Int32(APPHOST_AUDIO_ACTIVATED.rawValue)
    static let refusedCallInProgress = Int32(APPHOST_AUDIO_REFUSED_CALL_IN_PROGRESS.rawValue)
}

/// Plugins/Fixtures/scenes_runtime_guest.c, built under a name (and guest id) of its own, and its
/// test hooks in the copy this process loaded.
struct ScenesFixture: LoadedFixture {
    let name: String

    /// What the fixture's init logs: every request refused before the guest runs.
    static let initLine =
        "init request=invalid_state activate=invalid_state progress=invalid_state present=invalid_state modal=0 "
        + "dismiss=invalid_state notify=invalid_state"

    /// The fixture as `<name>.so`, guest id `org.apphost.fixtures.<name>`; `flags` go to cc.
    static func library(name: String = "scenes-runtime", flags: [String] = []) throws -> String {
        try GuestFixtures.library(
            "scenes_runtime_guest.c", name: name,
            flags: flags + ["-Wall", "-Wextra", "-DFIXTURE_ID=\"org.apphost.fixtures.\(name)\""])
    }

    /// Nil unless `<name>.so` is loaded in this process.
    init?(name: String) {
        guard Self.isLoaded(name) else { return nil }
        self.name = name
    }

    /// The extension table get_extension gave init, NULL after deinit.
    func scenes() -> UnsafePointer<apphost_scenes_t>? {
        hook("fixture_scenes", as: (@convention(c) () -> UnsafePointer<apphost_scenes_t>?).self)?()
    }
}
