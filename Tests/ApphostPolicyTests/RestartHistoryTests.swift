import ApphostVocabulary
import XCTest

@testable import ApphostPolicy

/// The restart rule on its own (CONTRACT X2): systemd's burst within an interval, decided from
/// a guest's history and the time, with no host.
final class RestartHistoryTests: XCTestCase {
    private let policy = RestartPolicy(mode: .onFailure, burst: 2, interval: .seconds(10), delay: .milliseconds(100))

    func testRestartsUntilTheBurstThenGivesUpOnce() {
        var history = RestartHistory()
        XCTAssertEqual(history.failed(at: .seconds(1), policy: policy), .restart(after: .milliseconds(100)))
        XCTAssertTrue(history.beginRestart())
        XCTAssertEqual(history.failed(at: .seconds(2), policy: policy), .restart(after: .milliseconds(100)))
        XCTAssertTrue(history.beginRestart())
        XCTAssertEqual(history.failed(at: .seconds(3), policy: policy), .giveUp)
        XCTAssertEqual(history.failed(at: .seconds(30), policy: policy), .stayDown, "given up for good")
        XCTAssertFalse(history.beginRestart())
        XCTAssertEqual(history.status(.onFailure), RestartStatus(policy: .onFailure, restarts: 2, gaveUp: true))
    }

    func testFailuresOlderThanTheIntervalNoLongerCount() {
        var history = RestartHistory()
        _ = history.failed(at: .seconds(1), policy: policy)
        _ = history.failed(at: .seconds(2), policy: policy)
        XCTAssertEqual(history.failed(at: .seconds(11), policy: policy), .restart(after: .milliseconds(100)))
        XCTAssertFalse(history.gaveUp)
    }

    func testThePolicyNeverRestartsNothing() {
        var history = RestartHistory()
        XCTAssertEqual(history.failed(at: .seconds(1), policy: .never), .stayDown)
        XCTAssertEqual(history.status(.never), RestartStatus(policy: .never, restarts: 0, gaveUp: false))
    }
}
