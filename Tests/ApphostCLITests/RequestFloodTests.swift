import ApphostControl
import ApphostModel
import ApphostVocabulary
import Foundation
import XCTest

/// A guest whose thread floods the host with audio session requests (activate, deactivate, in a
/// tight loop), beside the C sample: what it does costs only itself (CONTRACT X2, X7).
class RequestFloodCases: HostTestCase {
    // CONTRACT X2, X7: with `--worker-nice 0` (the guest's worker as favoured as the host), the
    // host answers `ctl ps` all along; the flooding guest is throttled (its runtime refuses the
    // excess with limit_reached, and the host says so once, in a `throttled` event naming it),
    // then stopped, with the reason `flooding` in the events and in `ctl ps`; the C sample keeps
    // running and answering, and SIGTERM still ends the host with 0.
    func aGuestFlappingItsAudioSessionIsThrottledThenStoppedAndHarmsNoOne() throws {
        let flapping = try TestGuests.audioFlapping(into: scratch.path)
        let id = TestGuests.audioFlappingID
        // No automatic suspension: a suspended guest's worker is frozen, and it floods no more.
        let host = try startHost(
            [BuildProducts.cSample, flapping], options: ["--worker-nice", "0", "--suspend-delay", "3600"])
        try host.waitForLog(id, "flapping")

        // X2: the host answers while the guest floods, and the other guest runs.
        for _ in 0..<3 {
            let status = try answeredStatus()
            XCTAssertEqual(status.guest(Self.cID)?.phase, .running)
            XCTAssertEqual(status.guest(id)?.phase, .running)
        }

        // Throttled: its runtime answers the excess with limit_reached, and the host says so.
        let refused = try host.waitForEvent("the runtime's refusal", timeout: 20) { event in
            guard event.kind == .log, event.guest == id, let text = event.message else { return false }
            return text.hasSuffix("refused: limit_reached")
        }
        XCTAssertNotNil(refused.message)
        let throttled = try host.waitForEvent("a throttled event", timeout: 20) {
            $0.kind == .throttled && $0.guest == id
        }
        XCTAssertEqual(throttled.reason, .flooding)

        XCTAssertEqual(try answeredStatus().guest(Self.cID)?.phase, .running)

        // It keeps on: stopped, with its reason where the operator looks.
        let terminated = try host.waitForEvent("its termination", timeout: 30) {
            $0.kind == .terminated && $0.guest == id
        }
        XCTAssertEqual(terminated.reason, .flooding, terminated.humanLine)
        let status = try answeredStatus()
        XCTAssertEqual(status.guest(id)?.phase, .notRunning)
        XCTAssertEqual(status.guest(id)?.lastReason, .flooding)
        let table = try runApphost(ctlArguments("ps"), timeout: 10)
        XCTAssertEqual(table.status, 0, "\(table.stderr)")
        XCTAssertTrue(
            table.stdout.contains { $0.contains("org.apphost.fixtures.audio-flapping") && $0.contains("flooding") },
            "\(table.stdout)")
        // Told once for the episode, not once a request.
        XCTAssertEqual(host.events.filter { $0.kind == .throttled && $0.guest == id }.count, 1)

        // The other guest is unharmed.
        XCTAssertEqual(try runApphost(ctlArguments("home"), timeout: 10).status, 0)
        XCTAssertEqual(try runApphost(ctlArguments("switch", Self.cID), timeout: 10).status, 0)
        let after = try answeredStatus()
        XCTAssertEqual(after.guest(Self.cID)?.phase, .running)
        XCTAssertEqual(after.guest(Self.cID)?.appState, .active)

        host.signal(SIGTERM)
        XCTAssertEqual(try host.waitForExit(timeout: 10), 0)
    }

    // MARK: Helpers

    /// `ctl ps --json` within 10 s, however busy the host is.
    func answeredStatus(file: StaticString = #filePath, line: UInt = #line) throws -> HostStatus {
        let result = try runApphost(ctlArguments("ps", "--json"), timeout: 10, file: file, line: line)
        XCTAssertEqual(result.status, 0, "ps failed: \(result.stderr)", file: file, line: line)
        return try ControlCoding.decode(HostStatus.self, from: result.stdout.joined())
    }

    func ctlArguments(_ arguments: String...) -> [String] { ["ctl"] + arguments + ["--data-dir", dataDirectory] }
}

final class RequestFloodTests: RequestFloodCases {
    func testX2X7AGuestFlappingItsAudioSessionIsThrottledThenStoppedAndHarmsNoOne() throws {
        try aGuestFlappingItsAudioSessionIsThrottledThenStoppedAndHarmsNoOne()
    }
}

/// The same with the guests in the host's process.
final class RequestFloodInProcessTests: RequestFloodCases {
    override class var isolation: String? { "none" }

    func testX2X7AGuestFlappingItsAudioSessionIsThrottledThenStoppedAndHarmsNoOne() throws {
        try aGuestFlappingItsAudioSessionIsThrottledThenStoppedAndHarmsNoOne()
    }
}
