import XCTest

@testable import ApphostPolicy

/// The watchdog's rule on its own (CONTRACT B5): each callback gets the whole limit from the
/// moment it becomes the oldest unanswered one, is flagged once past the limit, and hangs past
/// the hard limit.
final class CallWatchTests: XCTestCase {
    private let policy = WatchdogPolicy(limit: .seconds(5), hardLimit: .seconds(10))

    func testTheOldestCallbackIsWatchedFromWhenItBecameTheOldest() {
        var watch = CallWatch()
        XCTAssertTrue(watch.sent("will_connect", at: .seconds(0)))
        XCTAssertFalse(watch.sent("did_become_active", at: .seconds(1)), "not the oldest")
        XCTAssertEqual(watch.nextLook(policy), .seconds(5))
        XCTAssertTrue(watch.answered(at: .seconds(4)))
        XCTAssertEqual(watch.current, "did_become_active")
        XCTAssertEqual(watch.nextLook(policy), .seconds(9), "the whole limit from 4 s")
        XCTAssertEqual(watch.check(at: .seconds(8), policy: policy), .init(next: .seconds(9)))
        XCTAssertFalse(watch.answered(at: .seconds(8)))
        XCTAssertEqual(watch.check(at: .seconds(20), policy: policy), .init(), "nothing waits")
    }

    func testAnOverdueCallbackIsFlaggedOnceThenHangs() {
        var watch = CallWatch()
        _ = watch.sent("did_enter_background", at: .zero)
        XCTAssertEqual(
            watch.check(at: .seconds(5), policy: policy),
            .init(overdue: "did_enter_background", next: .seconds(10)))
        XCTAssertEqual(watch.check(at: .seconds(7), policy: policy), .init(next: .seconds(10)), "flagged once")
        XCTAssertEqual(watch.check(at: .seconds(10), policy: policy), .init(hung: "did_enter_background"))
    }

    // A late look past both limits at once flags the callback and stops the guest together.
    func testALateLookFlagsAndHangsAtOnce() {
        var watch = CallWatch()
        _ = watch.sent("perform_action", at: .zero)
        XCTAssertEqual(
            watch.check(at: .seconds(12), policy: policy), .init(overdue: "perform_action", hung: "perform_action"))
    }

    func testResetForgetsEverything() {
        var watch = CallWatch()
        _ = watch.sent("will_terminate", at: .zero)
        watch.killedByWatchdog = true
        watch.reset()
        XCTAssertNil(watch.current)
        XCTAssertFalse(watch.killedByWatchdog)
    }
}
