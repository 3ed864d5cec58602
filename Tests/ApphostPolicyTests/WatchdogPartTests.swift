import ApphostModel
import ApphostPolicyTesting
import ApphostVocabulary
import XCTest

@testable import ApphostPolicy

/// The watchdog on its own (CONTRACT B5): no core, no channel. A small driver arms the timers it
/// asks for on a manual clock and hands their tokens back when they fall due, as the core does;
/// everything else it says is kept, in order. Limit 5 s, hard limit 10 s.
final class WatchdogPartTests: XCTestCase {
    private final class Driver: @unchecked Sendable {
        // Confined to the test's thread, as the manual clock is.
        var watchdog: Watchdog
        var calls = CallWatch()
        let clock = ManualClock()
        var said: [WatchdogEffect] = []
        private var armed: [WatchdogToken: any ScheduledAction] = [:]

        init(_ action: WatchdogPolicy.Action = .kill) {
            watchdog = Watchdog(policy: WatchdogPolicy(limit: .seconds(5), hardLimit: .seconds(10), action: action))
        }

        var pendingTimers: Int { armed.count }

        func apply(_ effects: [WatchdogEffect]) {
            for effect in effects {
                switch effect {
                case .schedule(let token, let delay):
                    armed[token] = clock.schedule(after: delay) { [self] in
                        guard armed.removeValue(forKey: token) != nil else { return }
                        apply(watchdog.look(token, &calls, at: clock.uptime()))
                    }
                case .cancel(let token):
                    armed.removeValue(forKey: token)?.cancel()
                default:
                    said.append(effect)
                }
            }
        }

        func send(_ callback: String) { apply(watchdog.sent(callback, &calls, at: clock.uptime())) }

        @discardableResult
        func answer() -> Bool {
            let (more, effects) = watchdog.answered(&calls, at: clock.uptime())
            apply(effects)
            return more
        }

        func take() -> [WatchdogEffect] {
            defer { said = [] }
            return said
        }
    }

    // B5: a callback is flagged past the limit, then stopped past the hard limit (killed by
    // default), and the guest's calls remember where it hung.
    func testB5FlaggedPastTheLimitThenKilledPastTheHardLimit() {
        let driver = Driver()
        driver.send("did_enter_background")
        XCTAssertEqual(driver.pendingTimers, 1)
        driver.clock.advance(by: .seconds(5))
        XCTAssertEqual(
            driver.take(), [.record(.watchdog, message: "did_enter_background has not returned within 5 s")])
        driver.clock.advance(by: .seconds(5))
        XCTAssertEqual(
            driver.take(), [.stop(freezing: false, overdue: "did_enter_background has not returned within 10 s")])
        XCTAssertTrue(driver.calls.killedByWatchdog)
        XCTAssertEqual(driver.calls.lastHung?.callback, "did_enter_background")
        XCTAssertEqual(driver.pendingTimers, 0)
        XCTAssertEqual(
            driver.watchdog.stopped(.success(()), freezing: false, overdue: "x", &driver.calls), [],
            "the death that follows says the rest")
    }

    // B5: with the freeze policy the guest is frozen where it stands and taken as suspended; a
    // stop that fails is an error event, and the guest is not taken as killed.
    func testB5FreezeAndAStopThatFails() {
        let driver = Driver(.freeze)
        driver.send("will_terminate")
        driver.clock.advance(by: .seconds(10))
        XCTAssertEqual(
            driver.take().last, .stop(freezing: true, overdue: "will_terminate has not returned within 10 s"))
        XCTAssertFalse(driver.calls.killedByWatchdog)
        XCTAssertEqual(
            driver.watchdog.stopped(.success(()), freezing: true, overdue: "late", &driver.calls),
            [.frozen(overdue: "late")])
        driver.calls.killedByWatchdog = true
        XCTAssertEqual(
            driver.watchdog.stopped(.failure(.closed), freezing: false, overdue: "late", &driver.calls),
            [.record(.error, message: "late; cannot stop it: \(ChannelFailure.closed)")])
        XCTAssertFalse(driver.calls.killedByWatchdog)
    }

    // B5: each callback gets the whole limit from when it became the oldest: the one timer re-arms
    // itself for a younger callback, and replies never arm another.
    func testB5OneTimerFollowsTheOldestCallback() {
        let driver = Driver()
        driver.send("will_connect")
        driver.send("did_become_active")
        XCTAssertEqual(driver.pendingTimers, 1, "one timer a guest")
        driver.clock.advance(by: .seconds(4))
        XCTAssertTrue(driver.answer())
        XCTAssertEqual(driver.pendingTimers, 1, "the earlier timer stays")
        driver.clock.advance(by: .seconds(1))
        XCTAssertEqual(driver.take(), [], "did_become_active has had 1 s of its 5")
        XCTAssertEqual(driver.pendingTimers, 1, "set again for 9 s")
        driver.clock.advance(by: .seconds(4))
        XCTAssertEqual(
            driver.take(), [.record(.watchdog, message: "did_become_active has not returned within 5 s")])
        XCTAssertFalse(driver.answer())
        driver.clock.advance(by: .seconds(30))
        XCTAssertEqual(driver.take(), [], "nothing waits")
        XCTAssertEqual(driver.pendingTimers, 0)
    }

    // The guest is gone: its timer is disarmed, and a token that fell due meanwhile does nothing.
    func testEndedDisarmsTheTimer() {
        let driver = Driver()
        driver.send("will_connect")
        guard let token = driver.calls.timer else { return XCTFail("armed") }
        driver.apply(driver.watchdog.ended(&driver.calls))
        XCTAssertEqual(driver.pendingTimers, 0)
        XCTAssertNil(driver.calls.current)
        XCTAssertEqual(driver.watchdog.look(token, &driver.calls, at: .seconds(60)), [])
    }
}

/// The restarter on its own (CONTRACT X2): its decisions as values, the restart's delay on a
/// manual clock as the core arms it.
final class RestarterPartTests: XCTestCase {
    private final class Driver: @unchecked Sendable {
        // Confined to the test's thread, as the manual clock is.
        let restarter = Restarter(
            policy: RestartPolicy(mode: .onFailure, burst: 2, interval: .seconds(10), delay: .milliseconds(100)))
        let clock = ManualClock()
        var history = RestartHistory()
        var said: [RestartEffect] = []

        func apply(_ effects: [RestartEffect]) {
            for effect in effects {
                guard case .schedule(let delay) = effect else {
                    said.append(effect)
                    continue
                }
                clock.schedule(after: delay) { [self] in apply(restarter.due(&history, phase: .notRunning)) }
            }
        }

        func fail() { apply(restarter.failed(&history, at: clock.uptime())) }

        func take() -> [RestartEffect] {
            defer { said = [] }
            return said
        }
    }

    // X2: a crash schedules a restart after the delay; when it is due the guest relaunches where
    // it crashed, counted; past the burst the host says so once and leaves it down.
    func testX2RestartsAfterTheDelayUntilTheBurst() {
        let driver = Driver()
        driver.apply(driver.restarter.failed(&driver.history, at: driver.clock.uptime(), inForeground: true))
        XCTAssertEqual(driver.take(), [], "not before the delay")
        driver.clock.advance(by: .milliseconds(100))
        XCTAssertEqual(driver.take(), [.record(.restarting, message: "restart 1"), .launch(foreground: true)])
        driver.fail()
        driver.clock.advance(by: .milliseconds(100))
        XCTAssertEqual(driver.take(), [.record(.restarting, message: "restart 2"), .launch(foreground: true)])
        driver.fail()
        XCTAssertEqual(driver.take(), [.record(.error, message: "not restarting: 2 restarts within 10 s")])
        XCTAssertEqual(driver.restarter.failed(&driver.history, at: driver.clock.uptime()), [], "said once")
        XCTAssertEqual(
            driver.restarter.status(of: driver.history), RestartStatus(policy: .onFailure, restarts: 2, gaveUp: true))
    }

    // X2: a restart that comes due while the guest runs again (an operator launched it) does
    // nothing; the policy `never` restarts nothing.
    func testX2NoRestartForARunningGuestOrUnderNever() {
        let driver = Driver()
        XCTAssertEqual(
            driver.restarter.failed(&driver.history, at: .zero), [.schedule(after: .milliseconds(100))])
        XCTAssertEqual(driver.restarter.due(&driver.history, phase: .running), [])
        XCTAssertEqual(driver.history.restarts, 0)
        XCTAssertEqual(
            driver.restarter.failed(&driver.history, at: .seconds(1), inForeground: false),
            [.schedule(after: .milliseconds(100))])
        XCTAssertEqual(
            driver.restarter.due(&driver.history, phase: .notRunning),
            [.record(.restarting, message: "restart 1"), .launch(foreground: false)], "back where it crashed")
        var other = RestartHistory()
        XCTAssertEqual(Restarter(policy: .never).failed(&other, at: .zero), [])
    }
}
