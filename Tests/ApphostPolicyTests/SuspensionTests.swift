import ApphostPolicy
import ApphostPolicyTesting
import ApphostVocabulary
import Foundation
import XCTest

/// Suspension and resumption on the host core, with fake guests.
final class SuspensionTests: XCTestCase {
    private var host: CoreHarness!

    override func setUp() {
        host = CoreHarness()
        _ = host.opener.add("org.test.a")
        _ = host.opener.add("org.test.b")
        host.run { $0.launch(path: "org.test.a", foreground: true) }
        host.run { $0.launch(path: "org.test.b", foreground: false) }
    }

    private func failure(_ body: (HostCore, @escaping @Sendable (Result<Void, HostCommandError>) -> Void) -> Void)
        -> String?
    {
        let box = MessageBox()
        host.run { core in
            body(core) { if case .failure(let error) = $0 { box.message = error.message } }
        }
        return box.message
    }

    // CONTRACT A1, A5, B7: a suspended guest is in app state suspended once its channel
    // confirmed it, with the reason, and gets no callback for it.
    func testSuspendBackgroundGuest() throws {
        let before = host.calls.calls.count
        host.run { $0.suspend("org.test.b") }
        XCTAssertEqual(host.guest("org.test.b")?.appState, .suspended)
        XCTAssertEqual(host.guest("org.test.b")?.lastReason, .requested)
        XCTAssertEqual(host.calls.calls.count, before, "suspension is no callback")
        XCTAssertEqual(host.events.of(.suspended).map(\.guest), ["org.test.b"])
        XCTAssertEqual(host.events.of(.appState, guest: "org.test.b").last?.to, "suspended")
    }

    // CONTRACT S3, B7: the foreground guest goes to background (so it can save) before it stops.
    func testSuspendForegroundGuestSendsItToBackgroundFirst() throws {
        let before = host.calls.calls.count
        host.run { $0.suspend("org.test.a") }
        XCTAssertEqual(
            Array(host.calls.names().dropFirst(before)),
            ["org.test.a:will_resign_active@1", "org.test.a:did_enter_background@1"])
        XCTAssertEqual(host.guest("org.test.a")?.appState, .suspended)
        XCTAssertNil(host.status().foreground)
    }

    // CONTRACT B7, S5: resuming brings a guest back to background; switching to a suspended
    // guest resumes it, then brings it forward.
    func testResumeAndSwitchToSuspendedGuest() throws {
        host.run { $0.suspend("org.test.b") }
        host.run { $0.resume("org.test.b") }
        XCTAssertEqual(host.guest("org.test.b")?.appState, .background)
        XCTAssertEqual(host.events.of(.resumed).map(\.guest), ["org.test.b"])

        host.run { $0.suspend("org.test.b") }
        let before = host.calls.calls.count
        host.run { $0.switchTo("org.test.b") }
        XCTAssertEqual(host.opener.guests["org.test.b"]?.resumptions, 2)
        XCTAssertEqual(
            Array(host.calls.names().dropFirst(before)),
            [
                "org.test.a:will_resign_active@1", "org.test.a:did_enter_background@1",
                "org.test.b:will_enter_foreground@2", "org.test.b:did_become_active@2",
            ])
        XCTAssertEqual(host.guest("org.test.b")?.appState, .active)
    }

    // CONTRACT A3: a suspended guest is terminated without any callback; its state survives.
    func testTerminatingASuspendedGuestSendsNoCallback() throws {
        host.opener.guests["org.test.b"]?.emit(.saveSceneState(2, Data("5".utf8)))
        host.settle()
        host.run { $0.suspend("org.test.b") }
        let before = host.calls.calls.count
        host.run { $0.terminate("org.test.b") }
        XCTAssertEqual(host.calls.calls.count, before)
        XCTAssertEqual(host.opener.guests["org.test.b"]?.closes, 1)
        XCTAssertEqual(host.guest("org.test.b")?.appState, .notRunning)
        XCTAssertEqual(host.guest("org.test.b")?.scenes.first?.savedBytes, 1)
    }

    // A refused freeze leaves the guest running in background and says why in one line.
    func testFailedSuspensionIsReported() throws {
        host.opener.guests["org.test.b"]?.freezeFails = true
        XCTAssertEqual(
            failure { $0.suspend("org.test.b", completion: $1) }, "cannot suspend org.test.b: freezer refused")
        XCTAssertEqual(host.guest("org.test.b")?.appState, .background)
    }

    func testSuspendAndResumeRefuseWhatMakesNoSense() throws {
        XCTAssertEqual(failure { $0.resume("org.test.b", completion: $1) }, "org.test.b is not suspended")
        host.run { $0.suspend("org.test.b") }
        XCTAssertEqual(failure { $0.suspend("org.test.b", completion: $1) }, "org.test.b is already suspended")
        XCTAssertEqual(
            failure { $0.suspend("org.test.zz", completion: $1) },
            "no guest org.test.zz (loaded: org.test.a, org.test.b)")
    }

    // CONTRACT X2: a guest whose process dies on its own is reported with the callback it was in,
    // or as outside any callback; its scenes keep their saved state.
    func testGuestThatDiesIsReportedWithTheCallbackInFlight() throws {
        let guest = try XCTUnwrap(host.opener.guests["org.test.b"])
        guest.emit(.saveSceneState(2, Data("9".utf8)))
        guest.emit(.died("killed by SIGSEGV"))
        host.settle()
        XCTAssertEqual(
            host.events.of(.error, guest: "org.test.b").last?.message, "crashed outside any callback: killed by SIGSEGV"
        )
        let status = try XCTUnwrap(host.guest("org.test.b"))
        XCTAssertEqual(status.appState, .notRunning)
        XCTAssertEqual(status.lastReason, .crash)
        XCTAssertEqual(status.scenes.first?.savedBytes, 1)
        XCTAssertEqual(host.guest("org.test.a")?.appState, .active, "the other guest is unaffected")
    }

    // CONTRACT X2: the callback a guest dies in is the oldest one it has not answered.
    func testGuestThatDiesInACallbackIsReportedWithIt() throws {
        let guest = try XCTUnwrap(host.opener.guests["org.test.a"])
        guest.holdReplies = true
        host.run { $0.scenes.home() }
        guest.emit(.died("exited with status 3"))
        host.settle()
        XCTAssertEqual(
            host.events.of(.error, guest: "org.test.a").last?.message,
            "crashed in will_resign_active: exited with status 3")
        XCTAssertEqual(host.guest("org.test.a")?.appState, .notRunning)
    }

    private final class MessageBox: @unchecked Sendable {
        // Written on the host queue inside `run`, read after it returns.
        var message: String?
    }
}
