import ApphostModel
import ApphostVocabulary
import Foundation
import XCTest

/// Scenes end to end (CONTRACT S7, S9 to S11, N1 to N3): the scenes fixture driven by user
/// actions through `apphost ctl`, in both isolation modes.
final class SceneTests: HostTestCase {
    override class var stopsHostsGracefully: Bool { true }

    private func launch(_ isolation: String, _ options: [String] = [], guests: [String] = []) throws -> HostProcess {
        let fixture = try TestGuests.scenes(into: scratch.path)
        let host = try startHost(
            [fixture] + guests, options: ["--isolation", isolation, "--display", "1600x900"] + options)
        try host.waitForEvent("the fixture active") {
            $0.kind == .sceneState && $0.guest == TestGuests.scenesID && $0.to == "foregroundActive"
        }
        return host
    }

    private func scenes() throws -> [SceneStatus] {
        try XCTUnwrap(try status().guest(TestGuests.scenesID)?.scenes)
    }

    // MARK: S9, S10, S11

    func testAnActionOpensASceneBesideInProcess() throws { try actionOpensBeside("none") }
    func testAnActionOpensASceneBesideIsolated() throws { try actionOpensBeside("process") }

    // CONTRACT S9, S10, S11, S12: a user action lets the guest open one scene; standard puts it
    // beside the one that asked, in a split; each learns its half of the display; the new
    // session starts with the state the request gave.
    private func actionOpensBeside(_ isolation: String) throws {
        let host = try launch(isolation)
        let first = try XCTUnwrap(try scenes().first)
        XCTAssertEqual(first.size, SceneSize(width: 1600, height: 900, sizeClass: .regular))
        try host.waitForLog(TestGuests.scenesID, "did_change_size \(first.handle ?? 0) 1600x900 class=1", prefix: true)

        let mark = host.events.count
        try ctlSucceeds("action", first.session, "request here 1 1 note-1;request here 1 1 again")
        try host.waitForLog(TestGuests.scenesID, "request = ok", after: mark)
        try host.waitForLog(TestGuests.scenesID, "request = no_activation", after: mark)
        try host.waitForEvent("the new scene active", after: mark) {
            $0.kind == .sceneState && $0.scene != first.handle && $0.to == "foregroundActive"
        }
        let both = try scenes()
        XCTAssertEqual(both.count, 2, "one activation, one scene")
        XCTAssertEqual(both.last?.savedBytes, 6, "S12: it starts with the state the request gave")
        XCTAssertEqual(both.map(\.placement), ["split left", "split right"])
        XCTAssertEqual(both.map(\.state), [.foregroundActive, .foregroundActive])
        XCTAssertEqual(
            both.map(\.size), Array(repeating: SceneSize(width: 800, height: 900, sizeClass: .regular), count: 2))
        XCTAssertEqual(both.last?.role, .auxiliary)

        let table = try ctlSucceeds("ps").stdout.joined(separator: "\n")
        XCTAssertTrue(table.contains("split left") && table.contains("800x900"), table)
    }

    func testSubmittedRequestsGetTheirIDsInProcess() throws { try submittedRequestsGetIDs("none") }
    func testSubmittedRequestsGetTheirIDsIsolated() throws { try submittedRequestsGetIDs("process") }

    // CONTRACT S9: submit_scene_request (ABI 1.8) tells the guest the id of each request the
    // runtime accepts, counting from 1, which is the id a refusal would name (did_refuse_request);
    // one the runtime refuses at once gets none.
    private func submittedRequestsGetIDs(_ isolation: String) throws {
        let host = try launch(isolation)
        let first = try XCTUnwrap(try scenes().first)
        var mark = host.events.count
        try ctlSucceeds("action", first.session, "submit here 1 1 note-1;submit here 1 1 again;submit-small")
        try host.waitForLog(TestGuests.scenesID, "submit = ok id=1", after: mark)
        try host.waitForLog(TestGuests.scenesID, "submit = no_activation id=0", after: mark)
        try host.waitForLog(TestGuests.scenesID, "submit small = invalid_argument id=0", after: mark)
        try host.waitForEvent("the new scene active", after: mark) {
            $0.kind == .sceneState && $0.scene != first.handle && $0.to == "foregroundActive"
        }
        XCTAssertEqual(try scenes().count, 2)
        mark = host.events.count
        try ctlSucceeds("action", first.session, "submit here 1 1 note-2")
        try host.waitForLog(TestGuests.scenesID, "submit = ok id=2", after: mark)
    }

    func testMainQueueFunctionsRefuseAGuestThreadInProcess() throws { try mainQueueFunctionsRefuseAThread("none") }
    func testMainQueueFunctionsRefuseAGuestThreadIsolated() throws { try mainQueueFunctionsRefuseAThread("process") }

    // CONTRACT X3: app_state, scene_state and scene_size answer the guest's main queue; a thread
    // of the guest's own gets APPHOST_ERROR_WRONG_THREAD, and the guest's log says so once per
    // function.
    private func mainQueueFunctionsRefuseAThread(_ isolation: String) throws {
        let host = try launch(isolation)
        let first = try XCTUnwrap(try scenes().first)
        let mark = host.events.count
        // The last command runs after both threads were joined: once it is logged, all are.
        try ctlSucceeds("action", first.session, "states here;thread states here;thread states here;size here")
        _ = try host.waitForLog(TestGuests.scenesID, "states here = app=2 scene=2 size=1600x900", after: mark)
        _ = try host.waitForLog(TestGuests.scenesID, "size here = 1600x900 class=1 size=16", after: mark)
        _ = try host.waitForLog(
            TestGuests.scenesID, "states here = app=-10 scene=wrong_thread size=wrong_thread", after: mark)
        for function in ["app_state", "scene_state", "scene_size"] {
            _ = try host.waitForLog(
                TestGuests.scenesID, "\(function) is a [main-queue] function", prefix: true, after: mark)
        }
        let answers = host.events.dropFirst(mark).filter {
            $0.kind == .log && $0.message == "states here = app=-10 scene=wrong_thread size=wrong_thread"
        }
        let warnings = host.events.dropFirst(mark).filter {
            $0.kind == .log && ($0.message ?? "").contains("[main-queue] function")
        }
        XCTAssertEqual(answers.count, 2)
        XCTAssertEqual(warnings.count, 3, "once per function")
    }

    func testASingleSceneGuestGetsNoSecondSceneInProcess() throws { try singleSceneGuest("none") }
    func testASingleSceneGuestGetsNoSecondSceneIsolated() throws { try singleSceneGuest("process") }

    // CONTRACT S13: a guest that does not declare APPHOST_CAPABILITY_MULTIPLE_SCENES has one
    // scene: its request is refused with APPHOST_ERROR_NOT_DECLARED, and so is the operator's
    // open, with a one-line error.
    private func singleSceneGuest(_ isolation: String) throws {
        let fixture = try TestGuests.singleSceneScenes(into: scratch.path)
        let host = try startHost([fixture], options: ["--isolation", isolation])
        try host.waitForEvent("the fixture active") {
            $0.kind == .sceneState && $0.guest == TestGuests.scenesID && $0.to == "foregroundActive"
        }
        let first = try XCTUnwrap(try scenes().first)
        let mark = host.events.count
        try ctlSucceeds("action", first.session, "request here 1 1 note")
        _ = try host.waitForLog(TestGuests.scenesID, "request = not_declared", after: mark)
        let open = try ctl("open", TestGuests.scenesID)
        XCTAssertEqual(open.status, 1)
        XCTAssertEqual(
            open.stderr,
            ["apphost: \(TestGuests.scenesID) has one scene: it does not declare APPHOST_CAPABILITY_MULTIPLE_SCENES"])
        XCTAssertEqual(try scenes().count, 1)
    }

    func testTheActivationExpiresInProcess() throws { try activationExpires("none") }
    func testTheActivationExpiresIsolated() throws { try activationExpires("process") }

    // CONTRACT S9: a request made after the activation's time is refused with its own code.
    private func activationExpires(_ isolation: String) throws {
        let host = try launch(isolation, ["--activation", "0.3"])
        let first = try XCTUnwrap(try scenes().first)
        let mark = host.events.count
        try ctlSucceeds("action", first.session, "sleep 600;request here 1 1 late")
        try host.waitForLog(TestGuests.scenesID, "request = no_activation", after: mark)
        XCTAssertEqual(try scenes().count, 1)
    }

    // MARK: S10, S4, S7

    func testAProminentSceneCoversTheOthersUntilClosedInProcess() throws { try prominentUntilClosed("none") }
    func testAProminentSceneCoversTheOthersUntilClosedIsolated() throws { try prominentUntilClosed("process") }

    // CONTRACT S10, S4, S7: a prominent scene makes the others inactive (will_resign_active
    // only); closing it discards its session: did-disconnect, did-discard, and the others become
    // active again with no trip to background.
    private func prominentUntilClosed(_ isolation: String) throws {
        let host = try launch(isolation)
        let first = try XCTUnwrap(try scenes().first)
        try ctlSucceeds("action", first.session, "request here 1 2 draft")
        try host.waitForLog(TestGuests.scenesID, "request = ok")
        try host.waitForEvent("the prominent scene active") {
            $0.kind == .sceneState && $0.scene != first.handle && $0.to == "foregroundActive"
        }
        var all = try scenes()
        XCTAssertEqual(all.map(\.state), [.foregroundInactive, .foregroundActive])
        XCTAssertEqual(all.last?.placement, "prominent")
        let prominent = try XCTUnwrap(all.last)

        let mark = host.events.count
        try ctlSucceeds("close", String(prominent.session.prefix(8)))
        try host.waitForLog(TestGuests.scenesID, "did_discard \(prominent.session)", after: mark)
        all = try scenes()
        XCTAssertEqual(all.map(\.session), [first.session])
        XCTAssertEqual(all.first?.state, .foregroundActive)
        let firstCallbacks = host.events.since(mark).filter { $0.kind == .callback && $0.scene == first.handle }
        XCTAssertEqual(firstCallbacks.compactMap(\.name), ["did_become_active"], "S4: no background trip")
    }

    // MARK: N2, N3, N1

    func testProgressModalsAndNotificationsInProcess() throws { try progressModalsNotifications("none") }
    func testProgressModalsAndNotificationsIsolated() throws { try progressModalsNotifications("process") }

    // CONTRACT N2, N3, N1: the operator sees the loading progress and the modal stack; a dismissal
    // the guest refuses leaves the modal, one it allows removes it and tells it; notifications
    // beyond the limit are refused and reported.
    private func progressModalsNotifications(_ isolation: String) throws {
        let host = try launch(isolation, ["--notification-limit", "2"])
        let scene = try XCTUnwrap(try scenes().first).session

        try ctlSucceeds("action", scene, "progress here 0.5")
        try host.waitForEvent("loading 50%") { $0.kind == .loading && $0.message == "50%" }
        XCTAssertEqual(try scenes().first?.loading, .fraction(0.5))

        try ctlSucceeds("action", scene, "present here 0 Edit;keep 1")
        try host.waitForEvent("modal presented") { $0.kind == .modalPresented }
        XCTAssertEqual(try scenes().first?.modals.map(\.title), ["Edit"])
        let kept = try ctlSucceeds("dismiss", scene).stdout.joined(separator: " ")
        XCTAssertTrue(kept.contains("keeps"), kept)
        XCTAssertEqual(try scenes().first?.modals.count, 1)
        try host.waitForLog(TestGuests.scenesID, "should_dismiss", prefix: true)
        try ctlSucceeds("action", scene, "keep 0")
        try ctlSucceeds("dismiss", scene)
        try host.waitForLog(TestGuests.scenesID, "did_dismiss", prefix: true)
        XCTAssertEqual(try scenes().first?.modals.count, 0)
        // CONTRACT A5: the operator's dismissal is requested; one the guest makes itself says so.
        let byOperator = try host.waitForEvent("the operator's dismissal") { $0.kind == .modalDismissed }
        XCTAssertEqual(byOperator.reason, .requested, byOperator.humanLine)
        let before = host.events.count
        try ctlSucceeds("action", scene, "present here 0 Note")
        let presented = try host.waitForLog(TestGuests.scenesID, "present Note = ", prefix: true, after: before)
        let modal = try XCTUnwrap(presented.message?.dropFirst("present Note = ".count))
        try ctlSucceeds("action", scene, "dismiss here \(modal)")
        let byGuest = try host.waitForEvent("the guest's own dismissal", after: before) { $0.kind == .modalDismissed }
        XCTAssertEqual(byGuest.reason, .guest, byGuest.humanLine)
        XCTAssertEqual(try scenes().first?.modals.count, 0)

        for index in 1...3 { try ctlSucceeds("action", scene, "notify note\(index) body") }
        // N1: the third is over the limit; the guest's runtime, which the host told, refuses it at
        // once (ABI 1.2), so the host never sees it.
        _ = try host.waitForLog(TestGuests.scenesID, "notify note3 = limit_reached")
        XCTAssertEqual(host.events.filter { $0.kind == .notification }.compactMap(\.name), ["note1", "note2"])
    }

    // MARK: Scene titles (ABI 1.3)

    func testSceneTitlesInProcess() throws { try sceneTitles("none") }
    func testSceneTitlesIsolated() throws { try sceneTitles("process") }

    // set_scene_title (ABI 1.3; the contract is silent, sdk/README.md says what the host does):
    // the operator sees a scene's title in the event stream and in `ctl ps` until the guest takes
    // it away; a scene that is not connected is refused at once.
    private func sceneTitles(_ isolation: String) throws {
        let host = try launch(isolation)
        let scene = try XCTUnwrap(try scenes().first)
        XCTAssertNil(scene.title, "a scene has no title when it connects")

        try ctlSucceeds("action", scene.session, "title here Inbox")
        try host.waitForLog(TestGuests.scenesID, "title here = ok")
        let named = try host.waitForEvent("the title") { $0.kind == .sceneTitle }
        XCTAssertEqual(named.name, "Inbox")
        XCTAssertEqual(named.scene, scene.handle)
        XCTAssertTrue(
            named.humanLine.hasSuffix("scene-title \(TestGuests.scenesID) scene=\(scene.handle ?? 0) \"Inbox\""),
            named.humanLine)
        XCTAssertEqual(try scenes().first?.title, "Inbox")
        let table = try ctlSucceeds("ps").stdout.joined(separator: "\n")
        XCTAssertTrue(table.contains("session \(scene.session.prefix(8))  \"Inbox\"  primary"), table)

        let mark = host.events.count
        try ctlSucceeds("action", scene.session, "title here")
        let cleared = try host.waitForEvent("the title taken away", after: mark) { $0.kind == .sceneTitle }
        XCTAssertNil(cleared.name)
        XCTAssertTrue(cleared.humanLine.hasSuffix(" none"), cleared.humanLine)
        XCTAssertNil(try scenes().first?.title)

        try ctlSucceeds("action", scene.session, "title 999 Elsewhere")
        try host.waitForLog(TestGuests.scenesID, "title 999 = invalid_handle")
        XCTAssertEqual(host.events.filter { $0.kind == .sceneTitle }.count, 2, "a refused title never reaches the host")
    }

    // MARK: S11 layouts from the CLI

    func testLayoutsFromTheCommandLineInProcess() throws { try layouts("none") }
    func testLayoutsFromTheCommandLineIsolated() throws { try layouts("process") }

    // CONTRACT S11: split two guests with a ratio, then picture in picture over the home screen;
    // guests learn only sizes and size classes.
    private func layouts(_ isolation: String) throws {
        let host = try launch(isolation, guests: [BuildProducts.cSample])
        try host.waitForLog(Self.cID, "callback will_connect", prefix: true)
        let fixture = try XCTUnwrap(try scenes().first)
        let sample = try XCTUnwrap(try status().guest(Self.cID)?.scenes.first)
        try ctlSucceeds("layout", "split", fixture.session, sample.session, "--ratio", "0.3")
        try host.waitForLog(TestGuests.scenesID, "did_change_size \(fixture.handle ?? 0) 480x900 class=0", prefix: true)
        XCTAssertEqual(
            try status().guest(Self.cID)?.scenes.first?.size, SceneSize(width: 1120, height: 900, sizeClass: .regular))
        XCTAssertEqual(try status().guest(Self.cID)?.appState, .active)

        try ctlSucceeds("layout", "pip", sample.session)
        XCTAssertEqual(try ctlSucceeds("home").stdout, ["\(TestGuests.scenesID) went to background"])
        XCTAssertEqual(try status().guest(Self.cID)?.appState, .active, "picture in picture stays up")
        XCTAssertEqual(try status().guest(TestGuests.scenesID)?.appState, .background)
        XCTAssertEqual(try ctlSucceeds("home").stdout, ["only picture in picture is shown, and it stays"])

        XCTAssertNotEqual(try ctl("layout", "ratio", "0.95").status, 0)
    }

    // MARK: S7 across a restart

    // CONTRACT S7, S8: a scene closed while its guest is not running is announced at its next
    // launch, by a later host; the closed session does not come back.
    func testAClosedSessionIsDiscardedAtTheNextLaunch() throws {
        var host = try launch("process")
        let first = try XCTUnwrap(try scenes().first)
        try ctlSucceeds("action", first.session, "request here 1 0 aux")
        try host.waitForLog(TestGuests.scenesID, "request = ok")
        try host.waitForEvent("the auxiliary scene connected") {
            $0.kind == .callback && $0.name == "will_connect" && $0.scene != first.handle
        }
        let auxiliary = try XCTUnwrap(try scenes().last).session
        try ctlSucceeds("terminate", TestGuests.scenesID)
        try ctlSucceeds("close", auxiliary)
        host.signal(SIGTERM)
        _ = try host.waitForExit()

        host = try launch("process")
        try host.waitForLog(TestGuests.scenesID, "did_discard \(auxiliary)")
        XCTAssertEqual(try scenes().map(\.session), [first.session])
    }
}
