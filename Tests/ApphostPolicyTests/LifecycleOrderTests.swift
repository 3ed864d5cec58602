import ApphostModel
import ApphostPolicy
import ApphostPolicyTesting
import ApphostVocabulary
import Foundation
import XCTest

/// The contract's callback orders, checked on the host core with fake guests and a manual clock.
final class LifecycleOrderTests: XCTestCase {
    private var host: CoreHarness!

    override func setUp() {
        host = CoreHarness()
    }

    private func launch(_ id: String, foreground: Bool) -> Result<GuestDescriptor, HostCommandError>? {
        let box = ResultBox<Result<GuestDescriptor, HostCommandError>>()
        host.run { $0.launch(path: id, foreground: foreground) { box.value = $0 } }
        return box.value
    }

    // CONTRACT A2, S2: launch runs once, before any scene connects; a scene the user asked for
    // connects through will-connect, will-enter-foreground, did-become-active.
    func testForegroundLaunchOrder() throws {
        _ = host.opener.add("org.test.a")
        XCTAssertNotNil(try launch("org.test.a", foreground: true)?.get())
        XCTAssertEqual(
            host.calls.names(),
            [
                "org.test.a:did_finish_launching", "org.test.a:will_connect@1", "org.test.a:will_enter_foreground@1",
                "org.test.a:did_become_active@1",
            ])
        let connect = try XCTUnwrap(host.calls.calls[1].message.call)
        guard case .sceneWillConnect(let connection) = connect else { return XCTFail("expected will_connect") }
        XCTAssertEqual(connection.initialState, .foregroundInactive)
        XCTAssertNil(connection.restorationData)
        XCTAssertEqual(host.guest("org.test.a")?.appState, .active)
        XCTAssertEqual(host.guest("org.test.a")?.scenes.first?.state, .foregroundActive)
        XCTAssertEqual(host.status().foreground, "org.test.a")
    }

    // CONTRACT S2: a scene the host connects for background work connects straight into background.
    func testBackgroundLaunchConnectsIntoBackground() throws {
        _ = host.opener.add("org.test.a")
        _ = host.opener.add("org.test.b")
        _ = try launch("org.test.a", foreground: true)?.get()
        _ = try launch("org.test.b", foreground: false)?.get()
        XCTAssertEqual(
            host.calls.names("org.test.b"), ["org.test.b:did_finish_launching", "org.test.b:will_connect@2"])
        guard case .sceneWillConnect(let connection) = host.calls.calls.last?.message.call else { return XCTFail() }
        XCTAssertEqual(connection.initialState, .background)
        XCTAssertEqual(host.guest("org.test.b")?.appState, .background)
        XCTAssertEqual(host.guest("org.test.a")?.appState, .active, "the foreground guest is untouched")
    }

    // CONTRACT S3, S5: switching apps sends will-resign-active then did-enter-background to the old
    // guest, then will-enter-foreground and did-become-active to the new one.
    func testSwitchOrdersOldThenNew() throws {
        _ = host.opener.add("org.test.a")
        _ = host.opener.add("org.test.b")
        _ = try launch("org.test.a", foreground: true)?.get()
        _ = try launch("org.test.b", foreground: false)?.get()
        let before = host.calls.calls.count
        host.run { $0.switchTo("org.test.b") }
        XCTAssertEqual(
            Array(host.calls.names().dropFirst(before)),
            [
                "org.test.a:will_resign_active@1", "org.test.a:did_enter_background@1",
                "org.test.b:will_enter_foreground@2", "org.test.b:did_become_active@2",
            ])
        XCTAssertEqual(host.guest("org.test.a")?.appState, .background)
        XCTAssertEqual(host.guest("org.test.b")?.appState, .active)
        XCTAssertEqual(host.status().foreground, "org.test.b")
    }

    // CONTRACT S4: a host alert sends only will-resign-active; dismissing it sends did-become-active,
    // with no background transition in between.
    func testAlertResignsAndReactivatesWithoutBackground() throws {
        _ = host.opener.add("org.test.a")
        _ = try launch("org.test.a", foreground: true)?.get()
        let before = host.calls.calls.count
        try host.run { try $0.scenes.alert(shown: true) }
        XCTAssertEqual(host.guest("org.test.a")?.appState, .inactive)
        XCTAssertEqual(host.guest("org.test.a")?.scenes.first?.state, .foregroundInactive)
        try host.run { try $0.scenes.alert(shown: false) }
        XCTAssertEqual(
            Array(host.calls.names().dropFirst(before)),
            ["org.test.a:will_resign_active@1", "org.test.a:did_become_active@1"])
        XCTAssertEqual(host.guest("org.test.a")?.appState, .active)
        XCTAssertThrowsError(try host.run { try $0.scenes.alert(shown: false) }, "dismissing twice is refused")
    }

    // CONTRACT S4: a guest brought forward while an alert is up stays inactive until it is dismissed.
    func testSwitchUnderAlertStaysInactive() throws {
        _ = host.opener.add("org.test.a")
        _ = host.opener.add("org.test.b")
        _ = try launch("org.test.a", foreground: true)?.get()
        _ = try launch("org.test.b", foreground: false)?.get()
        try host.run { try $0.scenes.alert(shown: true) }
        host.run { $0.switchTo("org.test.b") }
        XCTAssertEqual(host.guest("org.test.b")?.appState, .inactive)
        XCTAssertEqual(host.calls.names("org.test.b").last, "org.test.b:will_enter_foreground@2")
        try host.run { try $0.scenes.alert(shown: false) }
        XCTAssertEqual(host.calls.names("org.test.b").last, "org.test.b:did_become_active@2")
    }

    // CONTRACT S3: "home" sends the foreground guest to background.
    func testHomeSendsForegroundToBackground() throws {
        _ = host.opener.add("org.test.a")
        _ = try launch("org.test.a", foreground: true)?.get()
        host.run { $0.scenes.home() }
        XCTAssertEqual(
            host.calls.names().suffix(2), ["org.test.a:will_resign_active@1", "org.test.a:did_enter_background@1"])
        XCTAssertEqual(host.guest("org.test.a")?.appState, .background)
        XCTAssertNil(host.status().foreground)
    }

    // CONTRACT A1: each callback carries the app and scene state the guest is in while it runs.
    // At launch no scene is connected: the guest is in background until will_enter_foreground,
    // and the event stream says the same.
    func testMessagesCarryStates() throws {
        _ = host.opener.add("org.test.a")
        _ = try launch("org.test.a", foreground: true)?.get()
        XCTAssertEqual(
            host.events.of(.appState, guest: "org.test.a").map { "\($0.from ?? "") -> \($0.to ?? "")" },
            ["notRunning -> background", "background -> inactive", "inactive -> active"])
        host.run { $0.scenes.home() }
        let seen = host.calls.calls.map {
            "\($0.message.call.callbackName) \($0.message.appState) \($0.message.sceneState.map(\.description) ?? "-")"
        }
        XCTAssertEqual(
            seen,
            [
                "did_finish_launching background -", "will_connect background unattached",
                "will_enter_foreground inactive foregroundInactive", "did_become_active active foregroundActive",
                "will_resign_active inactive foregroundInactive", "did_enter_background background background",
            ])
    }

    // CONTRACT A5: transitions and their events are stamped with the host's clock.
    func testTransitionTimesComeFromTheHostClock() throws {
        _ = host.opener.add("org.test.a")
        _ = try launch("org.test.a", foreground: true)?.get()
        let launchedAt = try XCTUnwrap(host.guest("org.test.a")?.since)
        host.run { _ in host.clock.advance(by: .seconds(90)) }
        host.run { $0.scenes.home() }
        XCTAssertEqual(host.guest("org.test.a")?.since.timeIntervalSince(launchedAt), 90)
        XCTAssertEqual(host.events.of(.appState).last?.time, host.guest("org.test.a")?.since)
    }

    private final class ResultBox<T>: @unchecked Sendable {
        // Written on the host queue inside `run`, read after it returns.
        var value: T?
    }
}
