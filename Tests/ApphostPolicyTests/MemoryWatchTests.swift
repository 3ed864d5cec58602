import ApphostModel
import ApphostPolicyTesting
import ApphostVocabulary
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

/// The memory watch's decisions on its own (CONTRACT A4, B8): whom it warns and whom it ends,
/// least recently used first, as values; the guests' last uses on a manual clock.
final class MemoryWatchDecisionTests: XCTestCase {
    private func guest(
        _ id: String, _ suspension: Suspension = .running, visible: Bool = false, phase: GuestPhase = .running
    ) -> MemoryFacts {
        MemoryFacts(
            id: id, life: GuestLife(phase: phase, hasChannel: phase != .notRunning, suspension: suspension),
            visible: visible)
    }

    /// `ids` used one after the other, a second apart, on a manual clock.
    private func watch(limit: UInt64? = 100, usedInOrder ids: [String]) -> MemoryWatch {
        let clock = ManualClock()
        var watch = MemoryWatch(limit: limit)
        for id in ids {
            clock.advance(by: .seconds(1))
            watch.used(id, at: clock.uptime())
        }
        return watch
    }

    // A4, B8: every running guest is warned, a stopped one keeps its warning for later, one that
    // does not run hears nothing.
    func testA4WarningReachesRunningGuestsAndWaitsForStoppedOnes() {
        let watch = watch(usedInOrder: ["a", "b", "c"])
        let effects = watch.warning([
            guest("a"), guest("b", .suspended), guest("c", phase: .notRunning), guest("d", .suspending),
        ])
        XCTAssertEqual(
            effects, [.record(.memoryWarning, reason: .memory, name: "warning"), .warn("a"), .hold("b"), .hold("d")])
    }

    // A4: a critical warning then ends the suspended guests, least recently used first.
    func testA4CriticalWarningEndsSuspendedGuestsLeastRecentlyUsedFirst() {
        let watch = watch(usedInOrder: ["old", "shown", "newer"])
        let effects = watch.warning(
            level: .critical,
            [guest("newer", .suspended), guest("shown", visible: true), guest("old", .suspended), guest("bg")])
        XCTAssertEqual(
            effects,
            [
                .record(.memoryWarning, reason: .memory, name: "critical"), .hold("newer"), .warn("shown"),
                .hold("old"), .warn("bg"), .terminate("old"), .terminate("newer"),
            ])
    }

    // A4: going over warns; each reading still over ends one guest: suspended ones first, then
    // background ones, then the shown ones, each least recently used first; none while one is
    // being terminated, and never one being suspended or resumed.
    func testA4StayingOverEndsOneGuestAtATimeInJetsamOrder() {
        var watch = watch(usedInOrder: ["bgOld", "shown", "bgNew", "suspended"])
        var guests = [guest("shown", visible: true), guest("bgNew"), guest("bgOld"), guest("suspended", .suspended)]
        XCTAssertEqual(watch.usage(bytes: 50, guests), [])
        XCTAssertEqual(
            watch.usage(bytes: 150 << 20, guests).first, .record(.memoryWarning, reason: .memory, name: "warning"))
        let limit = "its limit of 0 MB"
        XCTAssertEqual(
            watch.usage(bytes: 150 << 20, guests),
            [
                .record(
                    .error, guest: "suspended", reason: .memory, message: "host memory 150 MB is over \(limit)"),
                .terminate("suspended"),
            ])
        guests[3].phase = .terminating
        XCTAssertEqual(watch.usage(bytes: 150 << 20, guests), [], "one at a time")
        guests[3] = guest("suspended", phase: .notRunning)
        XCTAssertEqual(watch.usage(bytes: 150 << 20, guests).last, .terminate("bgOld"))
        guests[2] = guest("bgOld", phase: .notRunning)
        XCTAssertEqual(watch.usage(bytes: 150 << 20, guests).last, .terminate("bgNew"))
        guests[1].suspension = .suspending
        XCTAssertEqual(watch.usage(bytes: 150 << 20, guests).last, .terminate("shown"), "not one being suspended")
        XCTAssertEqual(watch.usage(bytes: 99, guests), [], "back under")
    }
}
