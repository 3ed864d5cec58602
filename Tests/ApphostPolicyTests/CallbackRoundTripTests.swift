import ApphostPolicy
import ApphostPolicyTesting
import Foundation
import XCTest

/// The round trip of each callback, measured for the metrics (CONTRACT O2) on the host clock and
/// handed to the core's `measure` hook: from sending it to its reply.
final class CallbackRoundTripTests: XCTestCase {
    func testEachAnsweredCallbackIsMeasuredFromSendingToItsReply() throws {
        let host = CoreHarness()
        let guest = host.opener.add("org.test.a")
        host.run { $0.launch(path: "org.test.a", foreground: true) }
        // Answered at once: no time passes on the manual clock.
        let launched = host.measurements.roundTrips
        XCTAssertEqual(launched.first?.callback, "did_finish_launching")
        XCTAssertTrue(launched.allSatisfy { $0.guest == "org.test.a" && $0.duration == .zero }, "\(launched)")

        guest.holdReplies = true
        host.run { $0.scenes.home() }
        // will_resign_active, the background time (no guest code: not measured), did_enter_background.
        XCTAssertEqual(guest.heldReplies.count, 3)
        host.advance(by: .milliseconds(300))
        host.run { _ in guest.heldReplies.removeFirst()() }
        host.advance(by: .milliseconds(100))
        host.run { _ in guest.heldReplies.removeFirst()() }
        host.advance(by: .milliseconds(100))
        host.run { _ in guest.heldReplies.removeFirst()() }
        let home = host.measurements.roundTrips.dropFirst(launched.count)
        XCTAssertEqual(home.map(\.callback), ["will_resign_active", "did_enter_background"])
        XCTAssertEqual(home.map(\.duration), [.milliseconds(300), .milliseconds(500)], "waiting behind others counts")
    }

    func testACallbackTheGuestCrashedInIsNotMeasured() throws {
        let host = CoreHarness()
        let guest = host.opener.add("org.test.a")
        host.run { $0.launch(path: "org.test.a", foreground: true) }
        let before = host.measurements.roundTrips.count
        guest.crashOn = "did_enter_background"
        host.run { $0.scenes.home() }
        XCTAssertEqual(host.guest("org.test.a")?.lastReason, .crash)
        XCTAssertEqual(host.measurements.roundTrips.dropFirst(before).map(\.callback), ["will_resign_active"])
    }
}
