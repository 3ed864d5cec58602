import ApphostVocabulary
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

    // CONTRACT X2 X7: what a guest says reaches the operator's terminal as text, never as control:
    // in the human line every control character of a log message, a title or a name is escaped
    // (CR, LF and ESC by name, the rest of C0 and DEL as \xNN, C1 and the Unicode line breaks
    // and direction overrides as \u{N}), so that one event is one line, a guest cannot move the
    // cursor back over it, set the window title or pass for the host; a tab stays a tab. The JSON
    // line carries the exact text.
    func testX2X7HumanLineEscapesControlCharacters() throws {
        let text = "before\r\u{1B}]0;pwned\u{07}forged\nafter\u{7F}\u{9B}2J\u{85}\u{2028}\u{202E}\u{0}\tend \\e"
        let log = HostEvent(
            time: Date(timeIntervalSince1970: 1_800_000_000.25), kind: .log, guest: "org.test.a", level: .info,
            message: text)
        let human = log.humanLine
        XCTAssertTrue(
            human.hasSuffix(
                #"[info] before\r\e]0;pwned\x07forged\nafter\x7F\u{9B}2J\u{85}\u{2028}\u{202E}\x00"# + "\tend \\e"),
            human)
        XCTAssertFalse(human.unicodeScalars.contains { $0.properties.generalCategory == .control && $0 != "\t" })
        XCTAssertEqual(human.split(whereSeparator: \.isNewline).count, 1)

        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601withFractionalSeconds
        XCTAssertEqual(try decoder.decode(HostEvent.self, from: Data(log.jsonLine().utf8)).message, text)

        // Every field a guest gives: a notification's title, a scene's title, an unidentified
        // guest's path.
        let titled = HostEvent(
            time: Date(timeIntervalSince1970: 1_800_000_000.25), kind: .notification, guest: "/tmp/\u{1B}[2Jx.so",
            name: "title\r\n", message: "body\u{1B}[1A")
        XCTAssertTrue(
            titled.humanLine.hasSuffix(#"notification /tmp/\e[2Jx.so "title\r\n" body\e[1A"#), titled.humanLine)
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
