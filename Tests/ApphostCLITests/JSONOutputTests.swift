import Foundation
import XCTest

/// What `--json` prints: one JSON object a line, each line ending in a newline, so that tools
/// that read lines (jq, shell `read`, `wc -l`) see all of it. The streams (`launch --json`, `ctl
/// events --json`) are read line by line by every other test; these are the one-shot outputs.
final class JSONOutputTests: HostTestCase {
    func testEveryOneShotJSONOutputIsOneLineEndingInANewline() throws {
        let sample = try BuildProducts.path(BuildProducts.cSample)
        let host = try startHost([BuildProducts.cSample])
        try host.waitForLog(Self.cID, "callback did_become_active", prefix: true)
        let commands: [[String]] = [
            ["inspect", "--json", sample],
            ["inspect", "--json", "--isolation", "none", sample],
            ["ctl", "ps", "--json", "--data-dir", dataDirectory],
            ["ctl", "home", "--json", "--data-dir", dataDirectory],
            ["ctl", "switch", Self.cID, "--json", "--data-dir", dataDirectory],
            ["ctl", "alert", "--json", "--data-dir", dataDirectory],
        ]
        for arguments in commands {
            let result = try runApphost(arguments)
            XCTAssertEqual(result.status, 0, "\(arguments): \(result.stderr)")
            XCTAssertEqual(result.stdout.count, 1, "\(arguments): one line, got \(result.stdout)")
            XCTAssertTrue(result.stdoutEndsInNewline, "\(arguments): no newline after \(result.stdout)")
            let object = try? JSONSerialization.jsonObject(with: Data(result.stdout.joined().utf8))
            XCTAssertTrue(object is [String: Any], "\(arguments): not a JSON object: \(result.stdout)")
        }
    }
}
