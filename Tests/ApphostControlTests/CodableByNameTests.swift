import ApphostModel
import ApphostVocabulary
import Foundation
import XCTest

/// The enums `ctl ps --json` and the event stream carry by name (`CodableByName`): each case's
/// wire name, in the order of its C raw value, is pinned here, so that a renamed case or a new
/// one cannot change what tools such as jq read without a test saying so.
final class CodableByNameTests: XCTestCase {
    func testEachCaseTravelsPrintsAndReadsAsItsName() throws {
        try check(AppState.self, ["notRunning", "inactive", "active", "background", "suspended"])
        try check(SceneState.self, ["unattached", "foregroundInactive", "foregroundActive", "background"])
        try check(SceneRole.self, ["primary", "auxiliary"])
        try check(PresentationStyle.self, ["automatic", "standard", "prominent"])
        try check(ModalStyle.self, ["sheet", "fullScreen"])
        try check(SizeClass.self, ["compact", "regular"])
        try check(AudioCategory.self, ["ambient", "soloAmbient", "playback", "record", "playAndRecord"])
        try check(AudioMode.self, ["default", "spokenAudio", "moviePlayback", "voiceChat", "videoChat"])
        try check(GuestLogLevel.self, ["trace", "debug", "info", "warning", "error"])
    }

    func testAnUnknownNameIsRefusedWithItsType() {
        XCTAssertThrowsError(try JSONDecoder().decode([SceneState].self, from: Data(#"["asleep"]"#.utf8))) { error in
            guard case DecodingError.dataCorrupted(let context) = error else {
                return XCTFail("expected dataCorrupted, got \(error)")
            }
            XCTAssertEqual(context.debugDescription, "unknown SceneState asleep")
        }
        XCTAssertThrowsError(try JSONDecoder().decode([AppState].self, from: Data("[2]".utf8)), "not its raw value")
    }

    func testAValueThatHoldsOnePrintsItsName() throws {
        let size = SceneSize(width: 1024, height: 768, sizeClass: .regular)
        XCTAssertEqual(size.description, "1024x768 regular")
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        XCTAssertEqual(
            String(decoding: try encoder.encode(size), as: UTF8.self),
            #"{"height":768,"sizeClass":"regular","width":1024}"#)
    }

    private func check<Value: CodableByName & Equatable>(
        _ type: Value.Type, _ names: [String], line: UInt = #line
    ) throws {
        XCTAssertEqual(type.allCases.map(\.rawValue), Array(0..<Int32(names.count)), "raw values", line: line)
        for (value, name) in zip(type.allCases, names) {
            XCTAssertEqual(value.description, name, line: line)
            XCTAssertEqual("\(value)", name, line: line)
            let encoded = try JSONEncoder().encode([value])
            XCTAssertEqual(String(decoding: encoded, as: UTF8.self), #"["\#(name)"]"#, line: line)
            XCTAssertEqual(try JSONDecoder().decode([Value].self, from: encoded), [value], line: line)
        }
    }
}
