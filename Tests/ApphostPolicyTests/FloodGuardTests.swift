import ApphostModel
import ApphostPolicyTesting
import ApphostVocabulary
import XCTest

@testable import ApphostPolicy

/// One guest's requests of one kind against its limit, alone, on the manual clock (CONTRACT X2,
/// X7): a bucket of `limit` requests refilled at `limit` a window; the request that leaves less
/// than a quarter of it begins an episode, told once; past twice the limit at once, refused; an
/// episode that lasts `stopAfter` stops the guest.
final class FloodGuardTests: XCTestCase {
    private let policy = FloodPolicy(limit: 10, window: .seconds(1), stopAfter: .seconds(5))
    private let clock = ManualClock()
    private var flood = FloodGuard()

    /// `count` requests spread over `over`, from now; the verdicts in order.
    private func requests(_ count: Int, over: Duration = .zero) -> [FloodGuard.Verdict] {
        (0..<count).map { _ in
            let verdict = flood.admit(at: clock.uptime(), policy: policy)
            clock.advance(by: over / count)
            return verdict
        }
    }

    private func notices(_ verdicts: [FloodGuard.Verdict]) -> Int {
        verdicts.filter { if case .throttle = $0 { true } else { false } }.count
    }

    private func allowed(_ count: Int) -> [FloodGuard.Verdict] { Array(repeating: .allow, count: count) }

    // CONTRACT X7: a burst that leaves a quarter of the bucket, and a steady rate below the limit,
    // are allowed, however long it goes on.
    func testX7RequestsBelowTheLimitAreAllowed() {
        XCTAssertEqual(requests(7), allowed(7))
        clock.advance(by: .seconds(1))
        for _ in 0..<40 {
            XCTAssertEqual(requests(5, over: .milliseconds(500)), allowed(5))
            clock.advance(by: .milliseconds(500))
        }
        // As many as it refills, evenly: its runtime refuses none either.
        XCTAssertEqual(requests(100, over: .seconds(10)), allowed(100))
        XCTAssertFalse(flood.flooding(at: clock.uptime(), policy: policy))
    }

    // CONTRACT X7: the request that leaves less than a quarter of the bucket is told, once; up to
    // twice the limit at once is still handled (the runtime's windows are not the host's), and
    // what goes past it refused.
    func testX7ReachingTheLimitIsToldOnceAndPastTwiceItIsRefused() {
        let verdicts = requests(25)
        XCTAssertEqual(Array(verdicts.prefix(7)), allowed(7))
        XCTAssertEqual(
            verdicts[7],
            .throttle(
                notice: "reached its limit of 10 requests within 1 s: throttled; stopped if it keeps at it for 5 s"))
        XCTAssertEqual(Array(verdicts[8..<20]), allowed(12))
        XCTAssertEqual(Array(verdicts[20...]), Array(repeating: .refuse, count: 5))
        XCTAssertTrue(flood.flooding(at: clock.uptime(), policy: policy))
    }

    // CONTRACT X7: a guest that its runtime holds at the limit (the limit at once, each window) is
    // told once for the episode, then stopped when the episode has lasted `stopAfter`, and refused
    // everything after.
    func testX7KeepingAtTheLimitIsToldOnceThenStopped() {
        var verdicts: [FloodGuard.Verdict] = []
        for _ in 0..<5 {
            verdicts += requests(10)
            clock.advance(by: .seconds(1))
        }
        XCTAssertEqual(notices(verdicts), 1)
        XCTAssertFalse(verdicts.contains { if case .stop = $0 { true } else { false } })
        let sixth = requests(10)
        XCTAssertEqual(Array(sixth.prefix(7)), allowed(7))
        XCTAssertEqual(sixth[7], .stop(reason: "kept at its limit of 10 requests within 1 s for 5 s"))
        XCTAssertEqual(Array(sixth[8...]), [.refuse, .refuse])
        XCTAssertTrue(flood.stopped)
        clock.advance(by: .seconds(60))
        XCTAssertEqual(requests(3), Array(repeating: .refuse, count: 3))
    }

    // CONTRACT X7: a burst cut in two where the host's window and the runtime's would part is one
    // burst to a bucket: the episode goes on.
    func testX7ABurstCutInTwoIsStillAtTheLimit() {
        XCTAssertEqual(notices(requests(10)), 1)
        clock.advance(by: .milliseconds(990))
        _ = requests(5)
        clock.advance(by: .milliseconds(20))
        XCTAssertEqual(requests(5), allowed(5))
        XCTAssertTrue(flood.flooding(at: clock.uptime(), policy: policy))
    }

    // CONTRACT X7: a guest that does not come back to its limit within two windows ends its
    // episode: the next time is a new one, told again, with its own time to stop.
    func testX7AnEpisodeEndsWhenTheGuestStaysBelowItsLimit() {
        XCTAssertEqual(notices(requests(10)), 1)
        clock.advance(by: .milliseconds(1500))
        XCTAssertEqual(notices(requests(10)), 0, "back within two windows: the same episode")
        clock.advance(by: .seconds(3))
        XCTAssertFalse(flood.flooding(at: clock.uptime(), policy: policy))
        XCTAssertEqual(notices(requests(10)), 1, "a new episode")
        for _ in 0..<4 {
            clock.advance(by: .seconds(1))
            XCTAssertFalse(requests(10).contains { if case .stop = $0 { true } else { false } })
        }
    }

    // CONTRACT X7: the runtime keeps the same numbers as the host's default policy.
    func testX7TheAudioPolicyIsTheRuntimes() {
        XCTAssertEqual(FloodPolicy.audioRequests.limit, 100)
        XCTAssertEqual(FloodPolicy.audioRequests.window, .seconds(1))
        XCTAssertEqual(FloodPolicy.audioRequests.stopAfter, .seconds(10))
    }

    // A new launch starts afresh.
    func testResetForgetsTheEpisodeAndTheStop() {
        for _ in 0..<7 {
            _ = requests(10)
            clock.advance(by: .seconds(1))
        }
        XCTAssertTrue(flood.stopped)
        flood.reset()
        XCTAssertEqual(requests(7), allowed(7))
    }
}

/// The host core with a guest that flaps its audio session at its runtime's limit beside another
/// guest, on the manual clock (CONTRACT X2, X7).
final class AudioRequestFloodTests: XCTestCase {
    // CONTRACT X2, X7: told once (`throttled`, reason flooding), then terminated with reason
    // flooding once it has kept at its limit for 10 s; what goes past twice the limit at once is
    // dropped unanswered; the other guest runs on.
    func testX2X7AGuestFlappingItsSessionIsToldOnceThenTerminated() throws {
        let host = CoreHarness()
        let flood = host.opener.add("org.example.flood")
        _ = host.opener.add("org.example.calm")
        host.run { $0.launch(path: "org.example.flood", foreground: true) }
        host.run { $0.launch(path: "org.example.calm", foreground: false) }
        host.settle()
        flood.emit(.audioConfigured(try AudioConfiguration(category: .playback, options: [.mixWithOthers])))
        host.settle()

        // 100 requests a second (its runtime's limit) for 12 s, and in the first second 300 more.
        var request: UInt64 = 0
        for tick in 0..<1200 {
            let burst = tick < 100 ? 4 : 1
            for _ in 0..<burst {
                request += 1
                let event: GuestEvent =
                    request % 2 == 1
                    ? .audioActivationRequested(AudioRequestID(request)) : .audioDeactivated(notifyOthers: false)
                // On the host queue, as a channel hands it over: stopping the guest is done there.
                host.run { _ in flood.emit(event) }
            }
            host.settle()
            host.advance(by: .milliseconds(10))
        }
        host.settle()

        let throttled = host.events.of(.throttled, guest: "org.example.flood")
        XCTAssertEqual(throttled.count, 1, "once for the episode")
        XCTAssertEqual(throttled.first?.reason, .flooding)
        XCTAssertEqual(throttled.first?.name, "audio")
        let terminated = host.events.of(.terminated, guest: "org.example.flood")
        XCTAssertEqual(terminated.map(\.reason), [.flooding])
        XCTAssertEqual(host.guest("org.example.flood")?.phase, .notRunning)
        XCTAssertEqual(host.guest("org.example.flood")?.lastReason, .flooding)
        // Past twice the limit in the first second, and everything once stopped, is dropped
        // unanswered.
        let answers = host.calls.names("org.example.flood").filter { $0.hasPrefix("activation_finished") }
        XCTAssertLessThan(answers.count, Int(request / 2) - 100)
        XCTAssertEqual(host.guest("org.example.calm")?.phase, .running)
        XCTAssertTrue(host.events.of(.terminated, guest: "org.example.calm").isEmpty)
    }
}
