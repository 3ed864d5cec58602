import Foundation
import XCTest

/// `ctl suspend` and `ctl resume`: a suspended guest runs no code until it is resumed, switched
/// to or terminated.
final class SuspendTests: HostTestCase {
    override class var stopsHostsGracefully: Bool { true }

    // CONTRACT A1, A5, B7: a background guest is suspended with no callback; ps shows it
    // suspended, why and since when.
    func testSuspendingABackgroundGuest() throws {
        let host = try startBothSamples()
        let mark = host.events.count
        XCTAssertEqual(try ctlSucceeds("suspend", Self.swiftID).stdout, ["\(Self.swiftID) is suspended"])
        let suspended = try host.waitForEvent("the Swift sample suspended", after: mark) {
            $0.kind == .suspended && $0.guest == Self.swiftID
        }
        XCTAssertEqual(suspended.reason, .requested)  // A5
        let after = host.events.since(mark)
        XCTAssertTrue(
            after.contains {
                $0.kind == .appState && $0.guest == Self.swiftID && $0.from == "background" && $0.to == "suspended"
                    && $0.reason == .requested
            }, "app-state background -> suspended")
        XCTAssertEqual(after.loggedCallbacks(of: Self.swiftID), [], "a background guest is suspended without callbacks")

        let guest = try XCTUnwrap(try status().guest(Self.swiftID))
        XCTAssertEqual(guest.appState, .suspended)  // A1
        XCTAssertEqual(guest.phase, .running)
        XCTAssertEqual(guest.lastReason, .requested)
        XCTAssertEqual(guest.scenes.map(\.state), [.background])
        XCTAssertEqual(try status().guest(Self.cID)?.appState, .active, "the other guest runs on")

        let table = try ctlSucceeds("ps").stdout
        let row = try XCTUnwrap(table.first { $0.hasPrefix(Self.swiftID) }, "\(table)")
        for word in ["suspended", "requested", "ago"] {
            XCTAssertTrue(row.contains(word), "ps row \"\(row)\" says \(word)")
        }
    }

    // CONTRACT S3, B7: suspending the foreground guest first sends it to background
    // (will-resign-active, did-enter-background), then suspends it.
    func testSuspendingTheForegroundGuestSendsItToBackgroundFirst() throws {
        let host = try startBothSamples()
        let mark = host.events.count
        try ctlSucceeds("suspend", Self.cID)
        try host.waitForEvent("the C sample suspended", after: mark) { $0.kind == .suspended && $0.guest == Self.cID }
        let after = host.events.since(mark)
        XCTAssertEqual(after.loggedCallbacks(of: Self.cID), ["will_resign_active", "did_enter_background"])
        let order = after.filter { $0.guest == Self.cID && ($0.kind == .callback || $0.kind == .suspended) }
            .map { $0.kind == .callback ? $0.name ?? "?" : "suspended" }
        XCTAssertEqual(order, ["will_resign_active", "did_enter_background", "suspended"])

        let status = try status()
        XCTAssertNil(status.foreground)
        XCTAssertEqual(status.guest(Self.cID)?.appState, .suspended)
        XCTAssertEqual(status.guest(Self.cID)?.scenes.map(\.state), [.background])
    }

    // CONTRACT A1, A5: resuming lets the guest run again, in background, with no callback of its
    // own (nothing waited for it).
    func testResumeBringsTheGuestBackInBackground() throws {
        let host = try startBothSamples()
        try ctlSucceeds("suspend", Self.swiftID)
        let mark = host.events.count
        XCTAssertEqual(try ctlSucceeds("resume", Self.swiftID).stdout, ["\(Self.swiftID) is running in background"])
        let resumed = try host.waitForEvent("the Swift sample resumed", after: mark) {
            $0.kind == .resumed && $0.guest == Self.swiftID
        }
        XCTAssertEqual(resumed.reason, .requested)
        XCTAssertTrue(
            host.events.since(mark).contains {
                $0.kind == .appState && $0.guest == Self.swiftID && $0.from == "suspended" && $0.to == "background"
            })
        XCTAssertEqual(host.events.since(mark).loggedCallbacks(of: Self.swiftID), [])
        XCTAssertEqual(try status().guest(Self.swiftID)?.appState, .background)

        // It runs: it answers callbacks again.
        let forward = host.events.count
        try ctlSucceeds("switch", Self.swiftID)
        try host.waitForLog(Self.swiftID, "callback did_become_active", prefix: true, after: forward)
    }

    // CONTRACT S5, S3: switching to a suspended guest resumes it, then brings it forward
    // (its size, will-enter-foreground, did-become-active) while the old foreground guest goes to background.
    func testSwitchToASuspendedGuestResumesItAndBringsItForward() throws {
        let host = try startBothSamples()
        try ctlSucceeds("suspend", Self.swiftID)
        let mark = host.events.count
        try ctlSucceeds("switch", Self.swiftID)
        try host.waitForLog(Self.swiftID, "callback did_become_active", prefix: true, after: mark)

        let after = host.events.since(mark)
        XCTAssertEqual(after.loggedCallbacks(of: Self.swiftID), ["will_enter_foreground", "did_become_active"])
        XCTAssertEqual(after.loggedCallbacks(of: Self.cID), ["will_resign_active", "did_enter_background"])
        let order = after.filter { $0.guest == Self.swiftID && ($0.kind == .callback || $0.kind == .resumed) }
            .map { $0.kind == .callback ? $0.name ?? "?" : "resumed" }
        // S11: a scene never shown learns its size before it enters the foreground.
        XCTAssertEqual(order, ["resumed", "did_change_size", "will_enter_foreground", "did_become_active"])

        let status = try status()
        XCTAssertEqual(status.foreground, Self.swiftID)
        XCTAssertEqual(status.guest(Self.swiftID)?.appState, .active)
        XCTAssertEqual(status.guest(Self.cID)?.appState, .background)
    }

    // CONTRACT A3: a suspended guest is terminated without any callback; its saved state survives.
    func testTerminatingASuspendedGuestSendsNoCallback() throws {
        let host = try startBothSamples()
        try ctlSucceeds("suspend", Self.cID)
        try host.waitForEvent("the C sample suspended") { $0.kind == .suspended && $0.guest == Self.cID }
        let mark = host.events.count
        XCTAssertEqual(try ctlSucceeds("terminate", Self.cID).stdout, ["\(Self.cID) terminated"])
        let terminated = try host.waitForEvent("the C sample terminated", after: mark) {
            $0.kind == .terminated && $0.guest == Self.cID
        }
        XCTAssertEqual(terminated.reason, .requested)
        let after = host.events.since(mark)
        XCTAssertEqual(after.loggedCallbacks(of: Self.cID), [])
        XCTAssertFalse(after.contains { $0.kind == .callback && $0.guest == Self.cID }, "no callback was delivered")

        let guest = try XCTUnwrap(try status().guest(Self.cID))
        XCTAssertEqual(guest.appState, .notRunning)
        XCTAssertNotNil(guest.scenes.first?.savedBytes, "the state saved on entering background survives")
    }

    // Suspending twice, resuming a running guest and naming an unknown guest are one-line errors.
    func testSuspendAndResumeErrorsAreOneLine() throws {
        _ = try startBothSamples()
        try ctlSucceeds("suspend", Self.swiftID)
        assertOneLineError(try ctl("suspend", Self.swiftID), containing: "\(Self.swiftID) is already suspended")
        assertOneLineError(try ctl("resume", Self.cID), containing: "\(Self.cID) is not suspended")
        assertOneLineError(try ctl("suspend", "org.example.missing"), containing: "no guest org.example.missing")
        assertOneLineError(try ctl("resume", "org.example.missing"), containing: "no guest org.example.missing")
        XCTAssertEqual(try status().guest(Self.swiftID)?.appState, .suspended, "the errors changed nothing")
        XCTAssertEqual(try status().guest(Self.cID)?.appState, .active)
    }

    // CONTRACT B7: with process isolation a suspended guest's whole worker is frozen: the thread it
    // spins on its own, outside any callback, uses no CPU until the guest is resumed.
    func testSuspendedGuestsWorkerUsesNoCPUUntilResumed() throws {
        let busy = try TestGuests.busyThread(into: scratch.path)
        let host = try startHost([BuildProducts.cSample, busy])
        try host.waitForLog(TestGuests.busyThreadID, "spinning")
        try host.waitForLog(TestGuests.busyThreadID, "callback will_connect", prefix: true)
        let worker = try XCTUnwrap(
            WorkerProcesses.pid(ofHost: host.pid, mapping: TestGuests.busyThreadLibrary),
            "no apphost-worker child of the host has \(TestGuests.busyThreadLibrary) mapped")
        try assertUsesCPU(worker, "while the guest runs")

        try ctlSucceeds("suspend", TestGuests.busyThreadID)
        XCTAssertEqual(try status().guest(TestGuests.busyThreadID)?.appState, .suspended)
        let frozen = try XCTUnwrap(WorkerProcesses.cpuTicks(worker))
        usleep(300_000)
        XCTAssertEqual(WorkerProcesses.cpuTicks(worker), frozen, "a suspended guest's worker uses no CPU")

        try ctlSucceeds("resume", TestGuests.busyThreadID)
        try assertUsesCPU(worker, "after resume")
        XCTAssertEqual(try status().guest(TestGuests.busyThreadID)?.appState, .background)
    }

    // CONTRACT B7, X2: a host killed while a guest is suspended cannot thaw its worker; the next
    // host to start does, and the worker, finding its host gone, exits.
    func testAWorkerLeftFrozenByAKilledHostExitsOnceTheNextHostStarts() throws {
        let busy = try TestGuests.busyThread(into: scratch.path)
        let first = try startHost([BuildProducts.cSample, busy])
        try first.waitForLog(TestGuests.busyThreadID, "spinning")
        try first.waitForLog(TestGuests.busyThreadID, "callback will_connect", prefix: true)
        let worker = try XCTUnwrap(WorkerProcesses.pid(ofHost: first.pid, mapping: TestGuests.busyThreadLibrary))
        try ctlSucceeds("suspend", TestGuests.busyThreadID)
        first.kill()

        let second = try startHost([BuildProducts.cSample])
        try second.waitForLog(Self.cID, "callback did_become_active", prefix: true)
        let deadline = Date() + 5
        while !WorkerProcesses.hasExited(worker), Date() < deadline { usleep(20_000) }
        XCTAssertTrue(WorkerProcesses.hasExited(worker), "the orphaned worker \(worker) exited")
    }

    /// The process's CPU time grows by a few ticks within 2 s.
    private func assertUsesCPU(
        _ pid: pid_t, _ when: String, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let start = try XCTUnwrap(WorkerProcesses.cpuTicks(pid), "process \(pid) is gone", file: file, line: line)
        let deadline = Date() + 2
        var now = start
        while now < start + 3, Date() < deadline {
            usleep(20_000)
            now = WorkerProcesses.cpuTicks(pid) ?? now
        }
        XCTAssertGreaterThanOrEqual(now, start + 3, "CPU time grows \(when)", file: file, line: line)
    }
}
