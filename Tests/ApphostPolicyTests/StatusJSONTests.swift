import ApphostPolicy
import ApphostPolicyTesting
import ApphostVocabulary
import Foundation
import XCTest

/// `ctl ps --json` is read by tools such as jq: states are names and layouts plain objects.
final class StatusJSONTests: XCTestCase {
    func testStatusEncodesStatesByNameAndLayoutsAsPlainObjects() throws {
        let host = CoreHarness(scenes: ScenePolicy(displayWidth: 1000, displayHeight: 800))
        let (a, b) = try launchTwo(host)
        host.run { $0.scenes.changeLayout(.split(a, b, ratio: 0.5)) }
        let guest = try XCTUnwrap(host.opener.guests["org.test.a"])
        host.run { _ in guest.emit(.loadingProgress(1, .fraction(0.25))) }
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601withFractionalSeconds
        let data = try encoder.encode(host.status())
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let first = try XCTUnwrap((json["guests"] as? [[String: Any]])?.first)
        XCTAssertEqual(first["appState"] as? String, "active")
        let scene = try XCTUnwrap((first["scenes"] as? [[String: Any]])?.first)
        XCTAssertEqual(scene["state"] as? String, "foregroundActive")
        XCTAssertEqual(scene["role"] as? String, "primary")
        XCTAssertEqual(scene["loading"] as? Double, 0.25)
        XCTAssertEqual((scene["size"] as? [String: Any])?["sizeClass"] as? String, "compact")
        let main = try XCTUnwrap((json["layout"] as? [String: Any])?["main"] as? [String: Any])
        XCTAssertEqual(main["mode"] as? String, "split")
        XCTAssertEqual(main["ratio"] as? Double, 0.5)
        XCTAssertEqual((main["scenes"] as? [[String: Any]])?.compactMap { $0["session"] as? String }, [a, b])

        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601withFractionalSeconds
        XCTAssertEqual(try decoder.decode(HostStatus.self, from: data), host.status(), "and back")
    }
}
