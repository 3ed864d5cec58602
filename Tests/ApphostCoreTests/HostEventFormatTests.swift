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

    // Times whose milliseconds are not exact in binary keep their text through a round trip.
    func testTimestampsSurviveDecodeAndEncode() throws {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601withFractionalSeconds
        for milliseconds in [418, 417, 999, 1, 0, 123] {
            let time = Date(timeIntervalSince1970: 1_800_000_038 + Double(milliseconds) / 1000)
            let line = HostEvent(time: time, kind: .alert, name: "shown").jsonLine()
            XCTAssertTrue(line.contains(String(format: ":38.%03dZ", milliseconds)), line)
            XCTAssertEqual(try decoder.decode(HostEvent.self, from: Data(line.utf8)).jsonLine(), line)
        }
    }

    // A log event's level travels as "level", in both forms; "name" is left to other events.
    func testLogLevelHasAFieldOfItsOwn() throws {
        let log = HostEvent(
            time: Date(timeIntervalSince1970: 1_800_000_000.25), kind: .log, guest: "org.test.a", level: .warning,
            message: "disk almost full")
        XCTAssertEqual(
            log.jsonLine(),
            #"{"event":"log","guest":"org.test.a","level":"warning","message":"disk almost full","time":"2027-01-15T08:00:00.250Z"}"#
        )
        XCTAssertTrue(log.humanLine.hasSuffix("log org.test.a [warning] disk almost full"), log.humanLine)
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601withFractionalSeconds
        XCTAssertEqual(try decoder.decode(HostEvent.self, from: Data(log.jsonLine().utf8)), log)
    }

    func testHumanLineNamesTransitionAndReason() {
        XCTAssertTrue(
            event.humanLine.hasSuffix("app-state org.test.a background -> active (requested)"), event.humanLine)
    }
}

/// Durations as events and tables show them.
final class SecondsTextTests: XCTestCase {
    func testSecondsAreWrittenWithoutTrailingZeros() {
        XCTAssertEqual(Duration.seconds(10).secondsText, "10 s")
        XCTAssertEqual(Duration.milliseconds(250).secondsText, "0.25 s")
        XCTAssertEqual(Duration.milliseconds(1500).secondsText, "1.5 s")
        XCTAssertEqual(Duration.milliseconds(1).secondsText, "0.001 s")
        XCTAssertEqual(Duration.microseconds(1999).secondsText, "0.002 s", "rounded to the millisecond")
        XCTAssertEqual(Duration.zero.secondsText, "0 s")
        XCTAssertEqual(Duration.milliseconds(-1500).secondsText, "-1.5 s")
    }
}
