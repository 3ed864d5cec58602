import ApphostModel
import ApphostPolicy
import ApphostPolicyTesting
import ApphostVocabulary
import Foundation
import XCTest

/// Typed actions on the host core (CONTRACT F2, F3), with fake guests and a manual clock: what
/// is refused before anything is sent, how a result is paired with its call's reply, and the
/// answer a caller gets when the guest never returns.
final class ActionCallTests: XCTestCase {
    private var host: CoreHarness!
    private var notes: FakeGuest!

    override func setUp() {
        host = CoreHarness(watchdog: WatchdogPolicy(limit: .seconds(1), hardLimit: .seconds(2)))
        notes = host.opener.add("org.test.notes")
        notes.descriptor.actions = [
            GuestAction(name: "add", arguments: [.string], result: nil, summary: "Adds.", foreground: false),
            GuestAction(name: "count", arguments: [], result: .int32, summary: "Counts.", foreground: false),
            GuestAction(name: "level", arguments: [.uint8, .bool], result: .uint64, summary: "L.", foreground: false),
            GuestAction(name: "show", arguments: [], result: nil, summary: "Shows.", foreground: true),
        ]
        _ = host.opener.add("org.test.other")
        host.run { $0.launch(path: "org.test.notes", foreground: true) }
        host.run { $0.launch(path: "org.test.other", foreground: false) }
    }

    private func call(_ action: String, _ arguments: ActionArguments, guest: String = "org.test.notes")
        -> Result<ActionValue?, HostCommandError>?
    {
        let box = ResultBox()
        host.run { core in core.actions.call(guest: guest, action: action, arguments: arguments) { box.result = $0 } }
        return box.result
    }

    private func actionCalls() -> [String] {
        host.calls.names("org.test.notes").filter { $0.contains("action") }
    }

    // F2: the result the guest reported answers the call, as the declared type.
    func testF2TheReportedResultAnswersTheCall() {
        notes.actionOutcomes["count"] = .returned(.int32(3))
        XCTAssertEqual(try call("count", .words([]))?.get(), .int32(3))
        XCTAssertEqual(try call("add", .json([.string("milk")]))?.get(), .some(nil))
        notes.actionOutcomes["level"] = .returned(.uint64(.max))
        XCTAssertEqual(try call("level", .words(["255", "true"]))?.get(), .uint64(.max))
        XCTAssertEqual(actionCalls().count, 3)
        // Arguments as the call carried them, converted to the declared types.
        let sent = host.calls.messages.compactMap { received -> [ActionValue]? in
            if case .action(_, _, let arguments) = received.message.call { arguments } else { nil }
        }
        XCTAssertEqual(sent.last, [.uint8(255), .bool(true)])
    }

    // F2: nothing reaches the guest for arguments that are not the declared ones, or a guest
    // that cannot take the call; each refusal is one line, of the kind HTTP's status follows
    // (CONTRACT O1): arguments wrong whatever the state are invalid, no such guest or action
    // not found.
    func testF2RefusalsReachNoGuest() {
        let refusals: [(String, ActionArguments, String, String, HostCommandError.Kind)] = [
            ("count", .words(["1"]), "org.test.notes", "count()i takes 0 arguments, not 1", .invalid),
            (
                "level", .words(["300", "true"]), "org.test.notes", "level(yb)t: argument 1 (y): 300 is out of range",
                .invalid
            ),
            (
                "level", .json([.integer(1), .integer(1)]), "org.test.notes", "argument 2 (b): 1 is not true or false",
                .invalid
            ),
            (
                "nope", .words([]), "org.test.notes", "org.test.notes has no action nope (it has add(s), count()i",
                .notFound
            ),
            ("count", .words([]), "org.test.none", "no guest org.test.none", .notFound),
            ("count", .words([]), "org.test.other", "org.test.other has no action count (it declares none)", .notFound),
        ]
        for (action, arguments, guest, message, kind) in refusals {
            guard case .failure(let error) = call(action, arguments, guest: guest) else {
                XCTFail("\(action) was not refused")
                continue
            }
            XCTAssertTrue(error.message.contains(message), error.message)
            XCTAssertEqual(error.kind, kind, error.message)
            XCTAssertFalse(error.message.contains("\n"))
        }
        XCTAssertEqual(actionCalls(), [])
    }

    // A foreground-only action is refused in background; a suspended guest is never woken.
    func testF2ForegroundOnlyAndSuspendedGuests() {
        guard case .success = call("show", .words([])) else { return XCTFail("refused in the foreground") }
        host.run { $0.scenes.home() }
        guard case .failure(let background) = call("show", .words([])) else { return XCTFail("not refused") }
        XCTAssertTrue(background.message.contains("runs only in the foreground"), background.message)
        host.run { $0.suspend("org.test.notes") }
        guard case .failure(let suspended) = call("count", .words([])) else { return XCTFail("not refused") }
        XCTAssertTrue(suspended.message.contains("is suspended, and an action never wakes a guest"))
        XCTAssertEqual(actionCalls().count, 1)
    }

    // F2: a broken result is the caller's error, and does not answer the next call.
    func testF2ABrokenResultIsAnError() {
        notes.actionOutcomes["count"] = .broke("returned NULL as its string")
        guard case .failure(let error) = call("count", .words([])) else { return XCTFail("no error") }
        XCTAssertEqual(error.message, "org.test.notes's action count returned NULL as its string")
        notes.actionOutcomes["count"] = .returned(.int32(1))
        XCTAssertEqual(try call("count", .words([]))?.get(), .int32(1))
    }

    // F3: a crash in the action fails the call with it.
    func testF3ACrashFailsTheCall() {
        notes.crashOn = "action count"
        guard case .failure(let error) = call("count", .words([])) else { return XCTFail("no error") }
        XCTAssertEqual(error.message, "org.test.notes crashed in action count: SIGSEGV")
    }

    // F3, B5: a guest that never returns (one the host cannot stop, as in its own process) fails
    // the call at the watchdog's hard limit; its late reply answers nothing more.
    func testF3AGuestThatNeverReturnsFailsTheCallAtTheHardLimit() {
        notes.holdReplies = true
        let box = ResultBox()
        host.run { core in
            core.actions.call(guest: "org.test.notes", action: "count", arguments: .words([])) { box.result = $0 }
        }
        host.advance(by: .milliseconds(1999))
        XCTAssertNil(box.result)
        host.advance(by: .milliseconds(1))
        guard case .failure(let error) = box.result else { return XCTFail("no answer at the hard limit") }
        XCTAssertTrue(error.message.hasPrefix("org.test.notes has not returned from action count within 2 s"))
        box.result = nil
        host.run { _ in for reply in self.notes.heldReplies { reply() } }
        XCTAssertNil(box.result, "answered once")
    }

    // F3, B5: a call queued behind one that never returns (in a guest the host cannot stop, as
    // in its own process) is not blamed for the hang: at its own deadline its caller hears that
    // it never ran, and which call the guest is still in.
    func testF3ACallQueuedBehindAHangIsNotBlamedForIt() {
        notes.holdReplies = true
        notes.unstoppable = true
        let hung = ResultBox()
        let queued = ResultBox()
        host.run { core in
            core.actions.call(guest: "org.test.notes", action: "count", arguments: .words([])) { hung.result = $0 }
        }
        host.advance(by: .milliseconds(500))
        host.run { core in
            core.actions.call(guest: "org.test.notes", action: "level", arguments: .words(["1", "true"])) {
                queued.result = $0
            }
        }
        host.advance(by: .milliseconds(1500))
        guard case .failure(let first) = hung.result else { return XCTFail("no answer for the hung call") }
        XCTAssertTrue(first.message.hasPrefix("org.test.notes has not returned from action count within 2 s"))
        XCTAssertNil(queued.result)
        host.advance(by: .milliseconds(500))
        guard case .failure(let second) = queued.result else { return XCTFail("no answer for the queued call") }
        XCTAssertTrue(
            second.message.hasPrefix(
                "org.test.notes's action level never ran: org.test.notes is still in action count, which has not "
                    + "returned within 2 s"), second.message)
    }

    private final class ResultBox: @unchecked Sendable {
        // Written on the host executor inside `run`, read after it returns.
        var result: Result<ActionValue?, HostCommandError>?
    }
}
