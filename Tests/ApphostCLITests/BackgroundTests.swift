import ApphostVocabulary
import Foundation
import XCTest

/// Background tasks, budgets and suspension end to end (CONTRACT B1 to B8, A4): real guests,
/// `apphost launch` and `ctl`, with budgets of a fraction of a second, in both isolation modes.
/// B9 needs an audio session, which no guest has yet: it is tested on the core alone.
final class BackgroundTests: HostTestCase {
    static let uploadID = "org.apphost.samples.upload"
    static let overrunID = "org.apphost.samples.overrun"
    static let upload = "libSwiftUploadGuest.so"
    static let overrun = "libCOverrunGuest.so"

    override class var stopsHostsGracefully: Bool { true }

    private func launch(
        _ guests: [String], _ isolation: String, _ options: [String], environment: [String: String] = [:]
    ) throws -> HostProcess {
        try startHost(guests, options: ["--isolation", isolation] + options, environment: environment)
    }

    /// Starts the C sample and the upload sample with `options`, uploads of `chunks` chunks,
    /// and brings the upload sample to the foreground, so that leaving it begins its upload.
    private func launchUploadInForeground(_ isolation: String, _ options: [String], chunks: Int) throws
        -> HostProcess
    {
        let host = try launch(
            [BuildProducts.cSample, Self.upload], isolation, options,
            environment: ["APPHOST_UPLOAD_CHUNKS": "\(chunks)", "APPHOST_UPLOAD_CHUNK_MS": "50"])
        try host.waitForLog(Self.uploadID, "callback did_finish_launching")
        try ctlSucceeds("switch", Self.uploadID)
        try host.waitForLog(Self.uploadID, "callback will_enter_foreground", prefix: true)
        return host
    }

    private func events(_ host: HostProcess, of guest: String, _ kinds: Set<HostEvent.Kind>) -> [String] {
        host.events.filter { $0.guest == guest && kinds.contains($0.kind) }.map {
            [$0.kind.rawValue, $0.name, $0.reason?.rawValue].compactMap { $0 }.joined(separator: " ")
        }
    }

    // MARK: B1

    func testEndingTwiceAndUnknownTasksAreErrorCodesInProcess() throws { try endingTwice("none") }
    func testEndingTwiceAndUnknownTasksAreErrorCodesIsolated() throws { try endingTwice("process") }

    // CONTRACT B1: each id ends once; ending it again, or an unknown id, is an error code, and a
    // guest being terminated gets the invalid id.
    private func endingTwice(_ isolation: String) throws {
        let guest = try TestGuests.background(commands: "begin a;end 1;end 1;end 99", into: scratch.path)
        let host = try launch([guest], isolation, [])
        try host.waitForLog(TestGuests.backgroundID, "end 99 = invalid_handle")
        let logs = host.events.filter { $0.kind == .log && $0.guest == TestGuests.backgroundID }.compactMap(\.message)
        XCTAssertEqual(
            logs.filter { $0.hasPrefix("begin") || $0.hasPrefix("end") },
            ["begin a = 1", "end 1 = ok", "end 1 = invalid_handle", "end 99 = invalid_handle"])
        try ctlSucceeds("terminate", TestGuests.backgroundID)
        try host.waitForLog(TestGuests.backgroundID, "will_terminate begin = 0")
    }

    // MARK: B2, B3, B6: a guest that finishes in time

    func testUploadFinishesInTimeThenIsSuspendedInProcess() throws { try uploadFinishes("none") }
    func testUploadFinishesInTimeThenIsSuspendedIsolated() throws { try uploadFinishes("process") }

    // CONTRACT B2, B6: the upload sample begins its task on did_enter_background, finishes and ends
    // it within the budget, and is suspended --suspend-delay later, automatically.
    private func uploadFinishes(_ isolation: String) throws {
        let host = try launchUploadInForeground(
            isolation, ["--suspend-delay", "0.3", "--background-budget", "5", "--expiration-grace", "1"], chunks: 3)
        let mark = host.events.count
        try ctlSucceeds("switch", Self.cID)
        try host.waitForLog(Self.uploadID, "upload finished", after: mark)
        let suspended = try host.waitForEvent("the upload guest suspended", after: mark) {
            $0.kind == .suspended && $0.guest == Self.uploadID
        }
        XCTAssertEqual(suspended.reason, .automatic)
        let ended = try XCTUnwrap(host.events.since(mark).last { $0.kind == .taskEnded && $0.guest == Self.uploadID })
        XCTAssertGreaterThanOrEqual(suspended.time.timeIntervalSince(ended.time), 0.25, "B6: the delay")
        XCTAssertEqual(
            events(host, of: Self.uploadID, [.taskBegun, .taskEnded, .taskExpired, .overrun, .suspended]).suffix(3),
            ["task-begun upload", "task-ended upload", "suspended automatic"])
        XCTAssertTrue(
            host.events.since(mark).contains { $0.guest == Self.uploadID && $0.message == "upload chunk 3/3" })

        let guestStatus = try XCTUnwrap(try status().guest(Self.uploadID))
        XCTAssertEqual(guestStatus.appState, .suspended)
        XCTAssertEqual(guestStatus.suspension?.reason, .automatic)
        let table = try ctlSucceeds("ps").stdout.joined(separator: "\n")
        XCTAssertTrue(table.contains("suspended") && table.contains("(automatic)"), table)
    }

    // MARK: B3: expiration

    func testExpiringUploadEndsItsTaskInProcess() throws { try uploadExpires("none") }
    func testExpiringUploadEndsItsTaskIsolated() throws { try uploadExpires("process") }

    // CONTRACT B3: a grace period before the budget ends, the open task's expiration handler runs
    // on the guest's main queue; the sample ends its task there and is suspended as usual.
    private func uploadExpires(_ isolation: String) throws {
        let host = try launchUploadInForeground(
            isolation, ["--suspend-delay", "0.2", "--background-budget", "0.8", "--expiration-grace", "0.4"],
            chunks: 1000)
        let mark = host.events.count
        try ctlSucceeds("home")
        let began = try host.waitForEvent("task begun", after: mark) {
            $0.kind == .taskBegun && $0.guest == Self.uploadID
        }
        let expired = try host.waitForLog(Self.uploadID, "upload expired", after: mark)
        let lead = expired.time.timeIntervalSince(began.time)
        XCTAssertTrue((0.3...0.9).contains(lead), "the handler ran \(lead) s after the task began, not about 0.4 s")
        let suspended = try host.waitForEvent("suspended", after: mark) {
            $0.kind == .suspended && $0.guest == Self.uploadID
        }
        XCTAssertEqual(suspended.reason, .automatic, "it ended its task: no overrun")
        XCTAssertEqual(
            events(host, of: Self.uploadID, [.taskBegun, .taskEnded, .taskExpired, .overrun, .suspended]).suffix(4),
            ["task-begun upload", "task-expired upload budgetExpired", "task-ended upload", "suspended automatic"])
    }

    // MARK: B4: overrun

    func testOverrunIsSuspendedInProcess() throws { try overrunSuspended("none") }
    func testOverrunIsSuspendedIsolated() throws { try overrunSuspended("process") }

    // CONTRACT B4, B2: a guest still holding its task when the budget ends is suspended, and the
    // overrun names the task; ps says why. Returning to the foreground brings it back.
    private func overrunSuspended(_ isolation: String) throws {
        let host = try launch(
            [Self.overrun, BuildProducts.cSample], isolation,
            ["--suspend-delay", "0.2", "--background-budget", "0.6", "--expiration-grace", "0.3"])
        try host.waitForLog(Self.overrunID, "callback will_enter_foreground", prefix: true)
        try host.waitForLog(Self.cID, "callback will_connect", prefix: true)
        let mark = host.events.count
        try ctlSucceeds("switch", Self.cID)
        let overrun = try host.waitForEvent("overrun", after: mark) {
            $0.kind == .overrun && $0.guest == Self.overrunID
        }
        XCTAssertEqual(overrun.message, "ran over its 0.6 s background budget holding \"sync\"")
        try host.waitForEvent("suspended", after: mark) { $0.kind == .suspended && $0.guest == Self.overrunID }
        XCTAssertEqual(
            events(host, of: Self.overrunID, [.taskBegun, .taskExpired, .overrun, .suspended]).suffix(4),
            ["task-begun sync", "task-expired sync budgetExpired", "overrun budgetExpired", "suspended budgetExpired"])
        XCTAssertTrue(host.events.since(mark).contains { $0.message?.hasPrefix("sync expiring, not ending") == true })

        let guestStatus = try XCTUnwrap(try status().guest(Self.overrunID))
        XCTAssertEqual(guestStatus.suspension?.reason, .budgetExpired)
        XCTAssertEqual(guestStatus.tasks.map(\.name), ["sync"])
        let table = try ctlSucceeds("ps").stdout.joined(separator: "\n")
        XCTAssertTrue(table.contains("(budgetExpired)") && table.contains("tasks \"sync\" (expiring)"), table)

        let back = host.events.count
        try ctlSucceeds("switch", Self.overrunID)
        try host.waitForLog(Self.overrunID, "callback will_enter_foreground", prefix: true, after: back)
        XCTAssertNil(try status().guest(Self.overrunID)?.backgroundTimeRemaining, "B2: unlimited in the foreground")
    }

    func testOverrunIsTerminatedByPolicyIsolated() throws {
        // CONTRACT B4, A3: with --overrun terminate the guest is frozen, then terminated without
        // will_terminate.
        let host = try launch(
            [Self.overrun, BuildProducts.cSample], "process",
            ["--overrun", "terminate", "--background-budget", "0.5", "--expiration-grace", "0.2"])
        try host.waitForLog(Self.overrunID, "callback will_enter_foreground", prefix: true)
        let mark = host.events.count
        try ctlSucceeds("switch", Self.cID)
        let terminated = try host.waitForEvent("terminated", after: mark) {
            $0.kind == .terminated && $0.guest == Self.overrunID
        }
        XCTAssertEqual(terminated.reason, .budgetExpired)
        XCTAssertFalse(host.events.since(mark).loggedCallbacks(of: Self.overrunID).contains("will_terminate"))
        XCTAssertEqual(try status().guest(Self.overrunID)?.appState, .notRunning)
    }

    // MARK: B5

    func testSlowCallbackIsFlaggedByTheWatchdogInProcess() throws { try slowCallbackFlagged("none") }
    func testSlowCallbackIsFlaggedByTheWatchdogIsolated() throws { try slowCallbackFlagged("process") }

    // CONTRACT B5: a lifecycle callback that runs past --watchdog is flagged with its name while
    // it runs; one that returns before the hard limit is left to finish.
    private func slowCallbackFlagged(_ isolation: String) throws {
        let slow = try TestGuests.slowToTerminate(seconds: 1, into: scratch.path)
        let host = try launch([slow], isolation, ["--watchdog", "0.3", "--watchdog-hard-limit", "5"])
        try host.waitForEvent("launched") { $0.kind == .appState && $0.guest == TestGuests.slowID && $0.to == "active" }
        let mark = host.events.count
        try ctlSucceeds("terminate", TestGuests.slowID)
        let flag = try host.waitForEvent("flagged", after: mark) { $0.kind == .watchdog }
        XCTAssertEqual(flag.message, "will_terminate has not returned within 0.3 s")
        let terminated = try host.waitForEvent("terminated", after: mark) { $0.kind == .terminated }
        XCTAssertEqual(terminated.reason, .requested, "it returned in time: no stop")
        XCTAssertGreaterThan(terminated.time.timeIntervalSince(flag.time), 0.4)
    }

    // MARK: B7, B8: what waits while suspended

    func testTimersWaitWhileSuspendedInProcess() throws { try timersWait("none") }
    func testTimersWaitWhileSuspendedIsolated() throws { try timersWait("process") }

    // CONTRACT B7, B8: a repeating timer does not fire while its guest is suspended; on resume it
    // fires once, however often it fell due, then goes on.
    private func timersWait(_ isolation: String) throws {
        let guest = try TestGuests.background(commands: "timer 50 50", into: scratch.path)
        let host = try launch([BuildProducts.cSample, guest], isolation, ["--suspend-delay", "0.3"])
        let fixture = TestGuests.backgroundID
        try host.waitForEvent("suspended") { $0.kind == .suspended && $0.guest == fixture }
        Thread.sleep(forTimeInterval: 0.1)  // What was on its way has arrived.
        let firedBefore = fired(host, fixture)
        XCTAssertGreaterThan(firedBefore, 0, "it fired while running")
        Thread.sleep(forTimeInterval: 0.6)  // About 12 periods.
        XCTAssertEqual(fired(host, fixture), firedBefore, "B7: no timer while suspended")
        let mark = host.events.count
        try ctlSucceeds("resume", fixture)
        try host.waitForLog(fixture, "fired 1 \(firedBefore + 1)", after: mark)
        let afterResume = host.events.since(mark)
        let first = try XCTUnwrap(afterResume.firstIndex { $0.kind == .resumed && $0.guest == fixture })
        let quickly = afterResume[first...].prefix { $0.time.timeIntervalSince(afterResume[first].time) < 0.03 }
        XCTAssertEqual(quickly.filter { $0.message?.hasPrefix("fired") == true }.count, 1, "B8: once on resume")
    }

    private func fired(_ host: HostProcess, _ guest: String) -> Int {
        host.events.filter { $0.guest == guest && $0.message?.hasPrefix("fired") == true }.count
    }

    func testMemoryWarningWaitsForResumeInProcess() throws { try memoryWarningWaits("none") }
    func testMemoryWarningWaitsForResumeIsolated() throws { try memoryWarningWaits("process") }

    // CONTRACT B8, A4: memory warnings to a suspended guest arrive once, on resume, before
    // will-enter-foreground; the running guest gets each at once.
    private func memoryWarningWaits(_ isolation: String) throws {
        let host = try launch(
            [BuildProducts.swiftSample, BuildProducts.cSample], isolation, ["--suspend-delay", "0.2"])
        try host.waitForEvent("the C sample suspended") { $0.kind == .suspended && $0.guest == Self.cID }
        let mark = host.events.count
        try ctlSucceeds("memory-warning")
        try ctlSucceeds("memory-warning")
        let first = try host.waitForLog(Self.swiftID, "callback did_receive_memory_warning", after: mark)
        let second = (host.events.lastIndex(of: first) ?? mark) + 1
        try host.waitForLog(Self.swiftID, "callback did_receive_memory_warning", after: second)
        XCTAssertEqual(host.events.since(mark).loggedCallbacks(of: Self.cID), [], "B7: nothing while suspended")
        try ctlSucceeds("switch", Self.cID)
        try host.waitForLog(Self.cID, "callback did_become_active", prefix: true, after: mark)
        XCTAssertEqual(
            host.events.since(mark).loggedCallbacks(of: Self.cID),
            ["did_receive_memory_warning", "will_enter_foreground", "did_become_active"])
    }

    // MARK: A4

    func testCriticalMemoryPressureTerminatesSuspendedGuestsIsolated() throws {
        // CONTRACT A4: critical pressure terminates suspended guests (with reason memory); their
        // saved state survives, so a relaunch restores it.
        let host = try launch(
            [BuildProducts.cSample, BuildProducts.swiftSample], "process", ["--suspend-delay", "0.2"])
        try host.waitForLog(Self.cID, "callback did_become_active", prefix: true)
        // The guests launch one after the other: the Swift sample may not be loaded yet when the C
        // sample is active (on a loaded machine, "no guest org.apphost.samples.swift").
        try host.waitForLog(Self.swiftID, "callback will_connect", prefix: true)
        try ctlSucceeds("switch", Self.swiftID)
        try ctlSucceeds("switch", Self.cID)
        let saved = try host.waitForEvent("the Swift sample saved") {
            $0.kind == .stateSaved && $0.guest == Self.swiftID
        }
        try host.waitForEvent("the Swift sample suspended", after: host.events.firstIndex(of: saved) ?? 0) {
            $0.kind == .suspended && $0.guest == Self.swiftID
        }
        let mark = host.events.count
        XCTAssertEqual(
            try ctlSucceeds("memory-warning", "--critical").stdout,
            ["running guests warned; suspended guests terminated, least recently used first"])
        let terminated = try host.waitForEvent("terminated", after: mark) {
            $0.kind == .terminated && $0.guest == Self.swiftID
        }
        XCTAssertEqual(terminated.reason, .memory)
        XCTAssertEqual(host.events.since(mark).loggedCallbacks(of: Self.cID), ["did_receive_memory_warning"])
        XCTAssertEqual(try status().guest(Self.cID)?.appState, .active)
        XCTAssertEqual(try status().guest(Self.swiftID)?.appState, .notRunning)
        XCTAssertNotNil(try status().guest(Self.swiftID)?.scenes.first?.savedBytes, "its saved state survives")
    }

    func testHostMemoryLimitWarnsThenTerminatesTheSuspendedGuestFirstIsolated() throws {
        // CONTRACT A4: over --host-memory-limit (here far below what any host uses) the guests
        // are warned, then terminated one reading at a time, the suspended one first, with
        // reason memory.
        let host = try launch(
            [BuildProducts.cSample, BuildProducts.swiftSample], "process",
            ["--suspend-delay", "0.2", "--host-memory-limit", "1M"])
        try host.waitForEvent("the Swift sample suspended") { $0.kind == .suspended && $0.guest == Self.swiftID }
        let first = try host.waitForEvent("a termination", timeout: 5) { $0.kind == .terminated }
        XCTAssertEqual(first.guest, Self.swiftID, "the suspended guest goes first")
        XCTAssertEqual(first.reason, .memory)
        let warning = try XCTUnwrap(host.events.first { $0.kind == .memoryWarning })
        XCTAssertLessThan(warning.time, first.time, "warned before anything is terminated")
        XCTAssertTrue(
            host.events.contains { $0.kind == .error && $0.message?.contains("over its limit of 1 MB") == true })
    }
}
