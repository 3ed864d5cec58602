import ApphostPolicy
import ApphostPolicyTesting
import Foundation
import XCTest

/// The limit on scenes connected in background (CONTRACT S6).
final class SceneLimitTests: XCTestCase {
    // CONTRACT S6, S12: over the limit, the scene that went to background longest ago is
    // disconnected (did-disconnect, then unattached); its session keeps its saved state and
    // reconnects with it when the guest is shown again.
    func testOldestBackgroundSceneIsDisconnectedAndReconnectsWithItsState() throws {
        let host = CoreHarness(backgroundSceneLimit: 1)
        for id in ["org.test.a", "org.test.b", "org.test.c"] { _ = host.opener.add(id) }
        host.run { $0.launch(path: "org.test.a", foreground: true) }
        host.opener.guests["org.test.a"]?.emit(.saveSceneState(1, Data("a".utf8)))
        host.run { $0.launch(path: "org.test.b", foreground: true) }
        XCTAssertEqual(host.guest("org.test.a")?.scenes.map(\.state), [.background])

        XCTAssertFalse(host.calls.names("org.test.a").contains("org.test.a:did_disconnect@1"))
        host.run { $0.launch(path: "org.test.c", foreground: true) }
        XCTAssertEqual(host.guest("org.test.a")?.scenes.map(\.state), [.unattached], "the oldest in background")
        XCTAssertEqual(host.guest("org.test.b")?.scenes.map(\.state), [.background])
        XCTAssertEqual(host.calls.names("org.test.a").last, "org.test.a:did_disconnect@1")
        XCTAssertEqual(host.guest("org.test.a")?.appState, .background, "the guest runs on, sceneless")

        host.run { $0.switchTo("org.test.a") }
        let connect = try XCTUnwrap(
            host.calls.calls.last { $0.guest == "org.test.a" && $0.message.call.callbackName == "will_connect" })
        guard case .sceneWillConnect(let connection) = connect.message.call else { return XCTFail() }
        XCTAssertEqual(connection.restorationData, Data("a".utf8))
        XCTAssertEqual(host.guest("org.test.a")?.appState, .active)
    }

    // CONTRACT S6, B7: a suspended guest's scene is disconnected at once, and the guest hears of
    // it first thing when it resumes.
    func testASuspendedGuestHearsOfTheDisconnectOnResume() throws {
        let host = CoreHarness(backgroundSceneLimit: 1)
        for id in ["org.test.a", "org.test.b", "org.test.c"] { _ = host.opener.add(id) }
        host.run { $0.launch(path: "org.test.a", foreground: true) }
        host.run { $0.launch(path: "org.test.b", foreground: true) }
        host.advance(by: .seconds(1))
        XCTAssertEqual(host.guest("org.test.a")?.appState, .suspended)
        let before = host.calls.names("org.test.a").count
        host.run { $0.launch(path: "org.test.c", foreground: true) }
        XCTAssertEqual(host.guest("org.test.a")?.scenes.map(\.state), [.unattached])
        XCTAssertEqual(host.calls.names("org.test.a").count, before, "B7: nothing while suspended")
        host.run { $0.switchTo("org.test.a") }
        XCTAssertEqual(
            Array(host.calls.names("org.test.a").dropFirst(before).prefix(2)),
            ["org.test.a:did_disconnect@1", "org.test.a:will_connect@4"])
    }
}
