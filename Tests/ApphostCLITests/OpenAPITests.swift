import ApphostControl
import Foundation
import XCTest

/// docs/openapi.yaml, the HTTP API's description (CONTRACT O1): it names every verb the control
/// socket knows, and a real host answers as it says, under schemathesis' generated requests
/// (scripts/setup installs it from PyPI).
final class OpenAPITests: HostTestCase {
    override class var stopsHostsGracefully: Bool { true }

    private var document: URL { TestGuests.packageRoot.appendingPathComponent("docs/openapi.yaml") }

    // CONTRACT O1: one operation per verb, no verb left out and none the host does not know.
    func testO1TheDocumentNamesEveryVerb() throws {
        let text = try String(contentsOf: document, encoding: .utf8)
        let paths = Set(
            text.split(separator: "\n").compactMap { line -> String? in
                guard line.hasPrefix("  /v1/"), line.hasSuffix(":") else { return nil }
                return String(line.dropFirst("  /v1/".count).dropLast())
            })
        XCTAssertEqual(paths, Set(ControlCommands.names).union(["guests", "version"]))
    }

    // CONTRACT O1: the document is valid OpenAPI 3.0, as openapi-spec-validator reads it (YAML
    // 1.1 took a bare `on:` for the boolean true; an operationId may be used once).
    func testO1TheDocumentIsValidOpenAPI() throws {
        let validator = try XCTUnwrap(
            Self.executable("openapi-spec-validator"),
            "openapi-spec-validator is not installed: scripts/setup installs it")
        let run = try runCommand(validator, [document.path], in: scratch.path)
        XCTAssertEqual(run.status, 0, (run.stdout + run.stderr).joined(separator: "\n"))
        XCTAssertEqual(run.stdout, ["\(document.path): OK"])
    }

    // CONTRACT O1: every operation, with the data schemathesis makes of the document and data
    // that breaks it, gets an answer the document allows, never a server error; a request
    // without the token is refused; the host is still well afterwards.
    func testO1AHostAnswersAsTheDocumentSays() throws {
        let schemathesis = try XCTUnwrap(
            Self.executable("schemathesis"), "schemathesis is not installed: scripts/setup installs it")
        let tokenFile = scratch.path + "/token"
        try "s3cret-s3cret-s3cret\n".write(toFile: tokenFile, atomically: false, encoding: .utf8)
        chmod(tokenFile, 0o600)
        let host = try startHost(
            [BuildProducts.cSample, BuildProducts.swiftSample],
            options: ["--http", "0", "--http-token-file", tokenFile, "--log-level", "info"])
        try host.waitForLog(Self.swiftID, "callback will_connect", prefix: true)
        let (lines, _) = host.stderr.wait(until: Date() + 10) { $0.contains { $0.contains("serving HTTP") } }
        let line = try XCTUnwrap(lines.first { $0.contains("serving HTTP") })
        let port = try XCTUnwrap(
            line.split(separator: " ").first { $0.hasPrefix("address=") }?.split(separator: ":").last)

        // Every check; docs/schemathesis.toml says that valid data may be refused with 409 (no such
        // guest, no such action). The event stream never ends, so it is left to HTTPAPITests. A
        // fixed seed: the same requests each run.
        let config = TestGuests.packageRoot.appendingPathComponent("docs/schemathesis.toml").path
        let run = try runCommand(
            schemathesis,
            [
                "--config-file", config, "--no-color", "run", document.path, "--url", "http://127.0.0.1:\(port)",
                "--header", "Authorization: Bearer s3cret-s3cret-s3cret", "--checks", "all", "--exclude-path",
                "/v1/events",
                "--max-examples", "20", "--seed", "20261124",
            ], in: scratch.path, environment: ["SCHEMATHESIS_HOOKS": ""], timeout: 240)
        XCTAssertEqual(
            run.status, 0, "schemathesis found failures:\n" + run.stdout.suffix(60).joined(separator: "\n"))
        XCTAssertTrue(run.stdout.contains { $0.contains("passed") }, run.stdout.joined(separator: "\n"))
        XCTAssertTrue(host.process.isRunning, "the host survived")
        XCTAssertEqual(try status().guests.count, 2)
    }

    /// `name` found on PATH.
    static func executable(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(name)" }.first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }
}
