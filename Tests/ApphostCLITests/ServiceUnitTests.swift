import Foundation
import XCTest

/// CONTRACT O3: the systemd unit the package installs (dist/apphost.service) is one systemd
/// accepts, and a stuck host is killed within seconds of its watchdog firing.
final class ServiceUnitTests: XCTestCase {
    private var unit: String { TestGuests.packageRoot.appendingPathComponent("dist/apphost.service").path }

    // systemd-analyze verify reads it as systemd would (with ExecStart's binary where the package
    // puts it replaced by the one built here) and finds nothing to say.
    func testO3TheUnitVerifies() throws {
        let scratch = NSTemporaryDirectory() + "apphost-unit-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let text = try String(contentsOfFile: unit, encoding: .utf8)
            .replacingOccurrences(of: "/usr/bin/apphost", with: try BuildProducts.apphost())
        try text.write(toFile: scratch + "/apphost.service", atomically: true, encoding: .utf8)
        let verify = Process()
        verify.executableURL = URL(fileURLWithPath: "/usr/bin/systemd-analyze")
        verify.arguments = ["verify", scratch + "/apphost.service"]
        let output = Pipe()
        verify.standardOutput = output
        verify.standardError = output
        try verify.run()
        let said = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        verify.waitUntilExit()
        XCTAssertEqual(verify.terminationStatus, 0, said)
        XCTAssertEqual(said, "", "systemd-analyze verify has something to say")
    }

    // A host whose watchdog fired (SIGABRT) or that did not stop in time is killed 10 s later, not
    // after another TimeoutStopSec (60 s), systemd's default for the abort.
    func testO3AStuckHostIsKilledWithinSeconds() throws {
        let settings = try String(contentsOfFile: unit, encoding: .utf8).split(separator: "\n")
            .filter { !$0.hasPrefix("#") && $0.contains("=") }
            .reduce(into: [String: String]()) { settings, line in
                let parts = line.split(separator: "=", maxSplits: 1)
                settings[String(parts[0])] = String(parts[1])
            }
        XCTAssertEqual(settings["TimeoutAbortSec"], "10s")
        XCTAssertEqual(settings["WatchdogSec"], "10")
    }
}
