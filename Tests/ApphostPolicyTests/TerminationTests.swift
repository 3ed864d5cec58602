import ApphostPolicy
import ApphostPolicyTesting
import Foundation
import XCTest

/// Termination, failed launches, crashes, saved state and reasons, on the host core.
final class TerminationTests: XCTestCase {
    private var host: CoreHarness!

    override func setUp() {
        host = CoreHarness()
    }

    private func launch(_ id: String, foreground: Bool = true) {
        host.run { $0.launch(path: id, foreground: foreground) }
    }

    // CONTRACT A3, S3, S12: a running guest goes to background (so it saves), gets will-terminate,
    // is unloaded; its saved state survives and comes back when it relaunches.
    func testTerminateThenRelaunchRestoresState() throws {
        let guest = host.opener.add("org.test.a")
        launch("org.test.a")
        guest.emit(.saveSceneState(1, Data("7".utf8)))
        host.settle()
        host.run { $0.terminate("org.test.a") }
        XCTAssertEqual(
            host.calls.names().suffix(3),
            ["org.test.a:will_resign_active@1", "org.test.a:did_enter_background@1", "org.test.a:will_terminate"])
        XCTAssertEqual(guest.closes, 1)
        let status = try XCTUnwrap(host.guest("org.test.a"))
        XCTAssertEqual(status.appState, .notRunning)
        XCTAssertEqual(status.scenes.first?.state, .unattached)
        XCTAssertEqual(status.scenes.first?.savedBytes, 1)

        host.run { $0.switchTo("org.test.a") }
        XCTAssertEqual(guest.opens, 2, "switching to a terminated guest relaunches it")
        guard
            case .sceneWillConnect(let connection) = host.calls.calls.first(where: {
                if case .sceneWillConnect(let c) = $0.message.call { return c.scene != 1 }
                return false
            })?.message.call
        else { return XCTFail("no reconnection") }
        XCTAssertEqual(connection.restorationData, Data("7".utf8))
        XCTAssertEqual(connection.sessionID, status.scenes.first?.session, "the session survives (S8)")
        XCTAssertEqual(host.guest("org.test.a")?.appState, .active)
    }

    // CONTRACT A2: a launch that fails is reported with its reason, no scene connects, and the
    // guest is unloaded: never half-running.
    func testFailedLaunchIsNeverHalfRunning() throws {
        let guest = host.opener.add("org.test.a")
        guest.launchStatus = 7
        launch("org.test.a")
        XCTAssertEqual(host.calls.names(), ["org.test.a:did_finish_launching"])
        XCTAssertEqual(guest.closes, 1)
        XCTAssertEqual(host.guest("org.test.a")?.appState, .notRunning)
        let failure = try XCTUnwrap(host.events.of(.launchFailed).first?.message)
        XCTAssertTrue(failure.contains("guest_failed"), failure)
        XCTAssertNil(host.status().foreground)
    }

    // CONTRACT X1: a file that does not load is reported; the host keeps its other guests.
    func testLoadErrorLeavesOtherGuestsRunning() throws {
        _ = host.opener.add("org.test.a")
        launch("org.test.a")
        launch("/tmp/not-a-guest.txt")
        XCTAssertEqual(host.events.of(.launchFailed).first?.message, "/tmp/not-a-guest.txt: not an ELF file")
        XCTAssertEqual(host.guest("org.test.a")?.appState, .active)
        XCTAssertEqual(host.status().guests.count, 1)
    }

    // CONTRACT A3, A5: shutdown terminates every running guest with reason shutdown.
    func testShutdownTerminatesEveryGuest() throws {
        _ = host.opener.add("org.test.a")
        _ = host.opener.add("org.test.b")
        launch("org.test.a")
        launch("org.test.b", foreground: false)
        let done = expectation(description: "shutdown")
        host.run { $0.shutdown { done.fulfill() } }
        wait(for: [done], timeout: 5)
        XCTAssertTrue(host.calls.names("org.test.a").contains("org.test.a:will_terminate"))
        XCTAssertTrue(host.calls.names("org.test.b").contains("org.test.b:will_terminate"))
        XCTAssertEqual(host.events.of(.terminated).compactMap(\.reason), [.shutdown, .shutdown])
        XCTAssertTrue(host.status().guests.allSatisfy { $0.appState == .notRunning })
    }

    // CONTRACT A5: every app and scene transition carries a reason.
    func testEveryTransitionCarriesAReason() throws {
        _ = host.opener.add("org.test.a")
        _ = host.opener.add("org.test.b")
        launch("org.test.a")
        launch("org.test.b", foreground: false)
        host.run { $0.switchTo("org.test.b") }
        host.run { $0.terminate("org.test.a") }
        let transitions = host.events.of(.appState) + host.events.of(.sceneState)
        XCTAssertGreaterThan(transitions.count, 8)
        XCTAssertTrue(transitions.allSatisfy { $0.reason != nil })
        XCTAssertEqual(host.guest("org.test.a")?.lastReason, .requested)
        XCTAssertEqual(
            host.events.of(.sceneState, guest: "org.test.b").first?.reason, .automatic,
            "background connect is automatic")
    }

    // CONTRACT X2: a guest that dies in a callback is reported with the callback and cause; its
    // scenes become unattached and keep their saved state.
    func testCrashInCallbackKeepsSavedState() throws {
        let guest = host.opener.add("org.test.a")
        launch("org.test.a")
        guest.emit(.saveSceneState(1, Data("42".utf8)))
        guest.crashOn = "will_resign_active"
        host.settle()
        host.run { $0.scenes.home() }
        let status = try XCTUnwrap(host.guest("org.test.a"))
        XCTAssertEqual(status.appState, .notRunning)
        XCTAssertEqual(status.lastReason, .crash)
        XCTAssertEqual(status.scenes.first?.state, .unattached)
        XCTAssertEqual(status.scenes.first?.savedBytes, 2)
        XCTAssertEqual(host.events.of(.error).first?.message, "crashed in will_resign_active: SIGSEGV")
    }

    // Commands on unknown or stopped guests are refused with one line.
    func testCommandsOnUnknownGuestsAreRefused() throws {
        _ = host.opener.add("org.test.a")
        launch("org.test.a")
        let box = Box()
        host.run {
            $0.switchTo("org.test.zzz") {
                if case .failure(let error) = $0 { box.error = error.message }
            }
        }
        XCTAssertEqual(box.error, "no guest org.test.zzz (loaded: org.test.a)")
        host.run { $0.terminate("org.test.a") }
        host.run {
            $0.terminate("org.test.a") {
                if case .failure(let error) = $0 { box.error = error.message }
            }
        }
        XCTAssertEqual(box.error, "org.test.a is not running (notRunning)")
    }

    // CONTRACT A2: the same guest id cannot run twice.
    func testSecondLaunchOfARunningGuestIsRefused() throws {
        let guest = host.opener.add("org.test.a")
        launch("org.test.a")
        launch("org.test.a")
        XCTAssertEqual(guest.closes, 1, "the second copy is closed at once")
        XCTAssertEqual(
            host.events.of(.launchFailed).first?.message, "org.test.a: a guest with id org.test.a is already loaded")
        XCTAssertEqual(host.guest("org.test.a")?.appState, .active)
    }

    private final class Box: @unchecked Sendable {
        // Written on the host queue inside `run`, read after it returns.
        var error: String?
    }
}
