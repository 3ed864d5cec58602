import ApphostCore
import Foundation
import XCTest

/// The event stream's two forms: one flat JSON object a line, and one human line.
final class HostEventFormatTests: XCTestCase {
    private let event = HostEvent(
        time: Date(timeIntervalSince1970: 1_800_000_000.25), kind: .appState, guest: "org.test.a",
        from: "background", to: "active", reason: .requested)

    // CONTRACT A5: the reason travels with the transition in both forms.
    func testJSONLineIsFlatAndRoundTrips() throws {
        let line = event.jsonLine()
        XCTAssertFalse(line.contains("\n"))
        XCTAssertEqual(
            line,
            #"{"event":"app-state","from":"background","guest":"org.test.a","reason":"requested","time":"2027-01-15T08:00:00.250Z","to":"active"}"#
        )
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601withFractionalSeconds
        XCTAssertEqual(try decoder.decode(HostEvent.self, from: Data(line.utf8)), event)
    }

    func testHumanLineNamesTransitionAndReason() {
        XCTAssertTrue(
            event.humanLine.hasSuffix("app-state org.test.a background -> active (requested)"), event.humanLine)
    }
}
