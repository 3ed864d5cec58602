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

    // CONTRACT A2 A3 B4 F2 S3 S12: each broken guest fails exactly the tests it breaks (one that
    // crashes in did_enter_background breaks going to background in every test that goes there,
    // terminate's too, as it sends the guest to background first; the overrun sample holds
    // its task past the budget on purpose), with evidence; the JUnit file says the same to
    // junitparser; exit 1.
    func testEachBrokenGuestFailsExactlyTheTestsItBreaks() throws {
        let overrun = try BuildProducts.path("libCOverrunGuest.so")
        let cases: [(guest: String, id: String, failed: [String], evidence: String)] = [
            (
                try TestGuests.check(breaking: 1, into: scratch.path), TestGuests.checkID,
                ["background", "background-tasks", "scene-state", "terminate", "random-walk"],
                "crashed in did_enter_background"
            ),
            (
                try TestGuests.check(breaking: 2, into: scratch.path), TestGuests.checkID,
                ["terminate"], "it failed in will_terminate"
            ),
            (
                try TestGuests.check(breaking: 3, into: scratch.path), TestGuests.checkID, ["actions"],
                "crashed in action scale"
            ),
            (overrun, "org.apphost.samples.overrun", ["background-tasks"], "overrun"),
            (
                try TestGuests.check(breaking: 5, into: scratch.path), TestGuests.checkID, ["scene-state"],
                "saved only on its way out"
            ),
            (
                try TestGuests.check(breaking: 4, into: scratch.path), TestGuests.checkID, ["random-walk"],
                "crashed in did_receive_memory_warning"
            ),
        ]
        let tests = [
            "launch", "background", "background-tasks", "scene-state", "terminate", "actions", "random-walk",
        ]
        for (index, (guest, id, failed, evidence)) in cases.enumerated() {
            let junit = scratch.path + "/check-\(index).xml"
            let result = try runApphost(["check", "--json", "--junit", junit, guest], timeout: 60)
            XCTAssertEqual(result.status, 1, "\(guest): \(result.stderr)")
            let report = try decodedReport(result)
            let results = try XCTUnwrap(report.guests.first?.results)
            XCTAssertEqual(results.filter { $0.verdict == .fail }.map(\.test), failed, guest)
            XCTAssertEqual(results.map(\.test), tests)
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
                            failed = any(isinstance(r, junitparser.Failure) for r in case.result)
                            skipped = any(isinstance(r, junitparser.Skipped) for r in case.result)
                            print(suite.name, case.name, "fail" if failed else "skip" if skipped else "pass")
                    """,
                    junit,
                ])
            XCTAssertEqual(read.status, 0, "\(read.stderr)")
            XCTAssertEqual(
                read.stdout,
                results.map { "\(id) \($0.test) \($0.verdict.rawValue)" }, "what junitparser read")
        }
    }

    // --list names each test with its rules; --filter by test or rule runs those alone, and
    // --only-failed leaves the passes out of the table; mistakes are one-line usage errors (64).
    func testListFilterAndUsage() throws {
        let list = try runApphost(["check", "--list"])
        XCTAssertEqual(list.status, 0)
        XCTAssertEqual(
            list.stdout.map { $0.split(separator: " ").first.map(String.init) },
            ["launch", "background", "background-tasks", "scene-state", "terminate", "actions", "random-walk"])
        XCTAssertTrue(list.stdout[4].contains("A3"), list.stdout[4])

        let guest = try TestGuests.check(breaking: 2, into: scratch.path)
        let filtered = try runApphost(["check", "--json", "--filter", "A3", "--filter", "launch", guest], timeout: 60)
        XCTAssertEqual(try decodedReport(filtered).guests.first?.results.map(\.test), ["launch", "terminate"])
        let failedOnly = try runApphost(["check", "--only-failed", guest], timeout: 60)
        XCTAssertEqual(failedOnly.status, 1)
        XCTAssertFalse(failedOnly.stdout.contains { $0.contains(" pass ") }, "\(failedOnly.stdout)")
        XCTAssertTrue(failedOnly.stdout.contains { $0.hasPrefix("  terminate ") }, "\(failedOnly.stdout)")
        XCTAssertTrue(failedOnly.stdout.last?.hasPrefix("6 passed, 1 failed, 0 skipped (random walk: --seed ") == true)

        let none = try runApphost(["check"])
        assertOneLineError(none, containing: "check needs at least one guest library, or --list")
        XCTAssertEqual(none.status, 64)
        let unknown = try runApphost(["check", "--filter", "Z9", guest])
        assertOneLineError(unknown, containing: "--filter Z9: no test has that name or rule")
        XCTAssertEqual(unknown.status, 64)
    }

    // CONTRACT A4: the random walk finds a guest that crashes on a memory warning, and its seed
    // walks the same way again, to the same failure.
    func testARandomWalkRepeatsWithItsSeed() throws {
        let guest = try TestGuests.check(breaking: 4, into: scratch.path)
        let first = try runApphost(["check", "--json", "--filter", "random-walk", guest], timeout: 60)
        let report = try decodedReport(first)
        let seed = try XCTUnwrap(report.seed)
        let failure = try XCTUnwrap(report.guests.first?.results.first)
        XCTAssertEqual(failure.verdict, .fail)
        XCTAssertTrue(failure.expected?.contains("seed \(seed)") == true, "\(String(describing: failure.expected))")
        let again = try runApphost(
            ["check", "--json", "--filter", "random-walk", "--seed", String(seed), guest], timeout: 60)
        let repeated = try XCTUnwrap(try decodedReport(again).guests.first?.results.first)
        XCTAssertEqual(repeated.verdict, .fail)
        XCTAssertEqual(repeated.observed, failure.observed)
        XCTAssertEqual(try decodedReport(again).seed, seed)
    }

    // --trace writes every command a test sent and every event of its host, a JSON object a line,
    // each naming its guest and test; --in-process runs the same tests in this process.
    func testTraceAndInProcess() throws {
        let guest = try TestGuests.check(into: scratch.path)
        let trace = scratch.path + "/trace.jsonl"
        let traced = try runApphost(["check", "--trace", trace, "--filter", "terminate", guest], timeout: 60)
        XCTAssertEqual(traced.status, 0, "\(traced.stdout)")
        let lines = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n")
        let objects = try lines.map {
            try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        XCTAssertTrue(objects.allSatisfy { $0["guest"] as? String == guest && $0["test"] as? String == "terminate" })
        let commands = objects.compactMap { ($0["command"] as? [String: Any])?["command"] as? String }
        XCTAssertEqual(commands, ["terminate"])
        let events = objects.compactMap { ($0["event"] as? [String: Any])?["event"] as? String }
        XCTAssertTrue(events.contains("guest-loaded") && events.contains("terminated"), "\(events)")

        let inProcess = try runApphost(["check", "--in-process", "--json", "--filter", "actions", guest], timeout: 60)
        XCTAssertEqual(inProcess.status, 0, "\(inProcess.stdout) \(inProcess.stderr)")
        XCTAssertEqual(try decodedReport(inProcess).guests.first?.results.map(\.verdict), [.pass])
    }

    private func decodedReport(_ result: CommandResult) throws -> CheckReport {
        let line = try XCTUnwrap(result.stdout.last, "\(result.stderr)")
        return try JSONDecoder().decode(CheckReport.self, from: Data(line.utf8))
    }
}
