import XCTest

@testable import ApphostPolicy

/// At most `limit` events within any window (X2's restart burst, N1's notification limit).
final class RateWindowTests: XCTestCase {
    func testAdmitsUpToTheLimitWithinAWindowThenSlides() {
        var window = RateWindow()
        XCTAssertTrue(window.admit(at: .seconds(0), limit: 2, window: .seconds(60)))
        XCTAssertTrue(window.admit(at: .seconds(10), limit: 2, window: .seconds(60)))
        XCTAssertFalse(window.admit(at: .seconds(20), limit: 2, window: .seconds(60)))
        XCTAssertFalse(window.admit(at: .seconds(59), limit: 2, window: .seconds(60)), "a refusal is not counted")
        XCTAssertTrue(window.admit(at: .seconds(60), limit: 2, window: .seconds(60)), "the first left the window")
        XCTAssertFalse(window.admit(at: .seconds(61), limit: 2, window: .seconds(60)))
        XCTAssertTrue(window.admit(at: .seconds(70), limit: 2, window: .seconds(60)))
    }

    func testALimitOfZeroAdmitsNothing() {
        var window = RateWindow()
        XCTAssertFalse(window.admit(at: .zero, limit: 0, window: .seconds(1)))
    }
}
