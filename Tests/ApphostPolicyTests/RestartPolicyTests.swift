import ApphostPolicy
import ApphostPolicyTesting
import ApphostVocabulary
import Foundation
import XCTest

/// The restart policy for crashed guests (CONTRACT X2), on the manual clock.
final class RestartPolicyTests: XCTestCase {
    private let policy = RestartPolicy(mode: .onFailure, burst: 3, interval: .seconds(10), delay: .milliseconds(100))

    private func crash(_ host: CoreHarness, _ id: String) {
        host.opener.guests[id]?.emit(.died("killed by SIGSEGV"))
        host.settle()
    }

    // CONTRACT X2: with on-failure, a crashed guest comes back after the delay, into the
    // foreground it had, with its saved state.
    func testCrashedGuestIsRestartedAfterTheDelay() throws {
        let host = CoreHarness(restartPolicy: policy)
        let guest = host.opener.add("org.test.a")
        host.run { $0.launch(path: "org.test.a", foreground: true) }
        guest.emit(.saveSceneState(1, Data("3".utf8)))
        crash(host, "org.test.a")
        XCTAssertEqual(host.guest("org.test.a")?.appState, .notRunning)
        host.advance(by: .milliseconds(99))
        XCTAssertEqual(guest.opens, 1, "not before the delay")
        host.advance(by: .milliseconds(1))
        XCTAssertEqual(guest.opens, 2)
        XCTAssertEqual(host.guest("org.test.a")?.appState, .active)
        XCTAssertEqual(host.guest("org.test.a")?.restart, RestartStatus(policy: .onFailure, restarts: 1, gaveUp: false))
        XCTAssertEqual(host.events.of(.restarting).map(\.message), ["restart 1"])
        guard
            case .sceneWillConnect(let connection) = host.calls.calls.last(where: {
                $0.message.call.callbackName == "will_connect"
            })?.message.call
        else { return XCTFail("no reconnection") }
        XCTAssertEqual(connection.restorationData, Data("3".utf8))
    }

    // CONTRACT X2: past `burst` restarts within `interval` the host gives up and says so once.
    func testBurstLimitStopsRestarts() throws {
        let host = CoreHarness(restartPolicy: policy)
        let guest = host.opener.add("org.test.a")
        host.run { $0.launch(path: "org.test.a", foreground: false) }
        for _ in 0..<3 {
            crash(host, "org.test.a")
            host.advance(by: .seconds(1))
        }
        XCTAssertEqual(guest.opens, 4)
        crash(host, "org.test.a")
        host.advance(by: .seconds(1))
        XCTAssertEqual(guest.opens, 4, "the fourth crash within 10 s is not restarted")
        let status = try XCTUnwrap(host.guest("org.test.a"))
        XCTAssertEqual(status.restart, RestartStatus(policy: .onFailure, restarts: 3, gaveUp: true))
        XCTAssertEqual(status.appState, .notRunning)
        XCTAssertEqual(host.events.of(.error).last?.message, "not restarting: 3 restarts within 10 s")
    }

    // Crashes spread wider than the interval never reach the limit.
    func testCrashesOutsideTheIntervalDoNotCount() throws {
        let host = CoreHarness(restartPolicy: policy)
        let guest = host.opener.add("org.test.a")
        host.run { $0.launch(path: "org.test.a", foreground: false) }
        for _ in 0..<6 {
            crash(host, "org.test.a")
            host.advance(by: .seconds(6))
        }
        XCTAssertEqual(guest.opens, 7)
        XCTAssertEqual(host.guest("org.test.a")?.restart.gaveUp, false)
    }

    // With the default policy a crashed guest stays down; an operator's terminate is no failure.
    func testNeverAndRequestedTerminationDoNotRestart() throws {
        let host = CoreHarness()
        let guest = host.opener.add("org.test.a")
        host.run { $0.launch(path: "org.test.a", foreground: false) }
        crash(host, "org.test.a")
        host.advance(by: .seconds(5))
        XCTAssertEqual(guest.opens, 1)

        let restarting = CoreHarness(restartPolicy: policy)
        let other = restarting.opener.add("org.test.b")
        restarting.run { $0.launch(path: "org.test.b", foreground: false) }
        restarting.run { $0.terminate("org.test.b") }
        restarting.advance(by: .seconds(5))
        XCTAssertEqual(other.opens, 1)
    }
}
