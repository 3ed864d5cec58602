import ApphostModel
import Foundation
import FoundationXML
import XCTest

@testable import ApphostCheck

/// `apphost check`'s parts that need no host: the random walk's steps, the edge values of the
/// action types, and the JUnit text.
final class CheckWalkAndReportTests: XCTestCase {
    // The same seed walks the same way on every machine; another seed, another way; every kind
    // of step is in every walk.
    func testAWalkIsItsSeedsAndHasEveryStep() {
        func walk(_ seed: UInt64) -> [RandomWalk.Step] {
            var generator = SplitMix64(seed: seed)
            return RandomWalk.Step.walk(steps: RandomWalk.steps, using: &generator)
        }
        XCTAssertEqual(walk(42).map(\.description), walk(42).map(\.description))
        XCTAssertNotEqual(walk(42).map(\.description), walk(43).map(\.description))
        XCTAssertEqual(walk(42).count, RandomWalk.steps)
        XCTAssertEqual(Set(walk(42).map(\.description)), Set(RandomWalk.Step.allCases.map(\.description)))
    }

    // F2: every argument goes through its type's edges with the others typical, and each value
    // fits its declared type.
    func testEdgeValuesFitTheirTypes() {
        let lists = ActionChecks.argumentLists(for: [.int16, .string])
        XCTAssertEqual(lists.first, [.integer(0), .string("")])
        XCTAssertTrue(lists.contains([.integer(-32768), .string("")]))
        XCTAssertTrue(lists.contains([.integer(32767), .string("")]))
        XCTAssertEqual(ActionChecks.edges(of: .uint64).last, .unsigned(UInt64.max))
        XCTAssertFalse(ActionChecks.edges(of: .uint8).contains(.integer(-1)), "no -1 for an unsigned type")
        XCTAssertEqual(lists.count, 1 + 4 + 2)
    }

    // A guest's log may hold anything: the JUnit text stays XML, markup escaped and control
    // characters replaced, and the counts add up.
    func testJUnitEscapesWhatAGuestLogged() throws {
        let failure = CheckResult(
            test: "launch", rules: ["A1"], verdict: .fail, seconds: 0.5, expected: "it <to> run",
            observed: "\"died\" & \u{1}gone", log: ["a\u{7}line"])
        let skip = CheckResult(test: "actions", rules: ["F1"], verdict: .skip, seconds: 0, reason: "none")
        let report = CheckReport(guests: [GuestCheck(path: "/g.so", id: "org.example.g", results: [failure, skip])])
        let xml = report.junit
        XCTAssertNoThrow(try XMLDocument(xmlString: xml))
        XCTAssertTrue(xml.contains("failures=\"1\" skipped=\"1\""), xml)
        XCTAssertTrue(xml.contains("it &lt;to&gt; run"), xml)
        XCTAssertFalse(xml.contains("\u{1}"), "no control character")
    }
}
