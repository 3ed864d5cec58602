import ApphostControl
import ApphostVocabulary
import XCTest

/// Where `ctl` and `launch` look for a host: `--data-dir` before or after the ctl subcommand, else
/// `$APPHOST_DATA_DIR`, else the XDG default.
final class DataDirectoryTests: HostTestCase {
    // The options every ctl subcommand shares go before the subcommand too, as with systemctl or
    // docker; the environment variable reaches the same host.
    func testCtlFindsTheHostByTheFlagBeforeOrAfterTheSubcommandOrByTheEnvironment() throws {
        let host = try startHost([BuildProducts.cSample])
        try host.waitForLog(Self.cID, "callback did_become_active", prefix: true)
        let elsewhere = ["XDG_STATE_HOME": scratch.path + "/xdg"]
        let ways: [(String, [String], [String: String])] = [
            ("before", ["ctl", "--data-dir", dataDirectory, "ps", "--json"], elsewhere),
            ("after", ["ctl", "ps", "--json", "--data-dir", dataDirectory], elsewhere),
            ("json before", ["ctl", "--json", "--data-dir", dataDirectory, "ps"], elsewhere),
            ("environment", ["ctl", "ps", "--json"], elsewhere.merging(["APPHOST_DATA_DIR": dataDirectory]) { $1 }),
            (
                "the flag over the environment", ["ctl", "--data-dir", dataDirectory, "ps", "--json"],
                elsewhere.merging(["APPHOST_DATA_DIR": scratch.path + "/none"]) { $1 }
            ),
        ]
        for (way, arguments, environment) in ways {
            let result = try runApphost(arguments, environment: environment)
            XCTAssertEqual(result.status, 0, "\(way): \(result.stderr)")
            let status = try? ControlCoding.decode(HostStatus.self, from: result.stdout.joined())
            XCTAssertEqual(status?.foreground, Self.cID, "\(way): \(result.stdout)")
        }
        // A nested subcommand takes them before `ctl`'s subcommand, or before its own, as well.
        let session = try XCTUnwrap(try status().guest(Self.cID)?.scenes.first?.session)
        for arguments in [
            ["ctl", "--data-dir", dataDirectory, "--json", "layout", "full", session],
            ["ctl", "layout", "--data-dir", dataDirectory, "--json", "full", session],
        ] {
            let layout = try runApphost(arguments)
            XCTAssertEqual(layout.status, 0, "\(arguments): \(layout.stderr)")
            let reply = try? ControlCoding.decode(ControlMessage.self, from: layout.stdout.joined())
            XCTAssertEqual(reply?.message.hasPrefix("layout: full"), true, "\(arguments): \(layout.stdout)")
        }
    }

    // The environment variable is below the flag and above the XDG default for launch too: a
    // second host on the same directory is refused.
    func testLaunchTakesTheDataDirectoryFromTheEnvironment() throws {
        let host = try startHost([BuildProducts.cSample])
        try host.waitForLog(Self.cID, "callback did_become_active", prefix: true)
        let second = try runApphost(
            ["launch", try BuildProducts.path(BuildProducts.cSample)],
            environment: ["APPHOST_DATA_DIR": dataDirectory, "XDG_STATE_HOME": scratch.path + "/xdg"])
        assertOneLineError(second, containing: "already running with data dir \(dataDirectory)")
    }

    // A bad value gets a one-line error that names where it came from.
    func testBadDataDirectoriesAreOneLineErrors() throws {
        assertOneLineError(try runApphost(["ctl", "--data-dir", "", "ps"]), containing: "--data-dir must not be empty")
        assertOneLineError(
            try runApphost(["ctl", "ps"], environment: ["APPHOST_DATA_DIR": ""]),
            containing: "APPHOST_DATA_DIR must not be empty")
        let long = "/tmp/" + String(repeating: "d", count: 120)
        assertOneLineError(
            try runApphost(["ctl", "ps"], environment: ["APPHOST_DATA_DIR": long]), containing: "choose a shorter")
        assertOneLineError(
            try runApphost(["ctl", "--data-dir", scratch.path + "/none", "ps"]), containing: "no host is running")
    }
}
