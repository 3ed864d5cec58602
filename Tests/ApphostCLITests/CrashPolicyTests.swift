import ApphostVocabulary
import Foundation
import XCTest

/// The restart policy and the watchdog, end to end with real workers.
final class CrashPolicyTests: HostTestCase {
    // CONTRACT X2, A5: with on-failure a guest that keeps crashing is restarted until the burst
    // limit, then left down; ps shows how often, and that the host gave up.
    func testCrashingGuestIsRestartedUntilTheBurstLimit() throws {
        let dying = try TestGuests.dying(["-DFIXTURE_DIE_IN_CALLBACK"], as: "libDying.so", into: scratch.path)
        let host = try HostProcess(
            guests: ["--restart", "on-failure", "--restart-burst", "2", "--restart-interval", "60", dying],
            dataDirectory: dataDirectory)
        defer { host.kill() }
        try host.waitForEvent("the burst limit") {
            $0.kind == .error && $0.message?.hasPrefix("not restarting") == true
        }
        let events = host.events
        XCTAssertEqual(events.filter { $0.kind == .restarting }.map(\.message), ["restart 1", "restart 2"])
        XCTAssertEqual(
            events.filter { $0.kind == .error && $0.message?.hasPrefix("crashed in") == true }.count, 3,
            "the first launch and both restarts crashed")
        XCTAssertEqual(events.last { $0.kind == .error }?.message, "not restarting: 2 restarts within 60 s")
        let guest = try XCTUnwrap(try status().guest(TestGuests.dyingID))
        XCTAssertEqual(guest.restart, RestartStatus(policy: .onFailure, restarts: 2, gaveUp: true))
        XCTAssertTrue(try ctlSucceeds("ps").stdout.contains { $0.hasSuffix("2, gave up") })
    }

    // CONTRACT B5, A5, X2: a callback that never returns is flagged at the limit, and killed at
    // the hard limit; the host never waits for it and its other guests run on.
    func testHungCallbackIsFlaggedThenKilled() throws {
        let hanging = try TestGuests.dying(
            ["-DFIXTURE_DIE_IN_CALLBACK", "-DFIXTURE_HOW=4"], as: "libHanging.so", into: scratch.path)
        let sample = try BuildProducts.path(BuildProducts.cSample)
        let host = try HostProcess(
            guests: ["--watchdog", "0.2", "--watchdog-hard-limit", "0.5", hanging, sample],
            dataDirectory: dataDirectory)
        defer { host.kill() }
        let flag = try host.waitForEvent("a watchdog flag") { $0.kind == .watchdog }
        XCTAssertEqual(flag.message, "will_enter_foreground has not returned within 0.2 s")
        let kill = try host.waitForEvent("a watchdog kill") { $0.kind == .error && $0.reason == .watchdog }
        XCTAssertEqual(kill.message, "killed by the watchdog in will_enter_foreground: killed by SIGKILL")
        let guest = try XCTUnwrap(try status().guest(TestGuests.dyingID))
        XCTAssertEqual(guest.appState, .notRunning)
        XCTAssertEqual(guest.lastReason, .watchdog)
        try host.waitForLog(Self.cID, "callback did_finish_launching", prefix: true)
    }

    // CONTRACT B5, B7: with --hang-action freeze the hung guest is frozen where it stands, shown
    // suspended with reason watchdog, and can still be terminated.
    func testHungCallbackIsFrozenByPolicy() throws {
        let hanging = try TestGuests.dying(
            ["-DFIXTURE_DIE_IN_CALLBACK", "-DFIXTURE_HOW=4"], as: "libHanging.so", into: scratch.path)
        let host = try HostProcess(
            guests: ["--watchdog", "0.2", "--watchdog-hard-limit", "0.4", "--hang-action", "freeze", hanging],
            dataDirectory: dataDirectory)
        defer { host.kill() }
        let frozen = try host.waitForEvent("a watchdog freeze") { $0.kind == .suspended }
        XCTAssertEqual(frozen.reason, .watchdog)
        XCTAssertEqual(try status().guest(TestGuests.dyingID)?.appState, .suspended)
        try ctlSucceeds("terminate", TestGuests.dyingID)
        XCTAssertEqual(try status().guest(TestGuests.dyingID)?.appState, .notRunning)
    }
}
