import ApphostPolicy
import ApphostPolicyTesting
import ApphostVocabulary
import Foundation
import XCTest

/// A new primary window opened as a user would (`ctl open`): CONTRACT S2, S3, S8.
final class OpenSceneTests: XCTestCase {
    // CONTRACT S2, S3: the new scene connects and becomes active; the one shown before goes to
    // background; the guest stays active throughout, and both sessions are stored (S8).
    func testOpeningANewWindowShowsItAndSendsTheOldOneToBackground() throws {
        let store = MemoryStore()
        let host = CoreHarness(store: store)
        _ = host.opener.add("org.test.a")
        host.run { $0.launch(path: "org.test.a", foreground: true) }
        let before = host.calls.names("org.test.a").count
        let eventsBefore = host.events.all.count
        let opened = OpenedBox()
        host.run { core in core.scenes.openScene("org.test.a") { opened.result = $0 } }
        let session = try XCTUnwrap(try opened.result?.get())
        XCTAssertEqual(
            Array(host.calls.names("org.test.a").dropFirst(before)),
            [
                "org.test.a:will_connect@2", "org.test.a:will_enter_foreground@2", "org.test.a:did_become_active@2",
                "org.test.a:will_resign_active@1", "org.test.a:did_enter_background@1",
            ])
        let status = try XCTUnwrap(host.guest("org.test.a"))
        XCTAssertEqual(status.scenes.map(\.state), [.background, .foregroundActive])
        XCTAssertEqual(status.scenes.last?.session, session)
        XCTAssertFalse(
            host.events.all.dropFirst(eventsBefore).contains { $0.kind == .appState && $0.to == "background" },
            "never in background")
        XCTAssertEqual(try store.sessions(of: "org.test.a").count, 2)
    }

    // CONTRACT S2, S8: after a restart both sessions reconnect; the oldest window comes back in
    // the foreground (which was shown last is not stored yet), the other in background.
    func testBothWindowsComeBackAfterARestart() throws {
        let store = MemoryStore()
        let first = CoreHarness(store: store)
        _ = first.opener.add("org.test.a")
        first.run { $0.launch(path: "org.test.a", foreground: true) }
        first.run { $0.scenes.openScene("org.test.a") }
        let sessions = try XCTUnwrap(first.guest("org.test.a")?.scenes.map(\.session))

        let second = CoreHarness(store: store)
        _ = second.opener.add("org.test.a")
        second.run { $0.launch(path: "org.test.a", foreground: true) }
        XCTAssertEqual(second.guest("org.test.a")?.scenes.map(\.session), sessions)
        XCTAssertEqual(second.guest("org.test.a")?.scenes.map(\.state), [.foregroundActive, .background])
    }

    // CONTRACT S13: a guest that does not declare several scenes has one: the operator's open is
    // refused with the reason, and nothing is delivered or stored.
    func testOpeningASecondWindowOfASingleSceneGuestIsRefused() throws {
        let store = MemoryStore()
        let host = CoreHarness(store: store)
        _ = host.opener.add("org.test.a", capabilities: [])
        host.run { $0.launch(path: "org.test.a", foreground: true) }
        let before = host.calls.names("org.test.a").count
        let opened = OpenedBox()
        host.run { core in core.scenes.openScene("org.test.a") { opened.result = $0 } }
        XCTAssertThrowsError(try opened.result?.get()) { error in
            XCTAssertEqual(
                (error as? HostCommandError)?.message,
                "org.test.a has one scene: it does not declare APPHOST_CAPABILITY_MULTIPLE_SCENES")
        }
        XCTAssertEqual(host.calls.names("org.test.a").count, before)
        XCTAssertEqual(try store.sessions(of: "org.test.a").count, 1)
    }

    func testOpeningAWindowOfAGuestThatIsNotRunningIsRefused() throws {
        let host = CoreHarness()
        let opened = OpenedBox()
        host.run { core in core.scenes.openScene("org.test.none") { opened.result = $0 } }
        XCTAssertThrowsError(try opened.result?.get())
    }

    private final class OpenedBox: @unchecked Sendable {
        // Written on the host queue inside `run`, read after it returns.
        var result: Result<String, HostCommandError>?
    }
}
