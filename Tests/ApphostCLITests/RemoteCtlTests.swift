import ApphostControl
import ApphostServiceTesting
import ApphostVocabulary
import Foundation
import XCTest

/// CONTRACT O4, O1: `apphost ctl --url` drives a host through its HTTP API with the same output
/// and exit status as through its control socket, verb by verb; and the exit status tells a host
/// that is not running (3) from one that refused (1), from a name it does not know (4), from a
/// request the verb's rules refuse (64).
final class RemoteCtlTests: HostTestCase {
    override class var stopsHostsGracefully: Bool { true }

    /// Each command, then what undoes it, so that the socket and the API each meet the host in
    /// the same state.
    private let commands: [(run: [String], undo: [String]?)] = [
        (["ps", "--state", "active"], nil),
        (["host", "--json"], nil),
        (["switch", swiftID], ["switch", cID]),
        (["suspend", swiftID], ["resume", swiftID]),
        (["memory-warning", cID], nil),
        (["alert"], ["alert", "--dismiss"]),
        (["audio", "silence", "on"], ["audio", "silence", "off"]),
        (["audio", "volume", "0.5"], ["audio", "volume", "1"]),
        (["audio", "route", "plug", "headphones"], ["audio", "route", "unplug", "headphones"]),
        (["logs", cID, "--json"], nil),
        // Refusals: of state, of a name, of the verb's own rules.
        (["resume", cID], nil),
        (["terminate", "org.example.nobody"], nil),
        (["terminate", "org.example.nobody", "--json"], nil),
        (["close", "nosuchscene"], nil),
        (["call", cID, "nosuchaction"], nil),
        (["audio", "volume", "-0.5"], nil),
        (["layout", "ratio", "0.95"], nil),
        (["events", "--after", "5"], nil),
    ]

    func testO4EveryVerbAnswersTheSameThroughTheAPI() throws {
        let host = try startHost(
            [BuildProducts.cSample, BuildProducts.swiftSample], options: ["--http", "0", "--log-level", "info"])
        try host.waitForLog(Self.cID, "callback did_become_active", prefix: true)
        try host.waitForLog(Self.swiftID, "callback will_connect", prefix: true)
        let url = "http://127.0.0.1:\(try host.httpAddress().port)"
        var verbs = Set<String>()
        for (run, undo) in commands {
            let local = try ctl(run)
            if let undo { XCTAssertEqual(try ctl(undo).status, 0, "\(undo)") }
            let remote = try ctl(run + ["--url", url])
            if let undo { XCTAssertEqual(try ctl(undo + ["--url", url]).status, 0, "\(undo) --url") }
            XCTAssertEqual(remote.status, local.status, "\(run)")
            XCTAssertEqual(remote.stdout, local.stdout, "\(run)")
            XCTAssertEqual(remote.stderr, local.stderr, "\(run)")
            verbs.insert(run[0])
        }
        // What moves between two asks (the mix's levels, the requests counted) is compared as
        // far as it stands still: the guests and their states, the metrics' success.
        let statuses = try [[], ["--url", url]].map { remote in
            try ControlCoding.decode(HostStatus.self, from: try ctl(["ps", "--json"] + remote).stdout.joined())
        }
        XCTAssertEqual(statuses[0].guests.map(\.id), statuses[1].guests.map(\.id))
        XCTAssertEqual(statuses[0].guests.map(\.appState), statuses[1].guests.map(\.appState))
        XCTAssertEqual(statuses[0].host, statuses[1].host)
        XCTAssertEqual(try ctl(["metrics", "--url", url]).status, 0)
        XCTAssertGreaterThanOrEqual(verbs.count, 13, "\(verbs)")

        // The environment names the API as --url does; nothing there is exit 3, as no host on the
        // data directory is.
        XCTAssertEqual(try ctl(["host", "--json", "--url", url + "/"]).stdout, try ctl(["host", "--json"]).stdout)
        let viaEnvironment = try runApphost(["ctl", "host", "--json"], environment: ["APPHOST_URL": url])
        XCTAssertEqual(viaEnvironment.stdout, try ctl(["host", "--json"]).stdout)
        let nobody = try runApphost(["ctl", "ps", "--url", "http://127.0.0.1:1"])
        XCTAssertEqual(nobody.status, 3, "\(nobody.stderr)")
        XCTAssertTrue(nobody.stderr.first?.hasPrefix("apphost: no host answers at http://127.0.0.1:1") == true)
        let noSocket = try runApphost(["ctl", "ps", "--data-dir", scratch.path + "/empty"])
        XCTAssertEqual(noSocket.status, 3, "\(noSocket.stderr)")
        let badURL = try runApphost(["ctl", "ps", "--url", "ftp://example"])
        XCTAssertEqual(badURL.status, 64, "\(badURL.stderr)")

        // With --json a failure is the host's reply line, with its code; the CLI's own too.
        let unknown = try ctl(["terminate", "org.example.nobody", "--json", "--url", url])
        let refusal = try ControlCoding.decode(ControlReply<ControlMessage>.self, from: unknown.stderr.joined())
        XCTAssertEqual(refusal.code, .notFound)
        let notRunning = try runApphost(["ctl", "ps", "--json", "--url", "http://127.0.0.1:1"])
        XCTAssertEqual(
            try ControlCoding.decode(ControlReply<ControlMessage>.self, from: notRunning.stderr.joined()).code?
                .rawValue,
            "not-running")
    }

    // With tokens, --token-file (or APPHOST_TOKEN_FILE) carries the control token; without it the
    // API's refusal is the one line, exit 1.
    func testO4ATokenFileOpensAHostThatWantsOne() throws {
        let token = scratch.path + "/token"
        try "a-control-token-of-32-characters\n".write(toFile: token, atomically: true, encoding: .utf8)
        chmod(token, 0o600)
        let host = try startHost(
            [BuildProducts.cSample], options: ["--http", "0", "--http-token-file", token, "--log-level", "info"])
        try host.waitForLog(Self.cID, "callback did_become_active", prefix: true)
        let url = "http://127.0.0.1:\(try host.httpAddress().port)"
        let refused = try runApphost(["ctl", "ps", "--url", url])
        XCTAssertEqual(refused.status, 1)
        XCTAssertEqual(refused.stderr.count, 1, "\(refused.stderr)")
        XCTAssertEqual(try runApphost(["ctl", "ps", "--url", url, "--token-file", token]).status, 0)
        let viaEnvironment = try runApphost(
            ["ctl", "switch", Self.cID], environment: ["APPHOST_URL": url, "APPHOST_TOKEN_FILE": token])
        XCTAssertEqual(viaEnvironment.status, 0, "\(viaEnvironment.stderr)")
    }

    private func ctl(_ arguments: [String]) throws -> CommandResult {
        let remote = arguments.contains("--url")
        return try runApphost(["ctl"] + arguments + (remote ? [] : ["--data-dir", dataDirectory]))
    }
}
