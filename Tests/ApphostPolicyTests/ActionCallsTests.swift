import ApphostModel
import ApphostPolicyTesting
import ApphostVocabulary
import CApphost
import XCTest

@testable import ApphostPolicy

/// The action calls part on its own (CONTRACT F1 to F3): no core, no channel. A small driver arms
/// the deadlines it asks for on a manual clock and hands them back when they fall due, as the
/// core does; the calls it sends and the answers it gives are kept for the test to read. The
/// watchdog's hard limit is 2 s.
final class ActionCallsTests: XCTestCase {
    private let id = "org.test.notes"
    private static let ok = Int32(APPHOST_OK.rawValue)
    private static let invalid = Int32(APPHOST_ERROR_INVALID_ARGUMENT.rawValue)
    private static let count = GuestAction(
        name: "count", arguments: [], result: .int32, summary: "Counts.", foreground: false)
    private static let add = GuestAction(
        name: "add", arguments: [.string], result: nil, summary: "Adds.", foreground: false)
    private static let show = GuestAction(
        name: "show", arguments: [], result: nil, summary: "Shows.", foreground: true)

    private final class Driver: @unchecked Sendable {
        // Confined to the test's thread, as the manual clock is.
        var part = ActionCalls(limit: .seconds(2))
        let clock = ManualClock()
        var facts: ActionFacts
        /// The calls sent, in order, and each call's answers (there must be one).
        var sent: [(ActionCallID, GuestCall)] = []
        var answers: [ActionCallID: [Result<ActionValue?, HostCommandError>]] = [:]
        var delays: [Duration] = []
        private var armed: [ActionCallID: any ScheduledAction] = [:]

        init(facts: ActionFacts) { self.facts = facts }

        func apply(_ effects: [ActionEffect]) {
            for effect in effects {
                switch effect {
                case .deliver(let call, let message):
                    facts.calls.sent(message.callbackName, at: clock.uptime()).ignore()
                    sent.append((call, message))
                case .answer(let call, let result):
                    answers[call, default: []].append(result)
                case .schedule(let call, let delay):
                    delays.append(delay)
                    armed[call] = clock.schedule(after: delay) { [self] in
                        guard armed.removeValue(forKey: call) != nil else { return }
                        apply(part.deadline(call, facts))
                    }
                case .cancel(let call):
                    armed.removeValue(forKey: call)?.cancel()
                }
            }
        }

        @discardableResult
        func call(_ name: String, _ arguments: ActionArguments = .words([]), of id: String = "org.test.notes")
            -> ActionCallID
        {
            let (call, effects) = part.call(name, arguments: arguments, of: id, facts)
            apply(effects)
            return call
        }

        /// The guest answers its oldest callback with `reply`.
        func reply(_ call: ActionCallID, _ reply: GuestReply) {
            facts.calls.answered(at: clock.uptime()).ignore()
            apply(part.replied(call, reply, facts))
        }

        func answer(_ call: ActionCallID) -> Result<ActionValue?, HostCommandError>? {
            XCTAssertLessThanOrEqual(answers[call]?.count ?? 0, 1, "answered once")
            return answers[call]?.first
        }
    }

    private func running(appState: AppState = .active, inProcess: Bool = false) -> ActionFacts {
        let descriptor = GuestDescriptor(
            id: id, name: "notes", version: "1.0", actions: [Self.count, Self.add, Self.show])
        return ActionFacts(
            descriptor: descriptor, life: GuestLife(phase: .running, hasChannel: true, suspension: .running),
            appState: appState, inProcess: inProcess, calls: CallWatch(), lastReason: .requested)
    }

    private func failure(_ result: Result<ActionValue?, HostCommandError>?) -> String? {
        guard case .failure(let error) = result else { return nil }
        return error.message
    }

    // F2: refused at once, nothing sent, one line each.
    func testF2RefusalsSendNothing() {
        let driver = Driver(facts: running())
        let unknown = driver.call("nope")
        XCTAssertEqual(
            failure(driver.answer(unknown)), "\(id) has no action nope (it has count()i, add(s), show())")
        let wrong = driver.call("add", .words([]))
        XCTAssertNotNil(failure(driver.answer(wrong)))
        driver.facts.phase = .launching
        XCTAssertEqual(
            failure(driver.answer(driver.call("count"))), "\(id) is still launching: actions run once it has launched")
        driver.facts.phase = .notRunning
        XCTAssertEqual(failure(driver.answer(driver.call("count"))), "\(id) is not running")
        driver.facts.phase = .running
        driver.facts.suspension = .suspended
        XCTAssertEqual(
            failure(driver.answer(driver.call("count"))),
            "\(id) is suspended, and an action never wakes a guest: resume it first (apphost ctl resume \(id))")
        driver.facts.suspension = .running
        driver.facts.appState = .background
        XCTAssertEqual(
            failure(driver.answer(driver.call("show"))),
            "action show of \(id) runs only in the foreground, and \(id) is in background")
        XCTAssertTrue(driver.sent.isEmpty)
        XCTAssertEqual(driver.part.callsUnderWay, 0)
        XCTAssertNil(driver.clock.nextDeadline)
    }

    // F2: each reply takes the oldest result its guest reported, in order, as the declared type.
    func testF2ResultsPairWithRepliesInOrder() {
        let driver = Driver(facts: running())
        let first = driver.call("count")
        let second = driver.call("add", .json([.string("milk")]))
        XCTAssertEqual(
            driver.sent.map(\.1),
            [.action(Self.count, index: 0, arguments: []), .action(Self.add, index: 1, arguments: [.string("milk")])])
        driver.part.reported(.returned(.int32(3)), by: id)
        driver.part.reported(.returned(nil), by: id)
        driver.reply(first, .success(Self.ok))
        driver.reply(second, .success(Self.ok))
        XCTAssertEqual(try driver.answer(first)?.get(), .int32(3))
        XCTAssertEqual(try driver.answer(second)?.get(), .some(nil))
        XCTAssertEqual(driver.part.resultsWaiting(of: id), 0)
        XCTAssertEqual(driver.part.callsUnderWay, 0)
        XCTAssertNil(driver.clock.nextDeadline, "the deadlines are disarmed")
    }

    // F2: a result the runtime says is broken, and a status with no result, are one line each.
    func testF2BrokenResultAndFailedStatus() {
        let driver = Driver(facts: running())
        let broken = driver.call("count")
        driver.part.reported(.broke("returned NULL as its string"), by: id)
        driver.reply(broken, .success(Self.ok))
        XCTAssertEqual(failure(driver.answer(broken)), "\(id)'s action count returned NULL as its string")
        let refused = driver.call("count")
        driver.reply(refused, .success(Self.invalid))
        XCTAssertEqual(
            failure(driver.answer(refused)),
            "\(id) could not run action count: \(StatusName.of(Self.invalid))")
        let closed = driver.call("count")
        driver.reply(closed, .failure(.closed))
        XCTAssertEqual(failure(driver.answer(closed)), "\(id) stopped before action count returned")
    }

    // X7: results are kept only for calls under way, so that a runtime reporting more cannot grow
    // the queue; the guest's end drops what no reply took.
    func testResultsAreBoundedByTheCallsUnderWay() {
        let driver = Driver(facts: running())
        for _ in 0..<1000 { driver.part.reported(.returned(.int32(9)), by: id) }
        XCTAssertEqual(driver.part.resultsWaiting(of: id), 0)
        let call = driver.call("count")
        for value in 0..<1000 { driver.part.reported(.returned(.int32(Int32(value))), by: id) }
        XCTAssertEqual(driver.part.resultsWaiting(of: id), 1)
        driver.part.ended(id)
        XCTAssertEqual(driver.part.resultsWaiting(of: id), 0)
        driver.part.reported(.returned(.int32(5)), by: id)
        driver.reply(call, .success(Self.ok))
        XCTAssertEqual(try driver.answer(call)?.get(), .int32(5))
    }

    // F3: past the hard limit (a second more for a worker) the caller hears why, once; the late
    // reply still takes its result, so that the next call pairs with its own.
    func testF3DeadlineAnswersOnceAndTheLateReplyTakesItsResult() {
        let driver = Driver(facts: running())
        let slow = driver.call("count")
        XCTAssertEqual(driver.delays, [.seconds(3)])
        driver.clock.advance(by: .seconds(3))
        XCTAssertEqual(
            failure(driver.answer(slow)),
            "\(id) has not returned from action count within 2 s, the watchdog's hard limit")
        driver.part.reported(.returned(.int32(1)), by: id)
        driver.reply(slow, .success(Self.ok))
        XCTAssertEqual(driver.answers[slow]?.count, 1)
        let next = driver.call("count")
        driver.part.reported(.returned(.int32(2)), by: id)
        driver.reply(next, .success(Self.ok))
        XCTAssertEqual(try driver.answer(next)?.get(), .int32(2))
    }

    // F3: in the host's process nothing stops a guest that hangs: a call waiting behind a
    // callback that has not returned hears which, at the hard limit.
    func testF3InProcessCallWaitingBehindAHungCallback() {
        let driver = Driver(facts: running(inProcess: true))
        driver.facts.calls.sent("scene_did_enter_background", at: .zero).ignore()
        let waiting = driver.call("count")
        XCTAssertEqual(driver.delays, [.seconds(2)])
        driver.clock.advance(by: .seconds(2))
        XCTAssertEqual(
            failure(driver.answer(waiting)),
            "\(id)'s action count never ran: \(id) is still in scene_did_enter_background, which has not returned "
                + "within 2 s, the watchdog's hard limit; it still runs it in the host's process (use --isolation "
                + "process)")
    }

    // F3: the watchdog killed the guest in one callback: its caller, and each caller waiting
    // behind it, hears which call hung.
    func testF3WatchdogKillNamesTheCallThatHung() {
        let driver = Driver(facts: running())
        let hung = driver.call("count")
        let behind = driver.call("add", .json([.string("x")]))
        driver.facts.calls.lastHung = (driver.facts.calls.answeredCount, "action count")
        driver.facts.lastReason = .watchdog
        driver.apply(driver.part.replied(hung, .failure(.crashed("killed by signal 9")), driver.facts))
        driver.apply(driver.part.replied(behind, .failure(.crashed("killed by signal 9")), driver.facts))
        XCTAssertEqual(
            failure(driver.answer(hung)),
            "\(id) was killed by the watchdog in action count: it ran past 2 s, the watchdog's hard limit "
                + "(killed by signal 9)")
        XCTAssertEqual(
            failure(driver.answer(behind)),
            "\(id)'s action add never ran: the watchdog killed \(id) while it was in action count, past 2 s")
        let crash = driver.call("count")
        driver.facts.lastReason = .crash
        driver.apply(driver.part.replied(crash, .failure(.crashed("signal 11")), driver.facts))
        XCTAssertEqual(failure(driver.answer(crash)), "\(id) crashed in action count: signal 11")
    }
}

extension Bool {
    fileprivate func ignore() {}
}
