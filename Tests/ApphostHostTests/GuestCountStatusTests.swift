import ApphostService
import ApphostVocabulary
import Foundation
import Synchronization
import XCTest

/// The service manager's status line as guests come and go (CONTRACT O3).
final class GuestCountStatusTests: XCTestCase {
    private final class Said: Sendable {
        let lines = Mutex<[String]>([])
        var all: [String] { lines.withLock { $0 } }
    }

    private func appState(_ guest: String, _ to: String) -> HostEvent {
        HostEvent(time: Date(), kind: .appState, guest: guest, to: to)
    }

    // CONTRACT O3: nothing before reporting starts (READY=1 has its own status); then each
    // change of the line, once.
    func testO3ChangesAreSaidOnceReportingHasBegun() {
        let said = Said()
        let status = GuestCountStatus { line in said.lines.withLock { $0.append(line) } }
        status.observe(appState("a", "active"))
        XCTAssertEqual(said.all, [])
        status.startReporting()
        status.observe(appState("b", "background"))
        status.observe(appState("b", "background"))
        status.observe(appState("a", "notRunning"))
        XCTAssertEqual(said.all, ["2 guests, 1 active", "1 guest, 0 active"])
    }

    // CONTRACT O3: once shutdown has stopped the reporting, a start that comes late (READY=1's
    // completion on the host queue, after SIGTERM on the main queue) says nothing after STOPPING.
    func testO3AStartAfterTheStopSaysNothing() {
        let said = Said()
        let status = GuestCountStatus { line in said.lines.withLock { $0.append(line) } }
        status.observe(appState("a", "active"))
        status.stopReporting()
        status.startReporting()
        status.observe(appState("a", "notRunning"))
        XCTAssertEqual(said.all, [])
    }
}
