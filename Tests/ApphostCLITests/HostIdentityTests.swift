import ApphostControl
import ApphostServiceTesting
import ApphostVocabulary
import Foundation
import XCTest

/// CONTRACT O4: a host says who it is: an id kept in its data directory, the machine's name, its
/// release and when it started, the same in `ctl host`, GET /v1/host, `ctl ps`, the metrics and
/// the first event of its run.
final class HostIdentityTests: HostTestCase {
    override class var stopsHostsGracefully: Bool { true }

    func testO4AHostSaysWhoItIsEverywhereAndKeepsItsIDAcrossRestarts() throws {
        let host = try startHost([BuildProducts.cSample], options: ["--http", "0", "--log-level", "info"])
        try host.waitForLog(Self.cID, "callback did_become_active", prefix: true)
        let result = try ctlSucceeds("host", "--json")
        let identity = try ControlCoding.decode(HostIdentity.self, from: result.stdout.joined())
        XCTAssertTrue(HostIdentity.isID(identity.id), identity.id)
        XCTAssertEqual(identity.hostname, ProcessInfo.processInfo.hostName)
        XCTAssertEqual(
            identity.version, try runApphost(["--version"]).stdout.first?.split(separator: " ").last.map(String.init))
        XCTAssertEqual(
            try String(contentsOfFile: dataDirectory + "/host-id", encoding: .utf8), identity.id + "\n")

        let plain = try ctlSucceeds("host").stdout
        XCTAssertEqual(
            plain.prefix(3), ["id: \(identity.id)", "hostname: \(identity.hostname)", "version: \(identity.version)"])
        let viaHTTP = try HTTPTestClient.request("GET", "/v1/host", port: try host.httpAddress().port)
        XCTAssertEqual(viaHTTP.status, 200, viaHTTP.body)
        XCTAssertEqual(try ControlCoding.decode(ControlReply<HostIdentity>.self, from: viaHTTP.body).result, identity)

        XCTAssertEqual(try status().host, identity)
        let ps = try ctlSucceeds("ps").stdout
        XCTAssertTrue(
            ps.first?.hasPrefix("host \(identity.id.prefix(8)) on \(identity.hostname), apphost ") == true, "\(ps)")

        let metrics = try PrometheusText(lines: try ctlSucceeds("metrics").stdout)
        XCTAssertEqual(
            metrics[
                #"apphost_host_info{host_id="\#(identity.id)",hostname="\#(identity.hostname)",version="\#(identity.version)"}"#
            ],
            1)
        XCTAssertEqual(
            metrics["apphost_host_start_time_seconds"] ?? 0, identity.started.timeIntervalSince1970, accuracy: 0.001)

        let started = try host.waitForEvent("the host's first event") { $0.kind == .hostStarted }
        XCTAssertEqual(started.host, identity)
        XCTAssertEqual(host.events.first?.kind, .hostStarted, "the run's first event")

        host.signal(SIGTERM)
        XCTAssertEqual(try host.waitForExit(), 0)
        let again = try startHost([BuildProducts.cSample])
        try again.waitForLog(Self.cID, "callback did_become_active", prefix: true)
        let second = try ControlCoding.decode(
            HostIdentity.self, from: try ctlSucceeds("host", "--json").stdout.joined())
        XCTAssertEqual(second.id, identity.id, "the id lasts as long as the data directory")
        XCTAssertGreaterThan(second.started, identity.started)
    }

    // A host-id file that holds no id is the operator's: the host does not start, and says why.
    func testO4AHostIDFileThatHoldsNoIDIsNotOverwritten() throws {
        try FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true)
        try "not an id\n".write(toFile: dataDirectory + "/host-id", atomically: true, encoding: .utf8)
        let host = try startHost([BuildProducts.cSample])
        XCTAssertEqual(try host.waitForExit(), 1)
        XCTAssertTrue(
            host.stderr.snapshot.contains { $0.contains("/host-id holds no host id (32 hexadecimal digits)") },
            "\(host.stderr.snapshot)")
        XCTAssertEqual(try String(contentsOfFile: dataDirectory + "/host-id", encoding: .utf8), "not an id\n")
    }
}
