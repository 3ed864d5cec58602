import ApphostPolicy
import ApphostPolicyTesting
import Foundation
import XCTest

/// The watchdog on lifecycle callbacks (CONTRACT B5), on the manual clock.
final class WatchdogTests: XCTestCase {
    private func hostWithHungGuest(_ policy: WatchdogPolicy = WatchdogPolicy()) throws -> (CoreHarness, FakeGuest) {
        let host = CoreHarness(watchdog: policy)
        let guest = host.opener.add("org.test.a")
        host.run { $0.launch(path: "org.test.a", foreground: true) }
        guest.holdReplies = true
        host.run { $0.scenes.home() }
        return (host, guest)
    }

    // CONTRACT B5, A5: past the limit the guest is flagged, with the callback, and nothing else.
    func testSlowCallbackIsFlaggedAtTheLimit() throws {
        let (host, guest) = try hostWithHungGuest()
        host.advance(by: .milliseconds(4_999))
        XCTAssertTrue(host.events.of(.watchdog).isEmpty)
        host.advance(by: .milliseconds(1))
        let flag = try XCTUnwrap(host.events.of(.watchdog).first)
        XCTAssertEqual(flag.message, "will_resign_active has not returned within 5 s")
        XCTAssertEqual(flag.reason, .watchdog)
        XCTAssertEqual(guest.forceStops, [])
        XCTAssertEqual(host.guest("org.test.a")?.phase, .running)
    }

    // CONTRACT B5, X2: past the hard limit a hung guest is killed and reported with reason watchdog.
    func testHungGuestIsKilledAtTheHardLimit() throws {
        let (host, guest) = try hostWithHungGuest()
        host.advance(by: .seconds(10))
        XCTAssertEqual(guest.forceStops, ["kill"])
        let status = try XCTUnwrap(host.guest("org.test.a"))
        XCTAssertEqual(status.appState, .notRunning)
        XCTAssertEqual(status.lastReason, .watchdog)
        XCTAssertEqual(
            host.events.of(.error).last?.message, "killed by the watchdog in will_resign_active: killed by SIGKILL")
    }

    // CONTRACT B5, B7: with the freeze action the hung guest is suspended where it stands.
    func testHungGuestIsFrozenByPolicy() throws {
        let (host, guest) = try hostWithHungGuest(WatchdogPolicy(action: .freeze))
        host.advance(by: .seconds(10))
        XCTAssertEqual(guest.forceStops, ["freeze"])
        XCTAssertEqual(host.guest("org.test.a")?.appState, .suspended)
        XCTAssertEqual(host.guest("org.test.a")?.lastReason, .watchdog)
        XCTAssertEqual(
            host.events.of(.suspended).last?.message, "frozen: will_resign_active has not returned within 10 s")
        // An operator may still terminate it: no callback, it is killed.
        host.run { $0.terminate("org.test.a") }
        XCTAssertEqual(host.guest("org.test.a")?.appState, .notRunning)
    }

    // Each callback gets the whole limit from when it becomes the oldest unanswered one: a queue of
    // quick callbacks whose total exceeds the limit is no hang.
    func testQuickCallbacksInARowAreNotFlagged() throws {
        let (host, guest) = try hostWithHungGuest()
        // will_resign_active, the background time, did_enter_background.
        for _ in 0..<guest.heldReplies.count {
            host.advance(by: .seconds(4))
            host.run { _ in guest.heldReplies.removeFirst()() }
        }
        guest.holdReplies = false
        host.advance(by: .seconds(20))
        XCTAssertTrue(host.events.of(.watchdog).isEmpty, "\(host.events.of(.watchdog))")
        XCTAssertEqual(guest.forceStops, [])
    }

    // A channel that cannot stop its guest (in-process) says why; the host goes on.
    func testGuestThatCannotBeStoppedIsReported() throws {
        let (host, guest) = try hostWithHungGuest()
        guest.unstoppable = true
        host.advance(by: .seconds(10))
        XCTAssertEqual(
            host.events.of(.error).last?.message,
            "will_resign_active has not returned within 10 s; cannot stop it: cannot be killed here")
        XCTAssertEqual(host.guest("org.test.a")?.phase, .running)
    }
}
