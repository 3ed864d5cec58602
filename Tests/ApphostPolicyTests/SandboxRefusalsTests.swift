import ApphostVocabulary
import XCTest

@testable import ApphostPolicy

/// What each guest's container refused (CONTRACT X6), kept per worker and bounded.
final class SandboxRefusalsTests: XCTestCase {
    // X6: each call is reported once per worker, in the order it came; a worker that repeats a
    // name (only a broken one does) makes no second event.
    func testX6EachCallIsReportedOncePerWorker() {
        var refusals = SandboxRefusals()
        XCTAssertEqual(refusals.refused("ptrace", by: "org.test.a", worker: 10), .sandboxRefused)
        XCTAssertEqual(refusals.refused("mount", by: "org.test.a", worker: 10), .sandboxRefused)
        XCTAssertNil(refusals.refused("ptrace", by: "org.test.a", worker: 10))
        XCTAssertEqual(refusals.calls(of: "org.test.a", worker: 10), ["ptrace", "mount"])
        XCTAssertEqual(refusals.calls(of: "org.test.b", worker: 10), [], "another guest's are its own")
    }

    // X6: a new worker of the same guest starts with nothing refused; what the old one refused
    // is not shown as the new one's.
    func testX6ANewWorkerStartsAfresh() {
        var refusals = SandboxRefusals()
        _ = refusals.refused("ptrace", by: "org.test.a", worker: 10)
        XCTAssertEqual(refusals.calls(of: "org.test.a", worker: 11), [])
        XCTAssertEqual(refusals.refused("ptrace", by: "org.test.a", worker: 11), .sandboxRefused)
        XCTAssertEqual(refusals.calls(of: "org.test.a", worker: 11), ["ptrace"])
        XCTAssertEqual(refusals.calls(of: "org.test.a", worker: 10), [], "the old worker's are gone")
    }

    // X7: a guest cannot make the host keep more than `kept` names; each new one is still told.
    func testX7TheListIsBounded() {
        var refusals = SandboxRefusals()
        for index in 0..<(SandboxRefusals.kept + 10) {
            XCTAssertEqual(refusals.refused("call\(index)", by: "org.test.a", worker: 10), .sandboxRefused)
        }
        XCTAssertEqual(refusals.calls(of: "org.test.a", worker: 10).count, SandboxRefusals.kept)
    }
}
