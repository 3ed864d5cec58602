import XCTest

@testable import ApphostPolicy

/// The memory watch on its own (CONTRACT A4): warn on going over, end one guest per reading
/// while still over, start over once under.
final class MemoryWatchTests: XCTestCase {
    func testGoingOverWarnsThenEachReadingStillOverEndsOne() {
        var watch = MemoryWatch(limit: 100)
        XCTAssertEqual(watch.reading(bytes: 100), .fine, "the limit itself is not over it")
        XCTAssertEqual(watch.reading(bytes: 101), .warn)
        XCTAssertEqual(watch.reading(bytes: 150), .terminateOne)
        XCTAssertEqual(watch.reading(bytes: 120), .terminateOne)
        XCTAssertEqual(watch.reading(bytes: 90), .fine)
        XCTAssertEqual(watch.reading(bytes: 101), .warn, "under again: the next time over warns first")
    }

    func testWithoutALimitEveryReadingIsFine() {
        var watch = MemoryWatch(limit: nil)
        XCTAssertEqual(watch.reading(bytes: .max), .fine)
        XCTAssertEqual(watch.reading(bytes: .max), .fine)
    }
}
