import ApphostControl
import ApphostCore
import Foundation
import XCTest

/// The web app switcher in a real browser (issue 18, point 4): a host with two guests and its
/// HTTP API on a free loopback port, headless Chromium driven through the DevTools protocol by
/// `Browser/switcher_driver.py`, which screenshots the page, clicks its Home button and waits
/// for the page to show the foreground guest in background; then the host itself must say so.
final class SwitcherBrowserTests: HostTestCase {
    static let notesID = "org.apphost.samples.notes"
    static let notes = "libSwiftNotesGuest.so"

    override class var stopsHostsGracefully: Bool { true }

    static let driver = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Browser/switcher_driver.py").path

    // CONTRACT O1: the operator's commands through the HTTP API, from the page a person uses.
    func testHomeButtonSendsTheForegroundGuestToBackground() throws {
        try requireChromium()
        // A free port; the host says which at info level (this --log-level comes after, and wins
        // over, the warning level HostProcess asks for).
        let host = try startHost(
            [BuildProducts.cSample, Self.notes], options: ["--http", "127.0.0.1:0", "--log-level", "info"])
        try host.waitForLog(Self.cID, "callback did_become_active", prefix: true)
        try host.waitForLog(Self.notesID, "connected list: ", prefix: true)
        let before = try status()
        XCTAssertEqual(before.foreground, Self.cID)
        XCTAssertEqual(before.guest(Self.notesID)?.appState, .background)

        let url = try httpURL(of: host)
        let screenshot = scratch.path + "/switcher.png"
        let mark = host.events.count
        let result = try runCommand(
            "/usr/bin/env",
            ["python3", Self.driver, url, "--guests", "2", "--screenshot", screenshot, "--timeout", "40"],
            timeout: 60)
        guard result.status == 0, result.stdout.count == 1 else {
            XCTFail("the driver failed (\(result.status)): \((result.stderr + result.stdout).joined(separator: "\n"))")
            throw HostTestFailure()
        }
        let summary = try JSONDecoder().decode(DriverSummary.self, from: Data(result.stdout.joined().utf8))

        // What the page showed, before and after the click.
        XCTAssertEqual(summary.foregroundBefore, Self.cID)
        XCTAssertEqual(summary.before[Self.cID], "active")
        XCTAssertEqual(summary.before[Self.notesID], "background")
        XCTAssertNil(summary.foregroundAfter)
        XCTAssertEqual(summary.after[Self.cID], "background")
        XCTAssertEqual(summary.pageErrors, [], "the page threw or logged errors")
        XCTAssertGreaterThan(summary.eventsListed, 0, "the page lists no events from the stream")

        // The host's own state changed, through the page's request.
        try host.waitForEvent("the C sample going to background", after: mark) {
            $0.kind == .appState && $0.guest == Self.cID && $0.to == "background" && $0.reason == .requested
        }
        let after = try status()
        XCTAssertNil(after.foreground)
        XCTAssertEqual(after.guest(Self.cID)?.appState, .background)
        XCTAssertEqual(after.guest(Self.cID)?.lastReason, .requested)
        XCTAssertEqual(after.guest(Self.notesID)?.appState, .background)

        // A PNG of the driver's window size, 1280x800.
        let png = try Data(contentsOf: URL(fileURLWithPath: screenshot))
        XCTAssertEqual(Array(png.prefix(8)), [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        XCTAssertGreaterThan(png.count, 10_000, "a page with two cards is more than a blank PNG")
        XCTAssertEqual(png.count > 24 ? bigEndian(png, at: 16) : 0, 1280)
        XCTAssertEqual(png.count > 24 ? bigEndian(png, at: 20) : 0, 800)
        // APPHOST_SWITCHER_SCREENSHOT=docs/switcher.png keeps it, for README.md and docs/operating.md.
        if let keep = ProcessInfo.processInfo.environment["APPHOST_SWITCHER_SCREENSHOT"], !keep.isEmpty {
            try? FileManager.default.removeItem(atPath: keep)
            try FileManager.default.copyItem(atPath: screenshot, toPath: keep)
        }
    }

    // MARK: - Helpers

    private struct DriverSummary: Decodable {
        var foregroundBefore: String?
        var foregroundAfter: String?
        var before: [String: String]
        var after: [String: String]
        var pageErrors: [String]
        var eventsListed: Int
    }

    private func bigEndian(_ data: Data, at offset: Int) -> UInt32 {
        data.dropFirst(offset).prefix(4).reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// Fails, saying how to install it, when there is no Chromium: `scripts/setup` installs it.
    private func requireChromium() throws {
        let found = try runCommand("/usr/bin/env", ["sh", "-c", "command -v chromium && command -v python3"])
        guard found.status == 0 else {
            XCTFail("no chromium or python3 on PATH: run scripts/setup (Debian: apt-get install chromium python3)")
            throw HostTestFailure()
        }
    }

    /// The switcher's address, where the host says its HTTP API listens.
    private func httpURL(of host: HostProcess) throws -> String {
        let address = try host.httpAddress()
        return "http://\(address.host):\(address.port)/"
    }
}
