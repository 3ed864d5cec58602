import ApphostModel
import ApphostPolicy
import ApphostPolicyTesting
import ApphostVocabulary
import Foundation
import XCTest

/// Layouts on the virtual display and the sizes guests learn from them: CONTRACT S11, S4, S10.
final class SceneLayoutTests: XCTestCase {
    // CONTRACT S11, S2: a scene shown full screen learns the display's size after will-connect
    // and before will-enter-foreground; one connected into background learns nothing.
    func testAShownSceneLearnsItsSizeBeforeEnteringTheForeground() throws {
        let host = CoreHarness(scenes: ScenePolicy(displayWidth: 1280, displayHeight: 800))
        _ = host.opener.add("org.test.a")
        _ = host.opener.add("org.test.b")
        host.run { $0.launch(path: "org.test.a", foreground: true) }
        XCTAssertEqual(
            host.calls.messages.filter { $0.message.call.runsGuestCode }.map(\.description),
            [
                "org.test.a:did_finish_launching", "org.test.a:will_connect@1",
                "org.test.a:did_change_size@1=1280x800/regular", "org.test.a:will_enter_foreground@1",
                "org.test.a:did_become_active@1",
            ])
        host.run { $0.launch(path: "org.test.b", foreground: false) }
        XCTAssertEqual(host.calls.sizeNames("org.test.b"), [])
        XCTAssertEqual(
            host.guest("org.test.a")?.scenes.first?.size, SceneSize(width: 1280, height: 800, sizeClass: .regular))
        XCTAssertEqual(host.guest("org.test.a")?.scenes.first?.placement, "full screen")
    }

    // CONTRACT S11: split view shows two guests side by side, both active, each learning its
    // half; moving the divider changes sizes and size classes only, with no state callback.
    func testSplitViewSizesAndRatio() throws {
        let host = CoreHarness()
        let (a, b) = try launchTwo(host)
        let before = host.calls.calls.count
        host.run { $0.scenes.changeLayout(.split(a, b, ratio: 0.5)) }
        XCTAssertEqual(host.guest("org.test.a")?.scenes.map(\.state), [.foregroundActive])
        XCTAssertEqual(host.guest("org.test.b")?.scenes.map(\.state), [.foregroundActive])
        XCTAssertEqual(host.guest("org.test.a")?.appState, .active)
        XCTAssertEqual(
            host.calls.sizeNames().suffix(2),
            ["org.test.a:did_change_size@1=960x1080/regular", "org.test.b:did_change_size@2=960x1080/regular"])

        let callsBefore = host.calls.calls.count
        host.run { $0.scenes.changeLayout(.ratio(0.3)) }
        XCTAssertEqual(
            host.calls.sizeNames().suffix(2),
            ["org.test.a:did_change_size@1=576x1080/compact", "org.test.b:did_change_size@2=1344x1080/regular"])
        XCTAssertEqual(host.calls.calls.count, callsBefore, "a new ratio is only a new size")
        XCTAssertGreaterThan(callsBefore, before)
        XCTAssertEqual(host.status().layout.main, .split(ref(host, "org.test.a"), ref(host, "org.test.b"), ratio: 0.3))

        let refused = ResultBox<Void>()
        host.run { $0.scenes.changeLayout(.ratio(0.95)) { refused.value = $0 } }
        XCTAssertThrowsError(try refused.value?.get())
    }

    // CONTRACT S11, S3: slide over stacks; only the top scene is shown, the one under it goes to
    // background; hiding the stack sends the top one there too.
    func testSlideOverStacksAndOnlyTheTopIsShown() throws {
        let host = CoreHarness()
        _ = host.opener.add("org.test.c")
        let (a, b) = try launchTwo(host)
        host.run { $0.launch(path: "org.test.c", foreground: false) }
        let c = try XCTUnwrap(host.guest("org.test.c")?.scenes.first?.session)
        host.run { $0.scenes.changeLayout(.fullScreen(a)) }
        host.run { $0.scenes.changeLayout(.slideOver(b)) }
        XCTAssertEqual(host.guest("org.test.b")?.scenes.first?.state, .foregroundActive)
        XCTAssertEqual(
            host.guest("org.test.b")?.scenes.first?.size, SceneSize(width: 320, height: 1080, sizeClass: .compact))
        host.run { $0.scenes.changeLayout(.slideOver(c)) }
        XCTAssertEqual(host.guest("org.test.b")?.scenes.first?.state, .background, "under the top one")
        XCTAssertEqual(host.guest("org.test.b")?.scenes.first?.placement, "slide over (hidden)")
        XCTAssertEqual(host.guest("org.test.c")?.scenes.first?.state, .foregroundActive)
        XCTAssertEqual(host.guest("org.test.a")?.scenes.first?.state, .foregroundActive)
        host.run { $0.scenes.changeLayout(.hideSlideOver) }
        XCTAssertEqual(host.guest("org.test.c")?.scenes.first?.state, .background)
        XCTAssertEqual(host.guest("org.test.a")?.scenes.first?.state, .foregroundActive)
    }

    // CONTRACT S11, A1: picture in picture stays up on the home screen, so its guest stays active
    // while everything else goes to background.
    func testPictureInPictureSurvivesHome() throws {
        let host = CoreHarness()
        let (a, b) = try launchTwo(host)
        host.run { $0.scenes.changeLayout(.fullScreen(a)) }
        host.run { $0.scenes.changeLayout(.pictureInPicture(b)) }
        XCTAssertEqual(
            host.guest("org.test.b")?.scenes.first?.size, SceneSize(width: 480, height: 270, sizeClass: .compact))
        host.run { $0.scenes.home() }
        XCTAssertEqual(host.guest("org.test.a")?.appState, .background)
        XCTAssertEqual(host.guest("org.test.b")?.appState, .active)
        XCTAssertEqual(host.guest("org.test.b")?.scenes.first?.placement, "picture in picture")
    }

    // CONTRACT S11: a scene of a suspended guest is resumed before it is shown.
    func testShowingASceneOfASuspendedGuestResumesIt() throws {
        let host = CoreHarness()
        let (a, b) = try launchTwo(host)
        host.run { $0.scenes.changeLayout(.fullScreen(a)) }
        host.advance(by: .seconds(2))
        XCTAssertEqual(host.guest("org.test.b")?.appState, .suspended)
        host.run { $0.scenes.changeLayout(.split(a, b, ratio: 0.5)) }
        XCTAssertEqual(host.guest("org.test.b")?.appState, .active)
        XCTAssertEqual(host.opener.guests["org.test.b"]?.resumptions, 1)
    }

    // CONTRACT S4, S10: an alert over a prominent scene: dismissing the alert makes only the
    // prominent scene active again; the scenes it covers stay inactive.
    func testAlertOverAProminentSceneLeavesTheCoveredScenesInactive() throws {
        let host = CoreHarness()
        let (a, _) = try launchTwo(host)
        host.run { $0.scenes.changeLayout(.fullScreen(a)) }
        let guest = try XCTUnwrap(host.opener.guests["org.test.a"])
        host.run { core in
            try? core.scenes.alert(shown: true)
        }
        host.run { core in
            core.scenes.performAction(scene: a, action: "go", payload: Data())
            guest.emit(
                .sceneRequested(
                    activation: guest.lastActivation, from: 1, role: .auxiliary, style: .prominent, state: Data(),
                    request: 1))
        }
        host.run { core in try? core.scenes.alert(shown: false) }
        let states = host.guest("org.test.a")?.scenes.map(\.state)
        XCTAssertEqual(states, [.foregroundInactive, .foregroundActive])
    }

    private func ref(_ host: CoreHarness, _ guest: String) -> SceneRef {
        SceneRef(guest: guest, session: host.guest(guest)?.scenes.first?.session ?? "")
    }
}

/// Launches org.test.a in the foreground and org.test.b in background; returns their sessions.
func launchTwo(_ host: CoreHarness) throws -> (String, String) {
    _ = host.opener.add("org.test.a")
    _ = host.opener.add("org.test.b")
    host.run { $0.launch(path: "org.test.a", foreground: true) }
    host.run { $0.launch(path: "org.test.b", foreground: false) }
    return (
        try XCTUnwrap(host.guest("org.test.a")?.scenes.first?.session),
        try XCTUnwrap(host.guest("org.test.b")?.scenes.first?.session)
    )
}

/// A command's result, written on the host queue inside `run` and read after it returns.
final class ResultBox<T>: @unchecked Sendable {
    var value: Result<T, HostCommandError>?
}
