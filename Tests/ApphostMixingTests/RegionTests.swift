import ApphostMixing
import Foundation
import XCTest

/// A session region (mix_region.h): a guest side renders periods into shared memory, on a thread of
/// its own or in a process of its own, and the host side collects them at its deadlines without
/// ever waiting. A frozen or dead renderer costs xruns, never a stalled mixer (C13, C14).
final class RegionTests: XCTestCase {
    /// A region handle given to the renderer thread: the region is shared memory made for it.
    private struct Shared: @unchecked Sendable {
        let region: OpaquePointer
    }

    private static let frames: UInt32 = 480
    private static let channels: UInt32 = 2
    private static let samples = Int(frames * channels)

    private static func create(ring: UInt32 = 2) throws -> OpaquePointer {
        var error = [CChar](repeating: 0, count: Int(MIX_REGION_ERROR_BYTES))
        guard let region = mix_region_create(frames, channels, ring, &error, error.count) else {
            throw Failure(description: Self.text(error))
        }
        return region
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The NUL-terminated text of an error buffer.
    private static func text(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Sample `index` of period `period` in the counter pattern: a different exact float for every
    /// sample of the first 17,000 periods.
    private static func counter(_ period: UInt64, _ index: Int) -> Float {
        Float((period * UInt64(samples) + UInt64(index)) % (1 << 24))
    }

    // C13: a renderer thread maps the region on its own fds, as a worker would, and renders a
    // counter pattern for each period it is woken for; the host side requests and collects 1000
    // periods (free pacing: the test, not the API, waits for each to complete) and sees each one's
    // data, in order, with no xrun.
    func testRendererThreadDeliversEveryPeriodInOrder() throws {
        let host = try Self.create()
        defer { mix_region_close(host) }
        var error = [CChar](repeating: 0, count: Int(MIX_REGION_ERROR_BYTES))
        guard
            let guest = mix_region_map(
                dup(mix_region_memfd(host)), dup(mix_region_wake_fd(host)), &error, error.count)
        else { return XCTFail("map: \(Self.text(error))") }
        let shared = Shared(region: guest)
        let finished = DispatchSemaphore(value: 0)
        let periods: UInt64 = 1000
        let thread = Thread {
            var timeouts = 0
            while timeouts < 10 {
                let period = mix_region_wait(shared.region, 1_000_000_000)
                if period == MIX_REGION_NONE {
                    timeouts += 1
                    continue
                }
                let buffer = mix_region_buffer(shared.region, period)!
                for index in 0..<Self.samples { buffer[index] = Self.counter(period, index) }
                mix_region_done(shared.region, period)
                if period == periods - 1 { break }
            }
            finished.signal()
        }
        thread.start()
        for period in 0..<periods {
            XCTAssertTrue(mix_region_request(host, period))
            let deadline = Date().addingTimeInterval(10)
            while mix_region_rendered(host) != period && Date() < deadline { usleep(20) }
            guard let samples = mix_region_collect(host, period) else {
                XCTFail("period \(period) not collected")
                break
            }
            for index in 0..<Self.samples where samples[index] != Self.counter(period, index) {
                XCTFail("period \(period) sample \(index) is \(samples[index])")
                break
            }
        }
        XCTAssertEqual(finished.wait(timeout: .now() + 15), .success, "the renderer thread ended")
        XCTAssertEqual(mix_region_xruns(host), 0)
        XCTAssertEqual(mix_region_periods_rendered(host), periods)
        XCTAssertEqual(mix_region_requested(guest), periods - 1)
        mix_region_close(guest)
    }

    // C13: a period the renderer has not completed is NULL and one xrun, at once; a renderer that
    // finished the next period early does not hide the one due, nor is a late one taken for it.
    func testCollectNeverWaitsForAnUnrenderedPeriod() throws {
        let host = try Self.create()
        defer { mix_region_close(host) }
        XCTAssertEqual(mix_region_requested(host), MIX_REGION_NONE)
        XCTAssertEqual(mix_region_rendered(host), MIX_REGION_NONE)
        XCTAssertNil(mix_region_collect(host, 0), "nothing rendered yet")
        XCTAssertEqual(mix_region_xruns(host), 1)
        // The host side's own handle plays the guest here: one thread, in order.
        mix_region_request(host, 0)
        XCTAssertEqual(mix_region_wait(host, 0), 0)
        XCTAssertEqual(mix_region_wait(host, 1_000_000), MIX_REGION_NONE, "no new request: times out")
        mix_region_request(host, 1)
        XCTAssertEqual(mix_region_wait(host, 0), 1)
        mix_region_buffer(host, 1)![0] = 0.25
        mix_region_done(host, 1)
        XCTAssertNil(mix_region_collect(host, 0), "period 1 done does not make period 0 done")
        XCTAssertEqual(mix_region_collect(host, 1)?[0], 0.25)
        XCTAssertNil(mix_region_collect(host, 3), "slot 1 holds period 1, not 3")
        XCTAssertEqual(mix_region_xruns(host), 3)
        // The header's copy of the xruns (offset 72) is the guest's to read, and to spoil: the
        // host's count is its own.
        var error = [CChar](repeating: 0, count: Int(MIX_REGION_ERROR_BYTES))
        guard
            let guest = mix_region_map(
                dup(mix_region_memfd(host)), dup(mix_region_wake_fd(host)), &error, error.count)
        else { return XCTFail("map: \(Self.text(error))") }
        defer { mix_region_close(guest) }
        XCTAssertEqual(mix_region_xruns(guest), 3)
        var zero: UInt64 = 0
        XCTAssertEqual(pwrite(mix_region_memfd(host), &zero, 8, 72), 8)
        XCTAssertEqual(mix_region_xruns(guest), 0)
        XCTAssertEqual(mix_region_xruns(host), 3)
        // Requests made while the renderer was away: it renders the latest only.
        mix_region_request(host, 2)
        mix_region_request(host, 3)
        XCTAssertEqual(mix_region_wait(host, 0), 3)
    }

    // C13: sizes out of bounds are refused with one line; the memfd is sealed at its size; a file
    // that is not a region (wrong magic, version or size, shorter than a header) is refused by map
    // with one line naming what.
    // C13: the host writes a period's captured input into its slot before it requests it, and the
    // guest side reads it there beside the output it renders, untouched by the output; interrupting
    // the guest side makes its wait return at once, and for good.
    func testInputTravelsBesideOutputAndInterruptEndsTheWait() throws {
        let host = try Self.create()
        defer { mix_region_close(host) }
        var error = [CChar](repeating: 0, count: Int(MIX_REGION_ERROR_BYTES))
        guard
            let guest = mix_region_map(
                dup(mix_region_memfd(host)), dup(mix_region_wake_fd(host)), &error, error.count)
        else { return XCTFail("map: \(Self.text(error))") }
        defer { mix_region_close(guest) }
        for period: UInt64 in 0..<4 {
            let input = mix_region_input(host, period)!
            for index in 0..<Self.samples { input[index] = -Self.counter(period, index) }
            XCTAssertTrue(mix_region_request(host, period))
            XCTAssertEqual(mix_region_wait(guest, 1_000_000_000), period)
            let output = mix_region_buffer(guest, period)!
            let captured = mix_region_input(guest, period)!
            for index in 0..<Self.samples { output[index] = captured[index] * -2 }
            mix_region_done(guest, period)
            let collected = try XCTUnwrap(mix_region_collect(host, period))
            for index in 0..<Self.samples where collected[index] != 2 * Self.counter(period, index) {
                return XCTFail("period \(period) sample \(index): \(collected[index])")
            }
        }
        mix_region_interrupt(guest)
        let start = Date()
        XCTAssertEqual(mix_region_wait(guest, -1), MIX_REGION_NONE)
        XCTAssertTrue(mix_region_request(host, 4))
        XCTAssertEqual(mix_region_wait(guest, -1), MIX_REGION_NONE, "interrupted for good, even with a request")
        XCTAssertLessThan(Date().timeIntervalSince(start), 5)
    }

    func testMapRefusesCorruptOrShortRegions() throws {
        var error = [CChar](repeating: 0, count: Int(MIX_REGION_ERROR_BYTES))
        XCTAssertNil(mix_region_create(480, 2, 1, &error, error.count))
        XCTAssertTrue(Self.text(error).contains("periods in the ring"), Self.text(error))
        XCTAssertNil(mix_region_create(0, 2, 2, &error, error.count))
        XCTAssertTrue(Self.text(error).contains("frames"), Self.text(error))

        let host = try Self.create()
        defer { mix_region_close(host) }
        var bytes = [UInt8](repeating: 0, count: mix_region_total_bytes(host))
        XCTAssertEqual(pread(mix_region_memfd(host), &bytes, bytes.count, 0), bytes.count)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("apphost-region-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        func map(_ name: String, _ content: [UInt8]) -> String? {
            let path = directory.appendingPathComponent(name).path
            _ = FileManager.default.createFile(atPath: path, contents: Data(content))
            let fd = open(path, O_RDWR)
            let wake = dup(mix_region_wake_fd(host))
            var error = [CChar](repeating: 0, count: Int(MIX_REGION_ERROR_BYTES))
            if let region = mix_region_map(fd, wake, &error, error.count) {
                mix_region_close(region)
                return nil
            }
            close(fd)
            close(wake)
            return Self.text(error)
        }
        func assertRefused(_ name: String, _ content: [UInt8], saying words: String, line: UInt = #line) {
            guard let error = map(name, content) else { return XCTFail("\(name) was mapped", line: line) }
            XCTAssertTrue(error.contains(words), "\(name): \(error)", line: line)
            XCTAssertTrue(error.hasPrefix("audio region: "), error, line: line)
            XCTAssertFalse(error.contains("\n"), "one line: \(error)", line: line)
        }

        // Sealed: no side can shrink (or grow) the memfd under the other's mapping, which would
        // raise SIGBUS in the host.
        XCTAssertEqual(ftruncate(mix_region_memfd(host), 4096), -1)
        XCTAssertEqual(errno, EPERM)
        XCTAssertEqual(ftruncate(mix_region_memfd(host), off_t(mix_region_total_bytes(host) * 2)), -1)
        XCTAssertEqual(errno, EPERM)

        XCTAssertNil(map("good", bytes), "an exact copy is a region")
        var wrongMagic = bytes
        wrongMagic[0] ^= 0xff
        assertRefused("magic", wrongMagic, saying: "wrong magic")
        var wrongVersion = bytes
        wrongVersion[4] = 99
        assertRefused("version", wrongVersion, saying: "version 99")
        assertRefused("short", Array(bytes.dropLast(64)), saying: "wrong size")
        assertRefused("long", bytes + [UInt8](repeating: 0, count: 4096), saying: "wrong size")
        assertRefused("header-only", Array(bytes.prefix(100)), saying: "shorter than the 256-byte header")
        assertRefused("empty", [], saying: "shorter than")
        var wrongFrames = bytes
        // 960 frames (0x03c0 at offset 12) where the sizes written are those of 480.
        wrongFrames[12] = 0xc0
        wrongFrames[13] = 0x03
        assertRefused("frames", wrongFrames, saying: "do not match")
        XCTAssertNil(mix_region_map(-1, -1, &error, error.count))
    }

    // C13, C14: a guest in another process (a small C program inheriting the memfd and eventfd)
    // renders a 440 Hz tone; the host side collects 100 real-time 10 ms periods of it with no xrun.
    // Stopped (SIGSTOP, as the freezer's fallback does), it renders nothing: every period asked
    // for meanwhile is NULL and an xrun, and no collect waits. Continued, it renders again. Killed,
    // its periods are NULL and xruns, and the host neither hangs nor gets SIGPIPE or SIGBUS.
    func testGuestProcessStoppedAndKilledNeverBlocksTheMixer() throws {
        let renderer = try Self.buildRenderer()
        defer { unlink(renderer) }
        let host = try Self.create()
        defer { mix_region_close(host) }
        var child = try Self.spawn(
            renderer,
            fds: [mix_region_memfd(host), mix_region_wake_fd(host)],
            arguments: ["\(mix_region_memfd(host))", "\(mix_region_wake_fd(host))", "440", "0.5", "48000"])
        defer {
            if child != 0 {
                kill(child, SIGKILL)
                var status: Int32 = 0
                waitpid(child, &status, 0)
            }
        }
        // The child maps the region and renders period 0: then the clock starts.
        XCTAssertTrue(mix_region_request(host, 0))
        let started = Date().addingTimeInterval(10)
        while mix_region_rendered(host) != 0 && Date() < started { usleep(1000) }
        XCTAssertEqual(mix_region_rendered(host), 0, "the renderer process started")

        var pacer = mix_pacer()
        mix_pacer_init(&pacer, MIX_CLOCK_REAL, 48_000, Self.frames)
        mix_pacer_start(&pacer)
        var requested: UInt64 = 0
        var slowest: TimeInterval = 0
        /// One deadline: asks for the next period, collects the one asked for at the last deadline.
        func tick() -> (period: UInt64, samples: UnsafePointer<Float>?) {
            var tick = mix_tick()
            mix_pacer_wait(&pacer, &tick)
            let began = Date()
            let due = requested
            requested += 1
            XCTAssertTrue(mix_region_request(host, requested))
            let samples = mix_region_collect(host, due)
            slowest = max(slowest, Date().timeIntervalSince(began))
            return (due, samples)
        }
        func assertTone(_ period: UInt64, _ samples: UnsafePointer<Float>, line: UInt = #line) {
            let expected = Signals.sine(
                frequency: 440, amplitude: 0.5, firstFrame: Int(period) * Int(Self.frames), frames: Int(Self.frames),
                channels: Int(Self.channels))
            for index in 0..<Self.samples where abs(samples[index] - expected[index]) > 1e-6 {
                return XCTFail(
                    "period \(period) sample \(index): \(samples[index]), not \(expected[index])", line: line)
            }
        }

        // Running: 100 periods, each one's tone, no xrun.
        for _ in 0..<100 {
            let (period, samples) = tick()
            guard let samples else {
                XCTFail("period \(period) missed by a running renderer")
                continue
            }
            assertTone(period, samples)
        }
        XCTAssertEqual(mix_region_xruns(host), 0)

        // Stopped: what is asked for from now on is never rendered.
        XCTAssertEqual(kill(child, SIGSTOP), 0)
        var status: Int32 = 0
        XCTAssertEqual(waitpid(child, &status, WUNTRACED), child)
        XCTAssertEqual(status & 0xff, 0x7f, "stopped")
        let firstAfterStop = requested + 1
        var xrunsBefore = mix_region_xruns(host)
        var missed: UInt64 = 0
        for _ in 0..<30 {
            let (period, samples) = tick()
            if period >= firstAfterStop {
                XCTAssertNil(samples, "period \(period) rendered by a stopped process")
            }
            if samples == nil { missed += 1 }
        }
        XCTAssertGreaterThanOrEqual(missed, 29)
        XCTAssertEqual(mix_region_xruns(host) - xrunsBefore, missed)

        // Continued: it renders the latest request, and every one after.
        XCTAssertEqual(kill(child, SIGCONT), 0)
        var inARow = 0
        for _ in 0..<200 where inARow < 50 {
            let (period, samples) = tick()
            if let samples {
                assertTone(period, samples)
                inARow += 1
            } else {
                inARow = 0
            }
        }
        XCTAssertEqual(inARow, 50, "the continued renderer renders every period again")

        // Killed: NULL and xruns; requests still succeed (an eventfd has no SIGPIPE), the mapping
        // stays the host's (no SIGBUS).
        XCTAssertEqual(kill(child, SIGKILL), 0)
        XCTAssertEqual(waitpid(child, &status, 0), child)
        child = 0
        xrunsBefore = mix_region_xruns(host)
        let firstAfterDeath = requested + 1
        missed = 0
        for _ in 0..<30 {
            let (period, samples) = tick()
            if period >= firstAfterDeath { XCTAssertNil(samples, "period \(period) rendered by a dead process") }
            if samples == nil { missed += 1 }
        }
        XCTAssertGreaterThanOrEqual(missed, 29)
        XCTAssertEqual(mix_region_xruns(host) - xrunsBefore, missed)
        print(
            "region: \(requested) periods, \(mix_region_xruns(host)) xruns, \(mix_region_periods_rendered(host)) "
                + "rendered, slowest request+collect \(Int(slowest * 1e6)) µs, pacer missed \(pacer.missed)")
    }

    // MARK: - The renderer program

    private static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Plugins/Fixtures/region_renderer.c built with cc, with mix_region.c, into a temporary file.
    /// EngineTests builds it too.
    static func buildRenderer() throws -> String {
        let output = FileManager.default.temporaryDirectory
            .appendingPathComponent("apphost-region-renderer-\(getpid())-\(UUID().uuidString)").path
        func source(_ path: String) -> String { packageRoot.appendingPathComponent(path).path }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "cc", "-std=gnu11", "-O1", "-Wall", "-I", source("Sources/ApphostMixing/include"),
            source("Plugins/Fixtures/region_renderer.c"), source("Sources/ApphostMixing/mix_region.c"), "-lm", "-o",
            output,
        ]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw Failure(description: "cc failed:\n\(text)") }
        return output
    }

    /// posix_spawn of `path`, the `fds` inherited as they are (their FD_CLOEXEC cleared in the child
    /// only, by dup2 onto themselves), nothing else of the test process's.
    static func spawn(_ path: String, fds: [Int32], arguments: [String]) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for fd in fds { posix_spawn_file_actions_adddup2(&actions, fd, fd) }
        var argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, path, &actions, nil, &argv, environ)
        guard result == 0 else {
            throw Failure(description: "posix_spawn \(path): \(String(cString: strerror(result)))")
        }
        return pid
    }
}
