import ApphostVocabulary
import Dispatch
import Foundation
import Synchronization
import XCTest

@testable import ApphostExecutors

/// The production clock's one timer and heap, which times budgets, expirations, the suspend delay
/// and the watchdog (CONTRACT B2 to B6): order, cancellation and the sweep. Timings are far apart
/// and only bound how long a test waits, never what it checks.
final class DispatchHostClockTests: XCTestCase {
    private let queue = DispatchQueue(label: "clock.tests")
    private let log = RunLog()

    private func record(_ name: String) -> @Sendable () -> Void { log.record(name) }

    private func waitUntil(_ count: Int, timeout: TimeInterval = 5) {
        let deadline = Date() + timeout
        while log.names.withLock({ $0.count }) < count, Date() < deadline { Thread.sleep(forTimeInterval: 0.005) }
    }

    func testActionsRunByDeadlineWhateverTheOrderTheyWereScheduledIn() {
        let clock = DispatchHostClock(queue: queue)
        clock.schedule(after: .milliseconds(60), record("third"))
        clock.schedule(after: .milliseconds(20), record("first"))
        clock.schedule(after: .milliseconds(40), record("second"))
        waitUntil(3)
        XCTAssertEqual(log.names.withLock { $0 }, ["first", "second", "third"])
    }

    // An action due before every other sets the timer again: it does not wait for the later one.
    func testAnEarlierActionDoesNotWaitForALaterOne() {
        let clock = DispatchHostClock(queue: queue)
        clock.schedule(after: .seconds(30), record("late"))
        clock.schedule(after: .milliseconds(10), record("early"))
        waitUntil(1)
        XCTAssertEqual(log.names.withLock { $0 }, ["early"])
        XCTAssertEqual(clock.heapCount, 1, "the late action still waits")
    }

    func testACancelledActionNeverRunsAndTheOthersDo() {
        let clock = DispatchHostClock(queue: queue)
        let cancelled = clock.schedule(after: .milliseconds(10), record("cancelled"))
        clock.schedule(after: .milliseconds(20), record("kept"))
        cancelled.cancel()
        waitUntil(1)
        Thread.sleep(forTimeInterval: 0.05)
        XCTAssertEqual(log.names.withLock { $0 }, ["kept"])
    }

    // Two actions due together: the first cancels the second, which then does not run.
    func testAnActionCanCancelAnotherDueWithIt() {
        let clock = DispatchHostClock(queue: queue)
        let second = Mutex<(any ScheduledAction)?>(nil)
        queue.sync {
            clock.schedule(after: .milliseconds(10)) { [log] in
                log.record("first")()
                second.withLock { $0?.cancel() }
            }
            second.withLock { $0 = clock.schedule(after: .milliseconds(10), record("second")) }
            clock.schedule(after: .milliseconds(30), record("third"))
        }
        waitUntil(2)
        XCTAssertEqual(log.names.withLock { $0 }, ["first", "third"])
    }

    func testAnActionScheduledByAnActionRunsToo() {
        let clock = DispatchHostClock(queue: queue)
        clock.schedule(after: .milliseconds(5)) { [log] in
            log.record("outer")()
            clock.schedule(after: .zero, log.record("inner"))
        }
        waitUntil(2)
        XCTAssertEqual(log.names.withLock { $0 }, ["outer", "inner"])
    }

    // The first action schedules one far in the future while a second waits: the second still
    // runs when it is due, not when the far one is.
    func testAnActionSchedulingALaterOneDoesNotHoldBackThoseWaiting() {
        let clock = DispatchHostClock(queue: queue)
        queue.sync {
            clock.schedule(after: .milliseconds(5)) { [log] in
                log.record("first")()
                clock.schedule(after: .seconds(60), log.record("far"))
            }
            clock.schedule(after: .milliseconds(30), record("second"))
        }
        waitUntil(2)
        XCTAssertEqual(log.names.withLock { $0 }, ["first", "second"])
    }

    // Scheduled and cancelled at a high rate (a watchdog per call), far in the future: the heap
    // is swept long before those deadlines.
    func testCancelledActionsDoNotPileUp() {
        let clock = DispatchHostClock(queue: queue)
        for _ in 0..<10_000 { clock.schedule(after: .seconds(60), record("never")).cancel() }
        XCTAssertLessThan(clock.heapCount, 200)
    }

    func testRunsOnTheQueueItWasGiven() {
        let clock = DispatchHostClock(queue: queue)
        let key = DispatchSpecificKey<Int>()
        queue.setSpecific(key: key, value: 7)
        let onQueue = Mutex<Bool?>(nil)
        clock.schedule(after: .milliseconds(1)) { [log] in
            onQueue.withLock { $0 = DispatchQueue.getSpecific(key: key) == 7 }
            log.record("ran")()
        }
        waitUntil(1)
        XCTAssertEqual(onQueue.withLock { $0 }, true)
    }

    func testAHugeDelayDoesNotOverflow() {
        let clock = DispatchHostClock(queue: queue)
        clock.schedule(after: .seconds(Int64.max), record("never"))
        clock.schedule(after: .milliseconds(1), record("soon"))
        waitUntil(1)
        XCTAssertEqual(log.names.withLock { $0 }, ["soon"])
    }
}

/// The names of the actions that ran, in order.
private final class RunLog: Sendable {
    let names = Mutex<[String]>([])

    func record(_ name: String) -> @Sendable () -> Void {
        { [self] in names.withLock { $0.append(name) } }
    }
}
