import ApphostModel
import ApphostPolicyTesting
import ApphostVocabulary
import XCTest

@testable import ApphostPolicy

/// The background scheduler on its own (CONTRACT B1 to B4, B6 to B9): no core, no channel. A
/// small driver arms the timers it asks for on a manual clock and hands their tokens back when
/// they fall due, as the core does; everything else it says is kept, in order, for the test to
/// read. The default policy: a 30 s budget, expiration 5 s before its end, suspension 1 s after
/// going idle.
final class BackgroundSchedulerTests: XCTestCase {
    private let a = "org.test.a"
    private let b = "org.test.b"

    /// A guest running in background, its code free to run, nothing in flight.
    private static let idleInBackground = BackgroundFacts(
        life: GuestLife(phase: .running, hasChannel: true, suspension: .running), appState: .background,
        callInFlight: false, playsAudio: false)

    /// Carries out the scheduler's timers on a manual clock; keeps the rest of what it says.
    private final class Driver: @unchecked Sendable {
        // Confined to the test's thread, as the manual clock is.
        var scheduler: BackgroundScheduler
        let clock = ManualClock()
        var facts: [String: BackgroundFacts] = [:]
        /// Every effect but the timers', by guest, in order.
        var said: [String: [BackgroundEffect]] = [:]
        private var armed: [BackgroundToken: any ScheduledAction] = [:]

        init(policy: BackgroundPolicy = BackgroundPolicy()) { scheduler = BackgroundScheduler(policy: policy) }

        func facts(of id: String) -> BackgroundFacts { facts[id] ?? BackgroundSchedulerTests.idleInBackground }

        func apply(_ effects: [BackgroundEffect], for id: String) {
            for effect in effects {
                switch effect {
                case .schedule(let token, let delay):
                    armed[token] = clock.schedule(after: delay) { [self] in
                        guard armed.removeValue(forKey: token) != nil else { return }
                        apply(scheduler.tick(token, of: id, facts(of: id)), for: id)
                    }
                case .cancel(let token):
                    armed.removeValue(forKey: token)?.cancel()
                default:
                    said[id, default: []].append(effect)
                }
            }
        }

        /// What the scheduler said of `id` since the last look.
        func take(_ id: String) -> [BackgroundEffect] {
            defer { said[id] = [] }
            return said[id] ?? []
        }

        var pendingTimers: Int { armed.count }

        func enterBackground(_ id: String) { apply(scheduler.enteredBackground(id, at: clock.uptime()), for: id) }

        func report(_ event: GuestEvent, from id: String) {
            apply(scheduler.report(event, from: id, facts(of: id)), for: id)
        }
    }

    private func expirations(_ ids: TaskID..., names: [String]) -> [BackgroundEffect] {
        [.deliverAll(ids.map { .expireTask($0) })]
            + zip(ids, names).map { id, name in
                .record(
                    .taskExpired, reason: .budgetExpired, name: name, message: "task \(id): 5 s of background time left"
                )
            }
    }

    // CONTRACT B2: a budget starts as the guest enters background, told to its runtime first,
    // counts down, and ends (unlimited again) as it leaves; its timers go with it.
    func testB2BudgetStartsInBackgroundAndEndsInForeground() {
        let driver = Driver()
        XCTAssertNil(driver.scheduler.timeRemaining(of: a, at: driver.clock.uptime()), "unlimited before")
        driver.enterBackground(a)
        XCTAssertEqual(driver.take(a), [.deliver(.backgroundTime(.seconds(30)))])
        XCTAssertEqual(driver.pendingTimers, 2, "its expiration and its end")
        driver.clock.advance(by: .seconds(10))
        XCTAssertEqual(driver.scheduler.timeRemaining(of: a, at: driver.clock.uptime()), .seconds(20))
        driver.apply(driver.scheduler.leftBackground(a), for: a)
        XCTAssertEqual(driver.take(a), [.deliver(.backgroundTime(nil))])
        XCTAssertNil(driver.scheduler.timeRemaining(of: a, at: driver.clock.uptime()))
        XCTAssertEqual(driver.pendingTimers, 0, "both timers disarmed")
        driver.apply(driver.scheduler.leftBackground(a), for: a)
        XCTAssertEqual(driver.take(a), [], "said once")
    }

    // CONTRACT B3: every open task's expiration handler runs a grace period before the budget
    // ends, all together, then an event each; at most once per task, even in a later budget,
    // where only the tasks begun since expire.
    func testB3ExpirationOncePerTask() {
        let driver = Driver()
        driver.enterBackground(a)
        driver.report(.taskBegan(1, name: "upload"), from: a)
        driver.report(.taskBegan(2, name: "sync"), from: a)
        XCTAssertEqual(
            driver.take(a),
            [
                .deliver(.backgroundTime(.seconds(30))), .record(.taskBegun, name: "upload", message: "task 1"),
                .record(.taskBegun, name: "sync", message: "task 2"),
            ])
        driver.clock.advance(by: .seconds(24))
        XCTAssertEqual(driver.take(a), [], "not before the grace point")
        driver.clock.advance(by: .seconds(1))
        XCTAssertEqual(driver.take(a), expirations(1, 2, names: ["upload", "sync"]))
        XCTAssertEqual(driver.scheduler.tasks(of: a).map(\.expired), [true, true])

        // Back to the foreground and out again: a fresh budget; only the new task expires.
        driver.apply(driver.scheduler.leftBackground(a), for: a)
        driver.enterBackground(a)
        driver.report(.taskBegan(3, name: "fetch"), from: a)
        _ = driver.take(a)
        driver.clock.advance(by: .seconds(25))
        XCTAssertEqual(driver.take(a), expirations(3, names: ["fetch"]))
    }

    // CONTRACT B3: a guest stopped when the grace point comes hears nothing then; its tasks'
    // handlers are still owed to it.
    func testB3NoExpirationWhileStopped() {
        let driver = Driver()
        driver.enterBackground(a)
        driver.report(.taskBegan(1, name: "upload"), from: a)
        _ = driver.take(a)
        driver.facts[a] = BackgroundFacts(
            life: GuestLife(phase: .running, hasChannel: true, suspension: .suspending), appState: .background,
            callInFlight: false, playsAudio: false)
        driver.clock.advance(by: .seconds(30))
        XCTAssertEqual(driver.take(a), [])
        XCTAssertEqual(driver.scheduler.tasks(of: a).map(\.expired), [false])
    }

    // CONTRACT B4: at the end of its budget a guest still holding tasks ran over: the event names
    // them and it is suspended, or terminated by policy; one that holds none is left to B6.
    func testB4EndOfBudget() {
        for overrun in BackgroundPolicy.OverrunAction.allCases {
            let driver = Driver(policy: BackgroundPolicy(overrun: overrun))
            driver.enterBackground(a)
            driver.enterBackground(b)
            driver.report(.taskBegan(1, name: "upload"), from: a)
            driver.report(.taskBegan(2, name: "sync"), from: a)
            driver.clock.advance(by: .seconds(29))
            _ = driver.take(a)
            _ = driver.take(b)
            driver.clock.advance(by: .seconds(1))
            XCTAssertEqual(
                driver.take(a),
                [
                    .record(
                        .overrun, reason: .budgetExpired,
                        message: "ran over its 30 s background budget holding \"upload\", \"sync\""),
                    .suspend(.budgetExpired, onlyIfIdle: false, thenTerminate: overrun == .terminate),
                ], "\(overrun)")
            XCTAssertEqual(driver.take(b), [], "no task: left to B6")
            XCTAssertEqual(driver.scheduler.timeRemaining(of: a, at: driver.clock.uptime()), .zero, "no time left")
            XCTAssertEqual(driver.pendingTimers, 0)
        }
    }

    // CONTRACT B4, B9: a guest whose audio keeps it running in background is named for running
    // over, and kept running.
    func testB4AudioKeepsAnOverrunningGuestRunning() {
        let driver = Driver()
        var playing = Self.idleInBackground
        playing.playsAudio = true
        driver.facts[a] = playing
        driver.enterBackground(a)
        driver.report(.taskBegan(1, name: "upload"), from: a)
        _ = driver.take(a)
        driver.clock.advance(by: .seconds(30))
        XCTAssertEqual(
            driver.take(a).last,
            .record(
                .overrun, reason: .budgetExpired,
                message: "ran over its 30 s background budget holding \"upload\"; "
                    + "kept running: it plays audio in background"))
    }

    // CONTRACT B1: once the host has decided to stop the guest, its runtime hears that no
    // background time is left, once, and the budget's timers are disarmed.
    func testB1EndOfBackgroundWorkIsSaidOnce() {
        let driver = Driver()
        driver.enterBackground(a)
        _ = driver.take(a)
        driver.apply(driver.scheduler.endWork(a), for: a)
        XCTAssertEqual(driver.take(a), [.deliver(.backgroundTime(.zero))])
        XCTAssertTrue(driver.scheduler.workEnded(a))
        XCTAssertEqual(driver.pendingTimers, 0)
        XCTAssertEqual(driver.scheduler.endWork(a), [], "said once")
        driver.scheduler.resumed(a)
        XCTAssertFalse(driver.scheduler.workEnded(a))
    }

    // CONTRACT B7, B8: a timer that falls due while its guest is stopped waits, once however
    // often it fell due; on resume the timers fire in the order they fell due, a repeating one
    // is armed again, and the work submitted meanwhile runs after them, in order.
    func testB7B8TimersHeldWhileSuspendedRunInOrderOnResume() {
        let driver = Driver()
        driver.report(.timerScheduled(7, delay: .seconds(5), interval: nil), from: a)
        driver.report(.timerScheduled(8, delay: .seconds(2), interval: .seconds(2)), from: a)
        driver.report(.timerScheduled(9, delay: .seconds(3), interval: nil), from: a)
        driver.report(.timerCancelled(9), from: a)
        driver.clock.advance(by: .seconds(2))
        XCTAssertEqual(driver.take(a), [.deliver(.fireTimer(8))], "a running guest's timer fires at once")

        var stopped = Self.idleInBackground
        stopped.suspension = .suspended
        driver.facts[a] = stopped
        driver.report(.workSubmitted(40), from: a)
        driver.report(.workSubmitted(41), from: a)
        driver.clock.advance(by: .seconds(10))
        XCTAssertEqual(driver.take(a), [], "nothing reaches a stopped guest")
        XCTAssertEqual(driver.pendingTimers, 0, "the repeating timer waits too: once")

        driver.facts[a] = Self.idleInBackground
        driver.scheduler.resumed(a)
        driver.apply(driver.scheduler.releaseHeld(a), for: a)
        XCTAssertEqual(
            driver.take(a),
            [.deliver(.fireTimer(8)), .deliver(.fireTimer(7)), .deliver(.runWork(40)), .deliver(.runWork(41))],
            "8 fell due at 4 s, 7 at 5 s; 9 was cancelled")
        XCTAssertEqual(driver.pendingTimers, 1, "the repeating timer is armed again")
        driver.clock.advance(by: .seconds(2))
        XCTAssertEqual(driver.take(a), [.deliver(.fireTimer(8))])
        driver.apply(driver.scheduler.releaseHeld(a), for: a)
        XCTAssertEqual(driver.take(a), [], "nothing is held twice")
    }

    // CONTRACT B6: a background guest with no open task, no callback in flight and no background
    // audio is suspended a second after it went idle; a task begun meanwhile calls it off, and a
    // guest that is busy again when the second is up stays running.
    func testB6AutoSuspension() {
        let driver = Driver()
        driver.report(.taskBegan(1, name: "upload"), from: a)
        driver.report(.taskEnded(1), from: a)
        XCTAssertEqual(driver.pendingTimers, 1)
        driver.clock.advance(by: .milliseconds(999))
        XCTAssertEqual(driver.take(a).count, 2, "begun and ended, not yet suspended")
        driver.clock.advance(by: .milliseconds(1))
        XCTAssertEqual(driver.take(a), [.suspend(.automatic, onlyIfIdle: true, thenTerminate: false)])

        // A task begun before the second is up calls it off.
        driver.apply(driver.scheduler.considerSuspension(a, Self.idleInBackground), for: a)
        driver.report(.taskBegan(2, name: "sync"), from: a)
        XCTAssertEqual(driver.pendingTimers, 0)
        driver.report(.taskEnded(2), from: a)
        _ = driver.take(a)

        // In the foreground when the second is up: no suspension.
        var foreground = Self.idleInBackground
        foreground.appState = .active
        driver.facts[a] = foreground
        driver.clock.advance(by: .seconds(1))
        XCTAssertEqual(driver.take(a), [])

        // Not while a callback is in flight, nor while it plays audio in background (B9).
        var busy = Self.idleInBackground
        busy.callInFlight = true
        XCTAssertEqual(driver.scheduler.considerSuspension(a, busy), [])
        var playing = Self.idleInBackground
        playing.playsAudio = true
        XCTAssertEqual(driver.scheduler.considerSuspension(a, playing), [])
        driver.facts[a] = Self.idleInBackground
        driver.apply(driver.scheduler.audioChanged(a, Self.idleInBackground), for: a)
        XCTAssertEqual(driver.pendingTimers, 1, "its audio stopped: B6 applies")
        driver.apply(driver.scheduler.audioChanged(a, playing), for: a)
        XCTAssertEqual(driver.pendingTimers, 0, "its audio plays again: called off")
    }

    // A guest that stops running is forgotten, its timers disarmed; a token that fell due after
    // all does nothing.
    func testAnEndedRunIsForgotten() {
        let driver = Driver()
        let effects = driver.scheduler.enteredBackground(a, at: .zero)
        guard case .schedule(let expiration, _) = effects[1] else { return XCTFail("\(effects)") }
        driver.report(.taskBegan(1, name: "upload"), from: a)
        driver.report(.timerScheduled(7, delay: .seconds(5), interval: nil), from: a)
        let ended = driver.scheduler.ended(a)
        XCTAssertEqual(ended.count, 3, "\(ended)")
        XCTAssertTrue(ended.allSatisfy { if case .cancel = $0 { true } else { false } })
        XCTAssertEqual(driver.scheduler.tasks(of: a), [])
        XCTAssertEqual(driver.scheduler.tick(expiration, of: a, Self.idleInBackground), [])
    }
}
