import ApphostModel
import ApphostPolicyTesting
import ApphostVocabulary
import XCTest

@testable import ApphostPolicy

/// The scene requests part on its own (CONTRACT S9, S10, S13, N1): no core, no channel, a manual
/// clock for the time each input carries. The default policy: an activation lasts 5 s once its
/// action is answered; 5 notifications within 60 s.
final class SceneRequestsPartTests: XCTestCase {
    private let a = "org.test.a"
    private let b = "org.test.b"
    private let clock = ManualClock()
    private var requests = SceneRequests(policy: ScenePolicy())
    private let multi = RequestFacts(mayOpenScene: true, stopped: false)
    private let state = Data("s".utf8)

    private func request(_ id: String, _ token: ActivationToken, facts: RequestFacts? = nil) -> [SceneEffect] {
        requests.request(
            id, facts ?? multi, activation: token, from: 7, role: .auxiliary, style: .standard, state: state,
            at: clock.uptime())
    }

    private static let noActivation = SceneEffect.record(
        .requestRefused, scene: 7, name: "standard",
        message: "request_scene without an unspent activation of a user action")

    // CONTRACT S9: a request with the activation of a user action under way opens a scene.
    func testS9RequestWithActivationUnderWayOpensAScene() {
        let token = requests.grant(to: a, at: clock.uptime())
        clock.advance(by: .seconds(60))
        XCTAssertEqual(request(a, token), [.open(role: .auxiliary, state: state, style: .standard, from: 7)])
        XCTAssertEqual(requests.unspent(of: a), 0)
    }

    // CONTRACT S9: an answered action's activation is good for the policy's activation, then no more.
    func testS9ActivationEndsThePolicysActivationAfterTheAnswer() {
        let first = requests.grant(to: a, at: clock.uptime())
        let second = requests.grant(to: a, at: clock.uptime())
        requests.answered(first, of: a, at: clock.uptime())
        requests.answered(second, of: a, at: clock.uptime())
        clock.advance(by: .milliseconds(4_999))
        XCTAssertEqual(request(a, first), [.open(role: .auxiliary, state: state, style: .standard, from: 7)])
        clock.advance(by: .milliseconds(1))
        XCTAssertEqual(request(a, second), [Self.noActivation])
    }

    // CONTRACT S9: a request without an activation, with one already spent, or with another
    // guest's, is refused.
    func testS9RequestWithoutActivationIsRefused() {
        XCTAssertEqual(request(a, 42), [Self.noActivation])
        let token = requests.grant(to: a, at: clock.uptime())
        XCTAssertEqual(request(b, token), [Self.noActivation])
        XCTAssertEqual(request(a, token), [.open(role: .auxiliary, state: state, style: .standard, from: 7)])
        XCTAssertEqual(request(a, token), [Self.noActivation])
    }

    // CONTRACT S9: tokens are unique within the host, over all guests; a guest's activations go
    // when it stops running.
    func testS9TokensAreUniqueAndEndWithTheGuest() {
        let first = requests.grant(to: a, at: clock.uptime())
        let second = requests.grant(to: b, at: clock.uptime())
        XCTAssertNotEqual(first, second)
        requests.ended(a)
        XCTAssertEqual(requests.unspent(of: a), 0)
        XCTAssertEqual(request(a, first), [Self.noActivation])
        XCTAssertEqual(requests.unspent(of: b), 1)
    }

    // CONTRACT S9: a stopped guest's request spends its activation and is refused.
    func testS9StoppedGuestSpendsItsActivationAndIsRefused() {
        let token = requests.grant(to: a, at: clock.uptime())
        let refused = SceneEffect.record(.requestRefused, scene: 7, name: "standard", message: "the guest is suspended")
        XCTAssertEqual(request(a, token, facts: RequestFacts(mayOpenScene: true, stopped: true)), [refused])
        XCTAssertEqual(requests.unspent(of: a), 0)
    }

    // CONTRACT S13: a guest that declares one scene gets no other, and keeps its activation.
    func testS13SingleSceneGuestIsRefusedAndKeepsItsActivation() {
        let token = requests.grant(to: a, at: clock.uptime())
        let refused = SceneEffect.record(
            .requestRefused, scene: 7, name: "standard", message: GuestRecord.singleScene(a))
        XCTAssertEqual(request(a, token, facts: RequestFacts(mayOpenScene: false, stopped: false)), [refused])
        XCTAssertEqual(requests.unspent(of: a), 1)
        XCTAssertEqual(request(a, token), [.open(role: .auxiliary, state: state, style: .standard, from: 7)])
    }

    // CONTRACT S9: a user action has a name of 1 to 256 bytes and a payload of at most 64 KiB.
    func testS9ActionsAreBounded() {
        XCTAssertNoThrow(
            try SceneRequests.check(action: String(repeating: "a", count: 256), payload: Data(count: 65_536)))
        XCTAssertThrowsError(try SceneRequests.check(action: "", payload: Data()))
        XCTAssertThrowsError(try SceneRequests.check(action: String(repeating: "a", count: 257), payload: Data()))
        XCTAssertThrowsError(try SceneRequests.check(action: "open", payload: Data(count: 65_537)))
    }

    // CONTRACT S10: a guest shows one of its sessions; one it lacks is refused.
    func testS10ActivatingASession() {
        XCTAssertEqual(
            requests.activate("s1", of: a, style: .prominent, known: true), [.show(session: "s1", style: .prominent)])
        XCTAssertEqual(
            requests.activate("s2", of: a, style: .automatic, known: false),
            [.record(.requestRefused, session: "s2", name: "automatic", message: "activate: no session s2 of \(a)")])
    }

    // CONTRACT S7: a guest's close_session closes with reason guest; one it lacks is refused.
    func testS7GuestsCloseRequest() {
        XCTAssertEqual(requests.closeRequested("s1", of: a, known: true), [.close(session: "s1", reason: .guest)])
        XCTAssertEqual(
            requests.closeRequested("s2", of: a, known: false),
            [.record(.requestRefused, session: "s2", name: "close", message: "close: no session s2 of \(a)")])
    }

    // CONTRACT N1: at most 5 notifications within any 60 s, per guest.
    func testN1NotificationLimit() {
        let shown = SceneEffect.record(.notification, name: "t", message: "body")
        let refused = SceneEffect.record(.notificationRefused, name: "t", message: "more than 5 within 60 s")
        for _ in 0..<5 {
            XCTAssertEqual(requests.notification(from: a, title: "t", body: "body", at: clock.uptime()), [shown])
            clock.advance(by: .seconds(1))
        }
        XCTAssertEqual(requests.notification(from: a, title: "t", body: "body", at: clock.uptime()), [refused])
        XCTAssertEqual(
            requests.notification(from: b, title: "t", body: "", at: clock.uptime()),
            [.record(.notification, name: "t", message: nil)])
        XCTAssertEqual(requests.notificationLimit, .notificationLimit(count: 5, window: .seconds(60)))
        // The first one leaves the window 60 s after it was posted.
        clock.advance(by: .seconds(55))
        XCTAssertEqual(requests.notification(from: a, title: "t", body: "body", at: clock.uptime()), [shown])
        XCTAssertEqual(requests.notification(from: a, title: "t", body: "body", at: clock.uptime()), [refused])
    }

    // CONTRACT S9, S13: a request the host refuses is recorded and, with its runtime's id, goes
    // back to the guest with the reason: no activation (S9), one scene only (S13), suspended.
    func testS9RefusalGoesBackToTheGuestWithItsIDAndReason() {
        func refused(_ facts: RequestFacts, _ token: ActivationToken, _ id: SceneRequestID) -> [SceneEffect] {
            requests.request(
                a, facts, activation: token, from: 7, role: .auxiliary, style: .standard, state: state, request: id,
                at: clock.uptime())
        }
        XCTAssertEqual(
            refused(multi, 42, 3), [Self.noActivation, .deliver(.sceneRequestRefused(3, reason: .noActivation))])
        let single = RequestFacts(mayOpenScene: false, stopped: false)
        XCTAssertEqual(
            refused(single, requests.grant(to: a, at: clock.uptime()), 4),
            [
                .record(
                    .requestRefused, scene: 7, name: "standard", message: GuestRecord.singleScene(a)),
                .deliver(.sceneRequestRefused(4, reason: .notDeclared)),
            ])
        // A request the host opens is not refused: nothing goes back.
        XCTAssertEqual(
            refused(multi, requests.grant(to: a, at: clock.uptime()), 5),
            [.open(role: .auxiliary, state: state, style: .standard, from: 7)])
    }

    // CONTRACT S9: a stopped guest hears its refusals once it runs again, in order, once; those
    // of a guest that stopped running go with it.
    func testS9RefusalWaitsForAStoppedGuest() {
        let stopped = RequestFacts(mayOpenScene: true, stopped: true)
        let effects = requests.request(
            a, stopped, activation: requests.grant(to: a, at: clock.uptime()), from: 7, role: .auxiliary,
            style: .standard, state: state, request: 8, at: clock.uptime())
        XCTAssertEqual(
            effects, [.record(.requestRefused, scene: 7, name: "standard", message: "the guest is suspended")])
        _ = requests.request(
            a, stopped, activation: 42, from: 7, role: .auxiliary, style: .standard, state: state, request: 9,
            at: clock.uptime())
        XCTAssertEqual(
            requests.releaseHeld(a),
            [
                .deliver(.sceneRequestRefused(8, reason: .suspended)),
                .deliver(.sceneRequestRefused(9, reason: .noActivation)),
            ])
        XCTAssertEqual(requests.releaseHeld(a), [])
        _ = requests.request(
            a, stopped, activation: 42, from: 7, role: .auxiliary, style: .standard, state: state, request: 10,
            at: clock.uptime())
        requests.ended(a)
        XCTAssertEqual(requests.releaseHeld(a), [])
    }

    // CONTRACT S9: a stopped guest's refusals are bounded: the oldest go first.
    func testS9HeldRefusalsAreBounded() {
        let stopped = RequestFacts(mayOpenScene: true, stopped: true)
        for id in 1...(SceneRequests.heldRefusalsMax + 2) {
            _ = requests.request(
                a, stopped, activation: 42, from: 7, role: .auxiliary, style: .standard, state: state,
                request: SceneRequestID(id), at: clock.uptime())
        }
        let held = requests.releaseHeld(a)
        XCTAssertEqual(held.count, SceneRequests.heldRefusalsMax)
        XCTAssertEqual(held.first, .deliver(.sceneRequestRefused(3, reason: .noActivation)))
    }

    // MARK: The guest's reports and the operator's actions, with the guest's facts

    private func facts(
        _ phase: GuestPhase = .running, stopped: Bool = false, state: SceneState = .foregroundActive
    ) -> GuestSceneFacts {
        GuestSceneFacts(
            id: a, phase: phase, stopped: stopped, mayOpenScene: true,
            scenes: [SceneRecord(sessionID: "s1", role: .primary, handle: 7, state: state)])
    }

    // CONTRACT S9: the operator's action on a scene a user sees grants an activation and is
    // delivered with its token; a scene not shown, or a stopped guest's, is refused.
    func testS9ActingOnAScene() throws {
        XCTAssertThrowsError(
            try requests.act("go", payload: Data(), on: 0, of: facts(state: .background), named: "s1", at: .zero)
        ) {
            XCTAssertEqual(
                ($0 as? HostCommandError)?.description, "scene s1 is not shown: a user acts only on what they see")
        }
        XCTAssertThrowsError(
            try requests.act("go", payload: Data(), on: 0, of: facts(stopped: true), named: "s1", at: .zero))
        XCTAssertEqual(requests.unspent(of: a), 0, "a refused action grants nothing")
        let (call, token) = try requests.act("go", payload: Data("p".utf8), on: 0, of: facts(), named: "s1", at: .zero)
        XCTAssertEqual(
            call, .performAction(7, name: "go", payload: Data("p".utf8), activation: .seconds(5), token: token))
        XCTAssertEqual(requests.unspent(of: a), 1)
    }

    // CONTRACT S9, S10, S7, N1: a guest's reports go to the request, activation, close or
    // notification they are; only a running guest's requests count, its notifications always.
    func testS9S10S7N1ReportsOfAGuest() {
        let token = requests.grant(to: a, at: clock.uptime())
        let asked = GuestEvent.sceneRequested(
            activation: token, from: 7, role: .auxiliary, style: .standard, state: state, request: 0)
        XCTAssertEqual(requests.report(asked, from: facts(.launching), at: clock.uptime()), [])
        XCTAssertEqual(
            requests.report(asked, from: facts(), at: clock.uptime()),
            [.open(role: .auxiliary, state: state, style: .standard, from: 7)])
        XCTAssertEqual(
            requests.report(
                .sessionActivationRequested(sessionID: "s1", style: .prominent), from: facts(), at: clock.uptime()),
            [.show(session: "s1", style: .prominent)])
        XCTAssertEqual(
            requests.report(.sessionCloseRequested(sessionID: "s2"), from: facts(), at: clock.uptime()),
            [.record(.requestRefused, session: "s2", name: "close", message: "close: no session s2 of \(a)")])
        XCTAssertEqual(
            requests.report(.notificationPosted(title: "t", body: ""), from: facts(.launching), at: clock.uptime()),
            [.record(.notification, name: "t")])
        XCTAssertEqual(requests.report(.loadingProgress(7, .indeterminate), from: facts(), at: clock.uptime()), [])
    }

    // CONTRACT S9, S10: a session opened for a request is recorded with it, then shown beside
    // the scene it came from.
    func testS9OpenedSessionIsRecordedThenShown() {
        XCTAssertEqual(
            SceneRequests.opened("n1", role: .auxiliary, style: .automatic, from: 7),
            [
                .record(.sceneRequested, scene: 7, session: "n1", name: "automatic", message: "new auxiliary scene"),
                .show(session: "n1", style: .automatic, beside: 7),
            ])
    }
}

/// Closing a session on its own (CONTRACT S7): what a close says, in order, and the sessions a
/// guest hears of later.
final class SessionClosingTests: XCTestCase {
    private let a = "org.test.a"
    private var closing = SessionClosing()

    private func facts(handle: SceneHandle? = 3, phase: GuestPhase = .running, stopped: Bool = false) -> CloseFacts {
        CloseFacts(known: true, handle: handle, phase: phase, stopped: stopped, changingSuspension: false)
    }

    // CONTRACT S7: a running guest's scene leaves the layout, disconnects, goes, and is
    // discarded; the guest hears did-discard at once.
    func testS7ClosingARunningGuestsScene() throws {
        let effects = try closing.close("s1", of: a, facts(), reason: .requested).get()
        XCTAssertEqual(
            effects,
            [
                .hide(session: "s1", reason: .requested),
                .disconnect(session: "s1", handle: 3, reason: .requested, held: false),
                .remove(session: "s1"), .discard(session: "s1", reason: .requested, announce: true),
            ])
        XCTAssertEqual(closing.pending(of: a), [])
    }

    // CONTRACT S7, B7: a suspended guest's scene disconnects on resume, and the guest hears
    // did-discard then; an unattached scene of a guest not running has nothing to disconnect.
    func testS7ClosingAStoppedGuestsSceneWaitsForIt() throws {
        let suspended = try closing.close("s1", of: a, facts(stopped: true), reason: .requested).get()
        XCTAssertEqual(
            suspended,
            [
                .disconnect(session: "s1", handle: 3, reason: .requested, held: true), .remove(session: "s1"),
                .discard(session: "s1", reason: .requested, announce: false),
            ])
        let gone = try closing.close("s2", of: a, facts(handle: nil, phase: .notRunning), reason: .requested).get()
        XCTAssertEqual(gone, [.remove(session: "s2"), .discard(session: "s2", reason: .requested, announce: false)])
        XCTAssertEqual(closing.pending(of: a), ["s1", "s2"])
        closing.announcing("s1", of: a)
        XCTAssertEqual(closing.pending(of: a), ["s2"])
    }

    // CONTRACT S7: an unknown session, or a guest launching, terminating or changing its
    // suspension, is refused and nothing is closed.
    func testS7RefusedCloses() {
        XCTAssertThrowsError(
            try closing.close(
                "s9", of: a,
                CloseFacts(known: false, handle: nil, phase: .running, stopped: false, changingSuspension: false),
                reason: .requested
            ).get())
        XCTAssertThrowsError(try closing.close("s1", of: a, facts(phase: .launching), reason: .requested).get())
        XCTAssertThrowsError(try closing.close("s1", of: a, facts(phase: .terminating), reason: .requested).get())
        XCTAssertThrowsError(
            try closing.close(
                "s1", of: a,
                CloseFacts(known: true, handle: 3, phase: .running, stopped: true, changingSuspension: true),
                reason: .requested
            ).get())
        XCTAssertEqual(closing.pending(of: a), [])
    }
}
