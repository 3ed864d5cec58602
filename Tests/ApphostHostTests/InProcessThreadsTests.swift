import ApphostExecutors
import ApphostPolicy
import ApphostService
import ApphostServiceTesting
import Dispatch
import Foundation
import XCTest

@testable import ApphostChannels

/// What in-process guests leave in the host once unloaded: no channel (and so no main queue), no
/// thread, no wakeup (issue 19, point 3). The contract has no rule for the host's own threads or
/// wakeups. Each figure is checked against a baseline the same test measures, so that threads
/// other tests left in this process count on both sides.
final class InProcessThreadsTests: XCTestCase {
    static let cycles = 1_000

    // After 1,000 launches and terminations of an in-process guest through the core, once idle:
    // every channel freed (and with it the guest's main queue), and the host's threads and their
    // wakeups a second those it had before, within one thread and two wakeups a second. While
    // the cycles run, Dispatch's pool stays small, at most 6 threads more than before: guests'
    // main queues run on its non-overcommit pool, as many threads as cores (8 threads at most on
    // the 2-core VM from 5), where as serial queues of their own they ran on its overcommit pool,
    // which grew to 14 here and to 50 to 180 in the benchmarks. Debug build, 2-core VM: 16 s, of
    // which the cycles take 1.5 to 3 s and the rest is waiting for Dispatch's idle threads to go.
    func testAThousandInProcessLaunchesLeaveTheThreadsAndWakeupsOfAFreshHost() throws {
        let path = try GuestFixtures.library("minimal_guest.c")
        let hostQueue = DispatchQueue(label: "apphost.test.host")
        let opener = WeakChannels(InProcessOpener())
        let core = HostCore(
            opener: opener, clock: DispatchHostClock(queue: hostQueue), hostQueue: hostQueue,
            sessionIDs: RandomSessionIDs(), guestsDirectory: GuestFixtures.path("threads-\(UUID().uuidString)"),
            emit: { _ in })
        func cycle() { core.launchAndTerminate(path, on: hostQueue) }

        // One cycle first: Dispatch starts its pools and their once-a-second check at first use,
        // which a fresh host does as soon as it launches anything. Then the threads it woke go:
        // Dispatch lets one go once idle for 5 s.
        cycle()
        Thread.sleep(forTimeInterval: 6)
        let fresh = ThreadCensus.measure()

        let peak = ThreadCensus.Peak()
        let start = ContinuousClock.now
        for _ in 0..<Self.cycles { cycle() }
        let elapsed = ContinuousClock.now - start
        let during = peak.stop()

        XCTAssertEqual(opener.count, Self.cycles + 1, "every launch opened a channel")
        XCTAssertTrue(
            poll(upTo: .seconds(10)) { opener.alive == 0 }, "\(opener.alive) channels never freed")
        // Dispatch lets a thread idle for 5 s go; the settle is bounded.
        var after = ThreadCensus.measure()
        let settleEnd = ContinuousClock.now + .seconds(15)
        while after.threads > fresh.threads + 1 || after.wakeupsPerSecond > fresh.wakeupsPerSecond + 2,
            ContinuousClock.now < settleEnd
        {
            after = ThreadCensus.measure()
        }
        let summary =
            "fresh: \(fresh), after \(Self.cycles) cycles in \(elapsed): \(after), at most \(during) threads during them"
        print(summary)
        XCTAssertLessThanOrEqual(after.threads, fresh.threads + 1, summary)
        XCTAssertLessThanOrEqual(after.wakeupsPerSecond, fresh.wakeupsPerSecond + 2, summary)
        XCTAssertLessThanOrEqual(during, fresh.threads + 6, summary)
    }
}

/// Polls `condition` every 100 ms until it holds or `limit` has passed.
private func poll(upTo limit: Duration, until condition: () -> Bool) -> Bool {
    let end = ContinuousClock.now + limit
    while !condition() {
        guard ContinuousClock.now < end else { return false }
        Thread.sleep(forTimeInterval: 0.1)
    }
    return true
}
