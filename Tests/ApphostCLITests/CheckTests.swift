import ApphostCheck
import ApphostControl
import Foundation
import XCTest

/// `apphost check` (issue 38): it passes guests that keep the contract and fails each broken one
/// on exactly the tests it breaks, for people (a table), for scripts (`--json`) and for CI (`--junit`,
/// read back by junitparser as a CI server would).
final class CheckTests: HostTestCase {
    // The C and Swift samples and the well-behaved fixture pass every test that applies to them;
    // a test that does not apply is skipped with the reason (the C sample's only actions test
    // runs, the Swift sample declares none).
    func testTheSamplesPass() throws {
        let guests = [
            try BuildProducts.path(BuildProducts.cSample), try BuildProducts.path(BuildProducts.swiftSample),
            try TestGuests.check(into: scratch.path),
        ]
        let result = try runApphost(["check", "--json"] + guests, timeout: 60)
        XCTAssertEqual(result.status, 0, "\(result.stdout) \(result.stderr)")
        let report = try decodedReport(result)
        XCTAssertEqual(report.failed, 0)
        XCTAssertEqual(
            report.guests.map(\.id), ["org.apphost.samples.c", "org.apphost.samples.swift", TestGuests.checkID])
        let swift = try XCTUnwrap(report.guests.dropFirst().first?.results.first { $0.test == "actions" })
        XCTAssertEqual(swift.verdict, .skip)
        XCTAssertEqual(swift.reason, "guest declares no actions")
    }

    // CONTRACT A2 A3 F2 S3: each broken fixture fails exactly the tests it breaks (one that
    // crashes in did_enter_background also crashes on its way out, as terminate sends it to
    // background first), with evidence; the JUnit file says the same to junitparser; exit 1.
    func testEachBrokenGuestFailsExactlyTheTestsItBreaks() throws {
        let cases: [(breaking: Int, failed: [String], evidence: String)] = [
            (1, ["background", "terminate"], "crashed in did_enter_background"),
            (2, ["terminate"], "it failed in will_terminate"),
            (3, ["actions"], "crashed in action scale"),
        ]
        for (breaking, failed, evidence) in cases {
            let guest = try TestGuests.check(breaking: breaking, into: scratch.path)
            let junit = scratch.path + "/check-\(breaking).xml"
            let result = try runApphost(["check", "--json", "--junit", junit, guest], timeout: 60)
            XCTAssertEqual(result.status, 1, "break \(breaking): \(result.stderr)")
            let report = try decodedReport(result)
            let results = try XCTUnwrap(report.guests.first?.results)
            XCTAssertEqual(results.filter { $0.verdict == .fail }.map(\.test), failed, "break \(breaking)")
            XCTAssertEqual(results.filter { $0.verdict == .pass }.count, 4 - failed.count, "break \(breaking)")
            let first = try XCTUnwrap(results.first { $0.verdict == .fail })
            XCTAssertTrue(first.observed?.contains(evidence) == true, "\(String(describing: first.observed))")

            // As a CI server reads it.
            let read = try runCommand(
                "/usr/bin/env",
                [
                    "python3", "-c",
                    """
                    import sys, junitparser
                    xml = junitparser.JUnitXml.fromfile(sys.argv[1])
                    for suite in xml:
                        for case in suite:
                            verdict = "fail" if any(isinstance(r, junitparser.Failure) for r in case.result) else "pass"
                            print(suite.name, case.name, verdict)
                    """,
                    junit,
                ])
            XCTAssertEqual(read.status, 0, "\(read.stderr)")
            XCTAssertEqual(
                read.stdout,
                ["launch", "background", "terminate", "actions"].map {
                    "\(TestGuests.checkID) \($0) \(failed.contains($0) ? "fail" : "pass")"
                })
        }
    }

    // --list names each test with its rules; --filter by test or rule runs those alone, and
    // --only-failed leaves the passes out of the table; mistakes are one-line usage errors (64).
    func testListFilterAndUsage() throws {
        let list = try runApphost(["check", "--list"])
        XCTAssertEqual(list.status, 0)
        XCTAssertEqual(
            list.stdout.map { $0.split(separator: " ").first.map(String.init) },
            ["launch", "background", "terminate", "actions"])
        XCTAssertTrue(list.stdout[2].contains("A3"), list.stdout[2])

        let guest = try TestGuests.check(breaking: 2, into: scratch.path)
        let filtered = try runApphost(["check", "--json", "--filter", "A3", "--filter", "launch", guest], timeout: 60)
        XCTAssertEqual(try decodedReport(filtered).guests.first?.results.map(\.test), ["launch", "terminate"])
        let failedOnly = try runApphost(["check", "--only-failed", guest], timeout: 60)
        XCTAssertEqual(failedOnly.status, 1)
        XCTAssertFalse(failedOnly.stdout.contains { $0.contains(" pass ") }, "\(failedOnly.stdout)")
        XCTAssertTrue(failedOnly.stdout.contains { $0.hasPrefix("  terminate ") }, "\(failedOnly.stdout)")
        XCTAssertEqual(failedOnly.stdout.last, "3 passed, 1 failed, 0 skipped")

        let none = try runApphost(["check"])
        assertOneLineError(none, containing: "check needs at least one guest library, or --list")
        XCTAssertEqual(none.status, 64)
        let unknown = try runApphost(["check", "--filter", "Z9", guest])
        assertOneLineError(unknown, containing: "--filter Z9: no test has that name or rule")
        XCTAssertEqual(unknown.status, 64)
    }

    private func decodedReport(_ result: CommandResult) throws -> CheckReport {
        let line = try XCTUnwrap(result.stdout.last, "\(result.stderr)")
        return try JSONDecoder().decode(CheckReport.self, from: Data(line.utf8))
    }
}
