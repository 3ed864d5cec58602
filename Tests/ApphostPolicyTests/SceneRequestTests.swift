import ApphostModel
import ApphostPolicy
import ApphostPolicyTesting
import ApphostVocabulary
import Foundation
import XCTest

/// What guests ask of their scenes: requests and user actions (S9, S10), closing (S7), loading
/// progress (N2), modals (N3) and notifications (N1).
final class SceneRequestTests: XCTestCase {
    // CONTRACT S9: a user action grants one activation, as a token: a request spends it while
    // the action is handled, or presenting its token within the activation time after; a token
    // spent, run out, never handed out or another guest's opens nothing.
    func testARequestSpendsAUserActionsActivation() throws {
        let host = CoreHarness(scenes: ScenePolicy(activation: .seconds(5)))
        let (a, b) = try launchTwo(host)
        let guest = try XCTUnwrap(host.opener.guests["org.test.a"])
        let other = try XCTUnwrap(host.opener.guests["org.test.b"])
        func request(_ activation: ActivationToken) {
            host.run { _ in
                guest.emit(
                    .sceneRequested(
                        activation: activation, from: 1, role: .auxiliary, style: .standard, state: Data("n".utf8),
                        request: 1))
            }
        }
        func scenes() -> Int { host.guest("org.test.a")?.scenes.count ?? 0 }
        request(1)
        XCTAssertEqual(host.events.of(.requestRefused).count, 1, "no action yet")
        XCTAssertEqual(scenes(), 1)

        // During the action.
        guest.holdReplies = true
        host.run { core in core.scenes.performAction(scene: a, action: "open", payload: Data()) }
        let during = guest.lastActivation
        request(during)
        XCTAssertEqual(scenes(), 2)
        request(during)
        XCTAssertEqual(host.events.of(.requestRefused).count, 2, "spent")
        guest.holdReplies = false
        host.run { _ in guest.heldReplies.forEach { $0() } }

        // After the action, within the activation time, then past it.
        host.run { core in core.scenes.performAction(scene: a, action: "open", payload: Data()) }
        let later = guest.lastActivation
        host.advance(by: .seconds(4))
        request(later)
        XCTAssertEqual(scenes(), 3)
        host.run { core in core.scenes.performAction(scene: a, action: "open", payload: Data()) }
        let late = guest.lastActivation
        host.advance(by: .seconds(6))
        request(late)
        XCTAssertEqual(scenes(), 3)
        XCTAssertEqual(host.events.of(.requestRefused).count, 3, "run out")

        // Two actions, two tokens: a newer action does not take the older one's away.
        host.run { core in
            core.scenes.performAction(scene: a, action: "first", payload: Data())
        }
        let first = guest.lastActivation
        host.run { core in core.scenes.performAction(scene: a, action: "second", payload: Data()) }
        let second = guest.lastActivation
        XCTAssertNotEqual(first, second)
        request(second)
        request(first)
        XCTAssertEqual(scenes(), 5)

        // Another guest's token is no activation of this one's.
        host.run { core in core.scenes.changeLayout(.fullScreen(b)) }
        host.run { core in core.scenes.performAction(scene: b, action: "open", payload: Data()) }
        request(other.lastActivation)
        XCTAssertEqual(scenes(), 5)
        XCTAssertEqual(host.events.of(.requestRefused).count, 4)

        // The new session starts with the state the request gave (S12).
        let connect = try XCTUnwrap(
            host.calls.calls.last { $0.message.call.callbackName == "will_connect" && $0.guest == "org.test.a" })
        guard case .sceneWillConnect(let connection) = connect.message.call else { return XCTFail() }
        XCTAssertEqual(connection.restorationData, Data("n".utf8))
        XCTAssertEqual(connection.role, .auxiliary)
    }

    // CONTRACT S7: a guest closes its own session (close_session, ABI 1.2) as the operator
    // would: the scene goes, did-disconnect then did-discard, with reason guest; a session it
    // does not have is refused.
    func testAGuestClosesItsOwnSession() throws {
        let host = CoreHarness()
        _ = try launchTwo(host)
        let guest = try XCTUnwrap(host.opener.guests["org.test.a"])
        host.run { $0.scenes.openScene("org.test.a") }
        let sessions = try XCTUnwrap(host.guest("org.test.a")?.scenes.map(\.session))
        let before = host.calls.names("org.test.a").count
        host.run { _ in guest.emit(.sessionCloseRequested(sessionID: sessions[1])) }
        XCTAssertEqual(host.guest("org.test.a")?.scenes.map(\.session), [sessions[0]])
        XCTAssertEqual(host.events.of(.sceneClosed).map(\.reason), [.guest])
        XCTAssertEqual(
            Array(host.calls.names("org.test.a").dropFirst(before)).suffix(2),
            ["org.test.a:did_disconnect@3", "org.test.a:did_discard#" + sessions[1].prefix(8)])
        host.run { _ in guest.emit(.sessionCloseRequested(sessionID: "nope")) }
        XCTAssertEqual(host.events.of(.requestRefused).last?.message, "close: no session nope of org.test.a")
    }

    // CONTRACT S13: a guest that does not declare several scenes gets no second one, even with
    // a user action's activation: the host refuses it on its own account, with the reason.
    func testASingleSceneGuestGetsNoSecondScene() throws {
        let host = CoreHarness()
        let guest = host.opener.add("org.test.one", capabilities: [])
        host.run { $0.launch(path: "org.test.one", foreground: true) }
        let scene = try XCTUnwrap(host.guest("org.test.one")?.scenes.first?.session)
        guest.holdReplies = true
        host.run { core in core.scenes.performAction(scene: scene, action: "open", payload: Data()) }
        host.run { _ in
            guest.emit(
                .sceneRequested(
                    activation: guest.lastActivation, from: 1, role: .auxiliary, style: .standard, state: Data(),
                    request: 1))
        }
        XCTAssertEqual(host.guest("org.test.one")?.scenes.count, 1)
        XCTAssertEqual(
            host.events.of(.requestRefused).map(\.message),
            ["org.test.one has one scene: it does not declare APPHOST_CAPABILITY_MULTIPLE_SCENES"])
    }

    // CONTRACT S9, S13: the guest hears the host's refusal of its request, with the id its
    // runtime gave it and the reason, beside the request-refused record.
    func testARefusedRequestIsDeliveredToTheGuest() throws {
        let host = CoreHarness()
        let (_, _) = try launchTwo(host)
        let guest = try XCTUnwrap(host.opener.guests["org.test.a"])
        host.run { _ in
            guest.emit(
                .sceneRequested(
                    activation: 99, from: 1, role: .auxiliary, style: .standard, state: Data(), request: 5))
        }
        XCTAssertEqual(host.events.of(.requestRefused).count, 1)
        let refusal = try XCTUnwrap(host.calls.calls.last { $0.guest == "org.test.a" })
        XCTAssertEqual(refusal.message.call, .sceneRequestRefused(5, reason: .noActivation))

        let single = CoreHarness()
        let one = single.opener.add("org.test.one", capabilities: [])
        single.run { $0.launch(path: "org.test.one", foreground: true) }
        let scene = try XCTUnwrap(single.guest("org.test.one")?.scenes.first?.session)
        single.run { core in core.scenes.performAction(scene: scene, action: "open", payload: Data()) }
        single.run { _ in
            one.emit(
                .sceneRequested(
                    activation: one.lastActivation, from: 1, role: .auxiliary, style: .standard, state: Data(),
                    request: 6))
        }
        XCTAssertEqual(
            single.calls.calls.last { $0.guest == "org.test.one" }?.message.call,
            .sceneRequestRefused(6, reason: .notDeclared))
    }

    // CONTRACT S9, B7: a request that reaches the host after its guest was stopped (sent just
    // before the freeze) is refused, and the guest hears the refusal when it runs again, not
    // while it is stopped.
    func testARequestRefusedWhileStoppedIsDeliveredOnResume() throws {
        let host = CoreHarness()
        let (a, _) = try launchTwo(host)
        let guest = try XCTUnwrap(host.opener.guests["org.test.a"])
        host.run { core in core.scenes.performAction(scene: a, action: "open", payload: Data()) }
        host.run { $0.suspend("org.test.a") }
        XCTAssertEqual(host.guest("org.test.a")?.appState, .suspended)
        host.run { _ in
            guest.emit(
                .sceneRequested(
                    activation: guest.lastActivation, from: 1, role: .auxiliary, style: .standard, state: Data(),
                    request: 7))
        }
        XCTAssertEqual(host.events.of(.requestRefused).count, 1)
        let refusal = GuestCall.sceneRequestRefused(7, reason: .suspended)
        XCTAssertFalse(host.calls.calls.contains { $0.message.call == refusal }, "B7: nothing while stopped")
        host.run { $0.resume("org.test.a") }
        XCTAssertEqual(host.calls.calls.filter { $0.message.call == refusal }.map(\.guest), ["org.test.a"])
    }

    // CONTRACT S9: the activation lasts as long as the policy says, from the action's answer.
    func testTheActivationCarriesThePolicysDuration() throws {
        let host = CoreHarness(scenes: ScenePolicy(activation: .milliseconds(300)))
        let (a, _) = try launchTwo(host)
        host.run { core in core.scenes.performAction(scene: a, action: "open", payload: Data("x".utf8)) }
        let action = try XCTUnwrap(host.calls.calls.last)
        XCTAssertEqual(
            action.message.call,
            .performAction(1, name: "open", payload: Data("x".utf8), activation: .milliseconds(300), token: 1))
        XCTAssertEqual(action.message.sceneState, .foregroundActive)
    }

    // CONTRACT S9: an action is for a scene the user sees.
    func testAnActionOnAHiddenSceneIsRefused() throws {
        let host = CoreHarness()
        let (_, b) = try launchTwo(host)
        let result = ResultBox<Void>()
        host.run { core in core.scenes.performAction(scene: b, action: "open", payload: Data()) { result.value = $0 } }
        XCTAssertThrowsError(try result.value?.get())
    }

    // CONTRACT S10: a standard request opens beside the requesting scene; a prominent one goes
    // above everything, the others only resign active (S4), and closing it makes them active
    // again with no trip to background.
    func testStandardOpensBesideAndProminentCoversUntilClosed() throws {
        let host = CoreHarness()
        let (a, _) = try launchTwo(host)
        let guest = try XCTUnwrap(host.opener.guests["org.test.a"])
        host.run { core in
            core.scenes.performAction(scene: a, action: "open", payload: Data())
            guest.emit(
                .sceneRequested(
                    activation: guest.lastActivation, from: 1, role: .auxiliary, style: .standard, state: Data(),
                    request: 1))
        }
        let scenes = try XCTUnwrap(host.guest("org.test.a")?.scenes)
        XCTAssertEqual(scenes.map(\.placement), ["split left", "split right"])
        XCTAssertEqual(scenes.map(\.state), [.foregroundActive, .foregroundActive])

        host.run { core in
            core.scenes.performAction(scene: a, action: "open", payload: Data())
            guest.emit(
                .sceneRequested(
                    activation: guest.lastActivation, from: 1, role: .auxiliary, style: .prominent, state: Data(),
                    request: 1))
        }
        let before = host.calls.names("org.test.a").count
        XCTAssertEqual(
            host.guest("org.test.a")?.scenes.map(\.state),
            [.foregroundInactive, .foregroundInactive, .foregroundActive])
        let prominent = try XCTUnwrap(host.guest("org.test.a")?.scenes.last?.session)
        host.run { core in core.scenes.closeScene(prominent) }
        XCTAssertEqual(host.guest("org.test.a")?.scenes.map(\.state), [.foregroundActive, .foregroundActive])
        let after = Array(host.calls.names("org.test.a").dropFirst(before))
        XCTAssertEqual(
            after,
            [
                "org.test.a:will_resign_active@4", "org.test.a:did_enter_background@4",
                "org.test.a:did_become_active@1",
                "org.test.a:did_become_active@3", "org.test.a:did_disconnect@4",
                "org.test.a:did_discard#" + prominent.prefix(8),
            ])
    }

    // CONTRACT S10: automatic opens beside on a display wide enough for two regular halves, and
    // full screen on a narrow one.
    func testAutomaticChoosesByTheDisplaysWidth() throws {
        for (width, placements) in [(1920 as UInt32, ["split left", "split right"]), (1024, [nil, "full screen"])] {
            let host = CoreHarness(scenes: ScenePolicy(displayWidth: width, displayHeight: 768))
            let (a, _) = try launchTwo(host)
            let guest = try XCTUnwrap(host.opener.guests["org.test.a"])
            host.run { core in
                core.scenes.performAction(scene: a, action: "open", payload: Data())
                guest.emit(
                    .sceneRequested(
                        activation: guest.lastActivation, from: 1, role: .primary, style: .automatic, state: Data(),
                        request: 1))
            }
            XCTAssertEqual(host.guest("org.test.a")?.scenes.map(\.placement), placements, "display \(width)")
        }
    }

    // CONTRACT S9: activating an existing session needs no activation; an unknown one is refused.
    func testActivatingASessionNeedsNoActivation() throws {
        let host = CoreHarness()
        _ = try launchTwo(host)
        host.run { $0.scenes.openScene("org.test.a") }
        let first = try XCTUnwrap(host.guest("org.test.a")?.scenes.first?.session)
        let guest = try XCTUnwrap(host.opener.guests["org.test.a"])
        host.run { _ in guest.emit(.sessionActivationRequested(sessionID: first, style: .standard)) }
        XCTAssertEqual(host.guest("org.test.a")?.scenes.first?.state, .foregroundActive)
        host.run { _ in guest.emit(.sessionActivationRequested(sessionID: "nope", style: .standard)) }
        XCTAssertEqual(host.events.of(.requestRefused).count, 1)
    }

    // CONTRACT S7, S12: closing discards the session and its saved state; a guest not running
    // hears did-discard at its next launch, after did_finish_launching and before any scene.
    func testClosingASceneOfAGuestNotRunningIsAnnouncedAtItsNextLaunch() throws {
        let store = MemoryStore()
        let host = CoreHarness(store: store)
        _ = try launchTwo(host)
        host.run { $0.scenes.openScene("org.test.a") }
        let closed = try XCTUnwrap(host.guest("org.test.a")?.scenes.first?.session)
        host.opener.guests["org.test.a"]?.emit(.saveSceneState(1, Data("gone".utf8)))
        host.run { $0.terminate("org.test.a") }
        host.run { $0.scenes.closeScene(closed) }
        XCTAssertEqual(try store.sessions(of: "org.test.a").map(\.sessionID).contains(closed), false)
        XCTAssertEqual(try store.discardedSessions(of: "org.test.a"), [closed])

        let next = CoreHarness(store: store)
        _ = next.opener.add("org.test.a")
        next.run { $0.launch(path: "org.test.a", foreground: true) }
        XCTAssertEqual(
            Array(next.calls.names("org.test.a").prefix(3)),
            [
                "org.test.a:did_finish_launching", "org.test.a:did_discard#" + closed.prefix(8),
                "org.test.a:will_connect@1",
            ])
        XCTAssertEqual(next.guest("org.test.a")?.scenes.count, 1)
        XCTAssertEqual(try store.discardedSessions(of: "org.test.a"), [], "forgotten once told")
    }

    // CONTRACT S7, B7: a suspended guest hears did-disconnect and did-discard when it resumes.
    func testClosingASceneOfASuspendedGuestIsAnnouncedOnResume() throws {
        let host = CoreHarness()
        _ = try launchTwo(host)
        host.advance(by: .seconds(2))
        XCTAssertEqual(host.guest("org.test.b")?.appState, .suspended)
        let session = try XCTUnwrap(host.guest("org.test.b")?.scenes.first?.session)
        let before = host.calls.names("org.test.b").count
        host.run { $0.scenes.closeScene(session) }
        XCTAssertEqual(host.calls.names("org.test.b").count, before)
        host.run { $0.resume("org.test.b") }
        XCTAssertEqual(
            Array(host.calls.names("org.test.b").dropFirst(before)),
            ["org.test.b:did_disconnect@2", "org.test.b:did_discard#" + session.prefix(8)])
    }

    // CONTRACT N2: progress is shown in the status; the event stream hears each visible step.
    func testLoadingProgress() throws {
        let host = CoreHarness()
        _ = try launchTwo(host)
        let guest = try XCTUnwrap(host.opener.guests["org.test.a"])
        host.run { _ in
            for value in [0.1, 0.101, 0.5] { guest.emit(.loadingProgress(1, .fraction(value))) }
            guest.emit(.loadingProgress(1, .indeterminate))
        }
        XCTAssertEqual(host.guest("org.test.a")?.scenes.first?.loading, .indeterminate)
        XCTAssertEqual(host.events.of(.loading).compactMap(\.message), ["10%", "50%", "indeterminate"])
        host.run { _ in guest.emit(.loadingProgress(1, LoadingProgress.none)) }
        XCTAssertEqual(host.guest("org.test.a")?.scenes.first?.loading, LoadingProgress.none)
    }

    // set_scene_title (ABI 1.3): a scene's title is shown while it is connected; an empty one takes
    // it away, and so does the scene's disconnection, as its loading progress and modals go.
    func testSceneTitlesLastWhileTheSceneIsConnected() throws {
        let host = CoreHarness()
        _ = try launchTwo(host)
        let guest = try XCTUnwrap(host.opener.guests["org.test.a"])
        host.run { _ in guest.emit(.sceneTitleChanged(1, title: "Inbox")) }
        XCTAssertEqual(host.guest("org.test.a")?.scenes.first?.title, "Inbox")
        host.run { _ in guest.emit(.sceneTitleChanged(1, title: "")) }
        XCTAssertNil(host.guest("org.test.a")?.scenes.first?.title)
        XCTAssertEqual(host.events.of(.sceneTitle).map(\.name), ["Inbox", nil])
        host.run { _ in guest.emit(.sceneTitleChanged(99, title: "Nowhere")) }
        XCTAssertEqual(host.events.of(.sceneTitle).count, 2, "a scene the guest does not have is ignored")

        host.run { _ in guest.emit(.sceneTitleChanged(1, title: "Drafts")) }
        host.run { $0.terminate("org.test.a") }
        XCTAssertEqual(host.guest("org.test.a")?.scenes.first?.state, .unattached)
        XCTAssertNil(host.guest("org.test.a")?.scenes.first?.title)
    }

    // CONTRACT N3: the user's dismissal asks the guest; it may keep the modal (unsaved changes),
    // else the modal and those above it go and the guest is told. The guest's own dismissal
    // needs no asking.
    func testModalsAreDismissedOnlyWhenTheGuestLetsThemGo() throws {
        let host = CoreHarness()
        let (a, _) = try launchTwo(host)
        let guest = try XCTUnwrap(host.opener.guests["org.test.a"])
        host.run { _ in
            guest.emit(.modalPresented(1, 1, style: .sheet, title: "Edit"))
            guest.emit(.modalPresented(1, 2, style: .fullScreen, title: "Confirm"))
        }
        XCTAssertEqual(host.guest("org.test.a")?.scenes.first?.modals.map(\.title), ["Edit", "Confirm"])

        guest.keepsModals = true
        let kept = ResultBox<Bool>()
        host.run { core in core.scenes.dismissModal(scene: a) { kept.value = $0 } }
        XCTAssertEqual(try kept.value?.get(), false)
        XCTAssertEqual(host.events.of(.modalKept).count, 1)
        XCTAssertEqual(host.guest("org.test.a")?.scenes.first?.modals.count, 2)

        guest.keepsModals = false
        host.run { core in core.scenes.dismissModal(scene: a) }
        XCTAssertEqual(host.guest("org.test.a")?.scenes.first?.modals.map(\.title), ["Edit"])
        XCTAssertEqual(
            host.calls.names("org.test.a").suffix(3),
            [
                "org.test.a:should_dismiss_modal@1", "org.test.a:should_dismiss_modal@1",
                "org.test.a:did_dismiss_modal@1",
            ])

        host.run { _ in
            guest.emit(.modalPresented(1, 3, style: .sheet, title: "Above"))
            guest.emit(.modalDismissed(1, 1))
        }
        XCTAssertEqual(host.guest("org.test.a")?.scenes.first?.modals.count, 0, "with those above it")
        let none = ResultBox<Bool>()
        host.run { core in core.scenes.dismissModal(scene: a) { none.value = $0 } }
        XCTAssertThrowsError(try none.value?.get())
    }

    // CONTRACT N1: notifications reach the event stream, at most the limit within the window;
    // the rest are refused and reported.
    func testNotificationsAreRateLimited() throws {
        let host = CoreHarness(scenes: ScenePolicy(notificationLimit: 2, notificationWindow: .seconds(10)))
        _ = try launchTwo(host)
        let guest = try XCTUnwrap(host.opener.guests["org.test.a"])
        host.run { _ in for index in 1...3 { guest.emit(.notificationPosted(title: "t\(index)", body: "b")) } }
        XCTAssertEqual(host.events.of(.notification).compactMap(\.name), ["t1", "t2"])
        XCTAssertEqual(host.events.of(.notificationRefused).compactMap(\.name), ["t3"])
        host.advance(by: .seconds(10))
        host.run { _ in guest.emit(.notificationPosted(title: "t4", body: "")) }
        XCTAssertEqual(host.events.of(.notification).compactMap(\.name), ["t1", "t2", "t4"])
    }
}
