import ApphostGuestRuntime
import ApphostMixing
import CApphost
import Foundation
import Synchronization
import XCTest

/// The guest runtime's audio thread (audio_renderer.c, AUDIO_STREAM in apphost_guest_runtime.h),
/// driven in process: the test plays the host's mixer on the host side of a session region
/// (mix_region.h) and the runtime renders Plugins/Fixtures/audio_runtime_guest.c's `render` into
/// it. The fixture's signal is 0.25 + ((period * frames + frame) % 100) / 1000 on every channel,
/// or the input copied when the session records.
final class AudioRenderRuntimeTests: XCTestCase {
    private var runtimes: [OpaquePointer] = []
    private var recorders: [GuestRuntimeCTests.ReporterRecorder] = []
    private var regions: [HostRegion] = []

    override func tearDown() {
        for runtime in runtimes { ahr_stop(runtime) }
        runtimes = []
        recorders = []
        regions = []
    }

    // MARK: When render runs

    // CONTRACT C13 C5: a stream handed over before the session is active gets silence, yet every
    // period is completed (no xrun) and render is not called; a refused activation changes
    // nothing.
    func testPeriodsAreSilentButCompletedBeforeTheActivationIsAnswered() throws {
        let (runtime, fixture) = try started("render-silent-before")
        let region = try stream(to: runtime)
        fixture.run("configure 2 0 0;activate;activate")
        for _ in 0..<3 { XCTAssertEqual(try region.render(), region.silence) }
        XCTAssertEqual(finish(2, AudioConstants.refusedCallInProgress, on: runtime), 0)
        for _ in 0..<3 { XCTAssertEqual(try region.render(), region.silence) }
        XCTAssertEqual(fixture.renderCalls(), 0, "render is not called while inactive")
        XCTAssertEqual(mix_region_xruns(region.region), 0)
    }

    // CONTRACT C13: once activation_finished said ACTIVATED, every period holds the guest's
    // samples for that period's number, in phase with the host's clock.
    func testTheGuestsSamplesAfterTheActivation() throws {
        let (runtime, fixture) = try started("render-after-activation")
        let region = try stream(to: runtime)
        fixture.run("configure 2 0 0;activate")
        XCTAssertEqual(try region.render(), region.silence)
        XCTAssertEqual(finish(1, AudioConstants.activated, on: runtime), 0)
        for _ in 0..<5 {
            let period = region.next
            XCTAssertEqual(try region.render(), region.signal(period), "period \(period)")
        }
        // A period the host skipped (not mixed) does not shift the tone: its number says where it is.
        region.next += 7
        XCTAssertEqual(try region.render(), region.signal(region.next - 1))
        XCTAssertEqual(fixture.renderCalls(), 6)
        XCTAssertEqual(mix_region_xruns(region.region), 0)
    }

    // CONTRACT C6: an interrupted session is inactive when the guest hears of it, and silent from
    // the very next period on.
    func testSilenceRightAfterAnInterruptionBegan() throws {
        let (runtime, fixture) = try started("render-interrupted")
        let region = try stream(to: runtime)
        fixture.run("configure 2 0 0;activate")
        XCTAssertEqual(finish(1, AudioConstants.activated, on: runtime), 0)
        XCTAssertEqual(try region.render(), region.signal(0))
        XCTAssertEqual(
            deliverAudio(AHR_CALL_AUDIO_INTERRUPTION_BEGAN, to: runtime) {
                $0.audio_interruption_began.interruption_reason = 2
            }, 0)
        let calls = fixture.renderCalls()
        for _ in 0..<3 { XCTAssertEqual(try region.render(), region.silence) }
        XCTAssertEqual(fixture.renderCalls(), calls, "no render while interrupted")
        XCTAssertEqual(mix_region_xruns(region.region), 0)
    }

    // CONTRACT C13 C5: deactivate silences the session from the next period on; activating again
    // brings its sound back.
    func testSilenceAfterDeactivate() throws {
        let (runtime, fixture) = try started("render-deactivated")
        let region = try stream(to: runtime)
        fixture.run("configure 2 0 0;activate")
        XCTAssertEqual(finish(1, AudioConstants.activated, on: runtime), 0)
        XCTAssertEqual(try region.render(), region.signal(0))
        fixture.run("deactivate 0")
        for _ in 0..<3 { XCTAssertEqual(try region.render(), region.silence) }
        fixture.run("activate")
        XCTAssertEqual(finish(2, AudioConstants.activated, on: runtime), 0)
        XCTAssertEqual(try region.render(), region.signal(4))
        XCTAssertEqual(mix_region_xruns(region.region), 0)
    }

    // MARK: Input

    // CONTRACT C13: record and playAndRecord sessions get, in `input`, what the host captured for
    // the period (mix_region_input), which the fixture copies to its output.
    func testRecordingSessionsGetTheHostsInput() throws {
        for (category, name) in [
            (AudioConstants.record, "render-record"), (AudioConstants.playAndRecord, "render-both"),
        ] {
            let (runtime, fixture) = try started(name)
            let region = try stream(to: runtime)
            fixture.run("configure \(category) 0 0;activate")
            XCTAssertEqual(finish(1, AudioConstants.activated, on: runtime), 0)
            for round in 0..<3 {
                let input = (0..<region.samples).map { Float(round * region.samples + $0) / 10_000 - 0.5 }
                XCTAssertEqual(try region.render(input: input), input, "category \(category), round \(round)")
            }
            XCTAssertEqual(fixture.renderInputs(), 3, "category \(category)")
        }
    }

    // CONTRACT C13: a playback session gets NULL input, whatever the host wrote there.
    func testPlaybackGetsNoInput() throws {
        let (runtime, fixture) = try started("render-playback-input")
        let region = try stream(to: runtime)
        fixture.run("configure 2 0 0;activate")
        XCTAssertEqual(finish(1, AudioConstants.activated, on: runtime), 0)
        let input = [Float](repeating: -0.75, count: region.samples)
        for _ in 0..<3 {
            let period = region.next
            XCTAssertEqual(try region.render(input: input), region.signal(period))
        }
        XCTAssertEqual(fixture.renderCalls(), 3)
        XCTAssertEqual(fixture.renderInputs(), 0)
    }

    // MARK: Refused streams

    // ahr_handle takes both descriptors whatever it returns: a guest without render (NULL, a table
    // of ABI 1.4 that ends before it, or no audio table) gets UNSUPPORTED, and both are closed.
    func testAGuestWithoutRenderIsUnsupportedAndTheDescriptorsAreClosed() throws {
        let variants = [
            ("render-null", ["-DFIXTURE_NO_RENDER"]),
            ("render-abi-1-4", ["-DFIXTURE_AUDIO_CALLBACKS_SIZE=offsetof(apphost_guest_audio_t,render)"]),
            ("render-no-table", ["-DFIXTURE_NO_AUDIO_CALLBACKS"]),
        ]
        for (name, flags) in variants {
            let (runtime, _) = try started(name, flags: flags)
            XCTAssertEqual(setUpAudio(runtime), 0)
            let region = try HostRegion()
            let before = Self.openDescriptors()
            let (memfd, wake) = region.duplicates()
            XCTAssertEqual(Self.openDescriptors(), before + 2)
            XCTAssertEqual(deliverStream(memfd, wake, to: runtime), StatusCode.unsupported, name)
            XCTAssertEqual(Self.openDescriptors(), before, "\(name): both descriptors closed")
            XCTAssertFalse(Self.isOpen(memfd), name)
            XCTAssertFalse(Self.isOpen(wake), name)
        }
    }

    // AUDIO_STREAM before AUDIO_SETUP: INVALID_STATE (no format to check the region against), and
    // both descriptors closed.
    func testAStreamBeforeSetupIsInvalidState() throws {
        let (runtime, fixture) = try started("render-before-setup")
        let region = try HostRegion()
        let before = Self.openDescriptors()
        let (memfd, wake) = region.duplicates()
        XCTAssertEqual(deliverStream(memfd, wake, to: runtime), StatusCode.invalidState)
        XCTAssertEqual(Self.openDescriptors(), before)
        XCTAssertFalse(Self.isOpen(memfd))
        XCTAssertFalse(Self.isOpen(wake))
        // Nothing renders it.
        mix_region_request(region.region, 0)
        usleep(50_000)
        XCTAssertEqual(mix_region_rendered(region.region), MIX_REGION_NONE)
        XCTAssertEqual(fixture.renderCalls(), 0)
    }

    // MARK: The thread

    // A second AUDIO_STREAM replaces the first: the first region's thread stops (its requests go
    // unanswered) and the new region is rendered.
    func testASecondStreamReplacesTheFirst() throws {
        let (runtime, fixture) = try started("render-replaced")
        let first = try stream(to: runtime)
        fixture.run("configure 2 0 0;activate")
        XCTAssertEqual(finish(1, AudioConstants.activated, on: runtime), 0)
        XCTAssertEqual(try first.render(), first.signal(0))
        let second = try stream(to: runtime)
        second.next = 100
        XCTAssertEqual(try second.render(), second.signal(100))
        XCTAssertEqual(try second.render(), second.signal(101))
        mix_region_request(first.region, 1)
        usleep(100_000)
        XCTAssertEqual(mix_region_rendered(first.region), 0, "the first thread is gone")
        XCTAssertNil(mix_region_collect(first.region, 1))
        XCTAssertEqual(fixture.renderCalls(), 3)
    }

    // ahr_stop stops the audio thread before deinit: with the host asking for a period every
    // millisecond throughout, and deinit taking 50 ms, render never runs once deinit began.
    func testStopEndsTheThreadBeforeDeinit() throws {
        let name = "render-stop"
        let path = try AudioFixture.library(name: name, flags: ["-DFIXTURE_SLOW_DEINIT=50000"])
        // Held, so that the fixture's counters outlive the runtime's dlclose.
        let held = try XCTUnwrap(dlopen(path, RTLD_NOW))
        defer { dlclose(held) }
        let (runtime, fixture) = try started(name, flags: ["-DFIXTURE_SLOW_DEINIT=50000"])
        let region = try stream(to: runtime)
        fixture.run("configure 2 0 0;activate")
        XCTAssertEqual(finish(1, AudioConstants.activated, on: runtime), 0)
        XCTAssertEqual(try region.render(), region.signal(0))

        let mixer = Mixer(region)
        let thread = Thread { mixer.run() }
        thread.start()
        while mixer.asked.load(ordering: .acquiring) < 20 { usleep(1000) }
        runtimes.removeAll { $0 == runtime }
        ahr_stop(runtime)
        mixer.stop.store(true, ordering: .releasing)
        while !mixer.done.load(ordering: .acquiring) { usleep(1000) }

        XCTAssertEqual(fixture.int("fixture_deinit_began"), 1)
        XCTAssertGreaterThan(fixture.renderCalls(), 1, "it rendered while the mixer asked")
        XCTAssertEqual(fixture.int("fixture_render_after_deinit"), 0, "render ran during deinit")
    }

    // audio.h: render never runs on the main queue. The fixture compares its thread with the one
    // of every main-queue callback (here the test's thread, which plays the main queue).
    func testRenderNeverRunsOnTheMainQueueThread() throws {
        let (runtime, fixture) = try started("render-thread")
        let region = try stream(to: runtime)
        fixture.run("configure 2 0 0;activate")
        XCTAssertEqual(finish(1, AudioConstants.activated, on: runtime), 0)
        for _ in 0..<5 { _ = try region.render() }
        XCTAssertEqual(
            deliverAudio(AHR_CALL_SECONDARY_AUDIO_HINT, to: runtime) {
                $0.secondary_audio_hint.silence_secondary = true
            }, 0)
        for _ in 0..<5 { _ = try region.render() }
        XCTAssertEqual(fixture.renderCalls(), 10)
        let renderThread = fixture.renderThread()
        XCTAssertNotEqual(renderThread, 0)
        XCTAssertNotEqual(renderThread, UInt64(pthread_self()), "the test's thread is the main queue")
        XCTAssertEqual(fixture.int("fixture_render_on_main_thread"), 0)
        // The runtime names its thread to the host, which may raise it to real-time (C13).
        let named = recorders.last!.timeline.compactMap { entry -> UInt64? in
            if case .audioThread(let thread, _) = entry { thread } else { nil }
        }
        XCTAssertEqual(named.count, 1, "one stream, one thread")
        let ourThread = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self")
        XCTAssertFalse(ourThread.hasSuffix("/task/\(named.first ?? 0)"), "not the test's thread: \(ourThread)")
        XCTAssertTrue(FileManager.default.fileExists(atPath: "/proc/self/task/\(named.first ?? 0)"), "a thread of ours")
    }

    // MARK: Harness

    /// The fixture as `<name>.so`, loaded and started in process, with its hooks.
    private func started(_ name: String, flags: [String] = []) throws -> (OpaquePointer, AudioFixture) {
        let path = try AudioFixture.library(name: name, flags: flags)
        var error = [CChar](repeating: 0, count: 4096)
        var loaded: OpaquePointer?
        let result = ahr_load(path, &loaded, &error, error.count)
        let runtime = try XCTUnwrap(loaded, text(error))
        runtimes.append(runtime)
        XCTAssertEqual(result, AHR_LOAD_OK)
        let recorder = GuestRuntimeCTests.ReporterRecorder()
        recorders.append(recorder)
        var status: Int32 = -1
        XCTAssertEqual(ahr_start(runtime, "/data/render", "apphost", "9.8.7", recorder.reporter, &status), AHR_START_OK)
        XCTAssertEqual(status, 0)
        return (runtime, try XCTUnwrap(AudioFixture(name: name)))
    }

    /// AUDIO_SETUP as the tests' host gives it: 48 kHz, periods of 480 frames, stereo.
    private func setUpAudio(_ runtime: OpaquePointer) -> Int32 {
        deliverAudio(AHR_CALL_AUDIO_SETUP, to: runtime) {
            ($0.audio_setup.sample_rate, $0.audio_setup.period_frames, $0.audio_setup.channel_count) = (48000, 480, 2)
            ($0.audio_setup.output, $0.audio_setup.input) = (AudioConstants.speaker, AudioConstants.builtInMic)
        }
    }

    /// AUDIO_SETUP, then a new region handed to the runtime (copies of its descriptors).
    private func stream(to runtime: OpaquePointer, file: StaticString = #filePath, line: UInt = #line) throws
        -> HostRegion
    {
        XCTAssertEqual(setUpAudio(runtime), 0, file: file, line: line)
        let region = try HostRegion()
        regions.append(region)
        let (memfd, wake) = region.duplicates()
        XCTAssertEqual(deliverStream(memfd, wake, to: runtime), 0, file: file, line: line)
        return region
    }

    private func deliverStream(_ memfd: Int32, _ wake: Int32, to runtime: OpaquePointer) -> Int32 {
        deliverAudio(AHR_CALL_AUDIO_STREAM, to: runtime) {
            $0.audio_stream.audio_memfd = memfd
            $0.audio_stream.audio_wake_fd = wake
        }
    }

    private func deliverAudio(
        _ kind: ahr_call_kind, to runtime: OpaquePointer, _ edit: (inout ahr_call) -> Void = { _ in }
    ) -> Int32 {
        var call = ahr_call()
        call.kind = kind
        call.app_state = Int32(APPHOST_APP_STATE_ACTIVE.rawValue)
        if kind == AHR_CALL_AUDIO_STREAM {
            call.audio_stream.audio_memfd = -1
            call.audio_stream.audio_wake_fd = -1
        }
        edit(&call)
        return ahr_handle(runtime, &call)
    }

    private func finish(_ request: UInt64, _ result: Int32, on runtime: OpaquePointer) -> Int32 {
        deliverAudio(AHR_CALL_AUDIO_ACTIVATION_FINISHED, to: runtime) {
            $0.audio_activation_finished.audio_request = request
            $0.audio_activation_finished.activation_result = result
        }
    }

    private static func openDescriptors() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
    }

    private static func isOpen(_ descriptor: Int32) -> Bool { fcntl(descriptor, F_GETFD) != -1 }
}

/// The host's side of one session region, as the mixer uses it: ask for a period, wait for the
/// guest to complete it, collect it.
final class HostRegion: @unchecked Sendable {
    struct NotRendered: Error, CustomStringConvertible {
        let period: UInt64
        var description: String { "period \(period) was not rendered within 2 s" }
    }

    let region: OpaquePointer
    let frames: UInt32 = 480
    let channels: UInt32 = 2
    /// The next period `render` asks for.
    var next: UInt64 = 0

    var samples: Int { Int(frames * channels) }
    var silence: [Float] { [Float](repeating: 0, count: samples) }

    init() throws {
        var error = [CChar](repeating: 0, count: Int(MIX_REGION_ERROR_BYTES))
        region = try XCTUnwrap(mix_region_create(480, 2, 2, &error, error.count), text(error))
    }

    deinit { mix_region_close(region) }

    /// Copies of the descriptors, for the runtime to take.
    func duplicates() -> (Int32, Int32) { (dup(mix_region_memfd(region)), dup(mix_region_wake_fd(region))) }

    /// The fixture's signal for `period`.
    func signal(_ period: UInt64) -> [Float] {
        (0..<Int(frames)).flatMap { frame in
            let position = period * UInt64(frames) + UInt64(frame)
            let value = 0.25 + Float(position % 100) / 1000
            return [Float](repeating: value, count: Int(channels))
        }
    }

    /// Asks for the next period, with `input` as the host's capture, and returns what the guest
    /// completed; throws when it did not within 2 s (an xrun).
    func render(input: [Float]? = nil) throws -> [Float] {
        let period = next
        next += 1
        if let input { mix_region_input(region, period)!.update(from: input, count: samples) }
        XCTAssertTrue(mix_region_request(region, period))
        let deadline = Date() + 2
        while mix_region_rendered(region) != period && Date() < deadline { usleep(50) }
        guard let collected = mix_region_collect(region, period) else { throw NotRendered(period: period) }
        return Array(UnsafeBufferPointer(start: collected, count: samples))
    }
}

/// A mixer thread that asks for a period every millisecond and collects it, until told to stop.
/// `@unchecked Sendable`: only its thread uses the region while it runs.
private final class Mixer: @unchecked Sendable {
    let asked = Atomic<Int>(0)
    let stop = Atomic<Bool>(false)
    let done = Atomic<Bool>(false)
    private let region: OpaquePointer
    private let first: UInt64

    init(_ host: HostRegion) {
        region = host.region
        first = host.next
    }

    func run() {
        var period = first
        while !stop.load(ordering: .acquiring) {
            mix_region_request(region, period)
            usleep(1000)
            _ = mix_region_collect(region, period)
            period += 1
            asked.add(1, ordering: .releasing)
        }
        done.store(true, ordering: .releasing)
    }
}

/// The NUL-terminated text in `buffer`.
private func text(_ buffer: [CChar]) -> String {
    String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

extension AudioFixture {
    func renderCalls() -> UInt64 { hook("fixture_render_calls", as: (@convention(c) () -> UInt64).self)?() ?? 0 }
    func renderInputs() -> UInt64 { hook("fixture_render_inputs", as: (@convention(c) () -> UInt64).self)?() ?? 0 }
    func renderThread() -> UInt64 { hook("fixture_render_thread", as: (@convention(c) () -> UInt64).self)?() ?? 0 }
    /// An int hook's value, -1 when the library is gone.
    func int(_ symbol: String) -> Int32 { hook(symbol, as: (@convention(c) () -> Int32).self)?() ?? -1 }
}
