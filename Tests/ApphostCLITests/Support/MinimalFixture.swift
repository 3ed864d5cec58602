import Foundation
import XCTest

/// Plugins/Fixtures/minimal_guest.c built into a scratch directory: a valid guest that, unlike
/// the samples, ignores APPHOST_SAMPLE_FAIL_LAUNCH, so it can keep running while a sample fails.
enum MinimalFixture {
    static let id = "org.apphost.fixtures.minimal"

    static func build(into directory: String, file: StaticString = #filePath, line: UInt = #line) throws -> String {
        // Tests/ApphostCLITests/Support/<this file> -> the package root.
        let root = URL(fileURLWithPath: "\(#filePath)").deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let output = directory + "/libMinimalFixture.so"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "cc", "-std=c99", "-shared", "-fPIC", "-I", root.appendingPathComponent("sdk/include").path,
            root.appendingPathComponent("Plugins/Fixtures/minimal_guest.c").path, "-o", output,
        ]
        let messages = Pipe()
        process.standardOutput = messages
        process.standardError = messages
        try process.run()
        let text = String(decoding: messages.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            XCTFail(
                "cannot build the minimal fixture (is cc installed? run scripts/setup):\n\(text)", file: file,
                line: line)
            throw HostTestFailure()
        }
        return output
    }
}
