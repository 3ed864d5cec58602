import Foundation
import XCTest

/// One version in one place (Sources/ApphostVersion/include/apphost_version.h): `apphost
/// --version` and `apphost-worker --version` print it, and nothing else, with exit 0.
final class VersionTests: XCTestCase {
    /// The version the header defines: `#define APPHOST_VERSION "<version>"`.
    private func headerVersion() throws -> String {
        // This file is Tests/ApphostCLITests/VersionTests.swift.
        let checkout = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let header = checkout.appendingPathComponent("Sources/ApphostVersion/include/apphost_version.h")
        let text = try String(contentsOf: header, encoding: .utf8)
        let prefix = "#define APPHOST_VERSION \""
        let line = try XCTUnwrap(
            text.split(separator: "\n").first { $0.hasPrefix(prefix) && $0.hasSuffix("\"") },
            "no \(prefix)...\" line in \(header.path)")
        return String(line.dropFirst(prefix.count).dropLast())
    }

    func testApphostAndWorkerPrintTheHeadersVersion() throws {
        let version = try headerVersion()
        XCTAssertFalse(version.isEmpty)
        for executable in ["apphost", "apphost-worker"] {
            let result = try runCommand(try BuildProducts.path(executable), ["--version"])
            XCTAssertEqual(result.status, 0, "\(executable) --version: \(result.stderr)")
            XCTAssertEqual(result.stdout, [version], "\(executable) --version")
            XCTAssertEqual(result.stderr, [], "\(executable) --version")
            XCTAssertTrue(result.stdoutEndsInNewline, "\(executable) --version")
        }
    }
}
