import ApphostExecutors
import Dispatch
import Glibc
import Synchronization
import XCTest

@testable import ApphostChannels

/// The host's event loop as an executor: work in the order queued, on its one thread, waiting
/// from elsewhere and at once on the loop; and work queued between reads of a busy descriptor.
final class HostEventLoopTests: XCTestCase {
    private let loop = HostEventLoop.shared

    func testWorkRunsInOrderOnTheLoopAndWorkQueuedThereRunsAfter() {
        let order = Mutex<[Int]>([])
        let done = DispatchSemaphore(value: 0)
        let loop = loop
        // Held until all are queued, so that "queued before" is all of them.
        let gate = DispatchSemaphore(value: 0)
        loop.execute { gate.wait() }
        for index in 0..<100 {
            loop.execute {
                loop.preconditionCurrent()
                order.withLock { $0.append(index) }
                if index == 0 {
                    // Queued on the loop while it runs: after everything queued before.
                    loop.execute { order.withLock { $0.append(1000) } }
                }
                if index == 99 { loop.execute { done.signal() } }
            }
        }
        gate.signal()
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(order.withLock { $0 }, Array(0..<100) + [1000])
        XCTAssertFalse(loop.isCurrent)
    }

    func testExecuteAndWaitWaitsFromElsewhereAndRunsAtOnceOnTheLoop() {
        let loop = loop
        var ran = false
        loop.executeAndWait { ran = true }
        XCTAssertTrue(ran)
        let nested = Mutex<[String]>([])
        loop.executeAndWait {
            loop.executeAndWait { nested.withLock { $0.append("inner") } }
            nested.withLock { $0.append("outer") }
        }
        XCTAssertEqual(nested.withLock { $0 }, ["inner", "outer"])
        // From many threads at once: each returns after its own work ran.
        let count = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: 64) { _ in
            var mine = false
            loop.executeAndWait {
                count.withLock { $0 += 1 }
                mine = true
            }
            XCTAssertTrue(mine)
        }
        XCTAssertEqual(count.withLock { $0 }, 64)
    }

    // The loop frees what it ran one batch later (behind a reply's delivery, say), never later
    // than before it waits again: nothing it ran stays alive once it has gone on.
    func testWorkRunIsReleasedOnceTheLoopGoesOn() {
        final class Captured: Sendable {}
        let loop = loop
        weak var first: Captured?
        weak var last: Captured?
        do {
            let one = Captured()
            let other = Captured()
            first = one
            last = other
            loop.execute { _ = one }
            for _ in 0..<10 { loop.execute {} }
            loop.execute { _ = other }
        }
        // Each wait's work runs in a batch after the one before's: when the third runs, the loop
        // has finished the second's batch, and freed the one before it, which held the others.
        for _ in 0..<3 { loop.executeAndWait {} }
        XCTAssertNil(first)
        XCTAssertNil(last)
    }

    // A descriptor that is always readable does not keep queued work from running.
    func testQueuedWorkRunsWhileADescriptorStaysReadable() throws {
        let loop = loop
        var pair: [Int32] = [0, 0]
        XCTAssertEqual(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair), 0)
        defer {
            close(pair[0])
            close(pair[1])
        }
        XCTAssertEqual(write(pair[1], "x", 1), 1)
        let wakeups = Atomic<Int>(0)
        // Never reads: level-triggered, the descriptor is reported on every turn.
        let token = loop.register(descriptor: pair[0]) { _, _ in wakeups.add(1, ordering: .relaxed) }
        defer { loop.unregister(descriptor: pair[0], token: token) }
        let done = DispatchSemaphore(value: 0)
        for _ in 0..<10 { loop.execute { done.signal() } }
        for _ in 0..<10 { XCTAssertEqual(done.wait(timeout: .now() + 10), .success) }
        XCTAssertGreaterThan(wakeups.load(ordering: .relaxed), 0)
    }
}
