import ApphostVocabulary
import XCTest

@testable import ApphostPolicy

/// What each guest's container refused (CONTRACT X6, A6), kept per worker and bounded.
final class SandboxRefusalsTests: XCTestCase {
    // X6: each call is reported once per worker, in the order it came; a worker that repeats a
    // name (only a broken one does) makes no second event.
    func testX6EachCallIsReportedOncePerWorker() {
        var refusals = SandboxRefusals()
        XCTAssertEqual(refusals.refused("ptrace", by: "org.test.a", worker: 10)?.kind, .sandboxRefused)
        XCTAssertEqual(refusals.refused("mount", by: "org.test.a", worker: 10)?.kind, .sandboxRefused)
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
        XCTAssertEqual(refusals.refused("ptrace", by: "org.test.a", worker: 11)?.kind, .sandboxRefused)
        XCTAssertEqual(refusals.calls(of: "org.test.a", worker: 11), ["ptrace"])
        XCTAssertEqual(refusals.calls(of: "org.test.a", worker: 10), [], "the old worker's are gone")
    }

    // X7: a guest cannot make the host keep more than `kept` names; each new one is still told.
    func testX7TheListIsBounded() {
        var refusals = SandboxRefusals()
        for index in 0..<(SandboxRefusals.kept + 10) {
            XCTAssertEqual(refusals.refused("call\(index)", by: "org.test.a", worker: 10)?.kind, .sandboxRefused)
        }
        XCTAssertEqual(refusals.calls(of: "org.test.a", worker: 10).count, SandboxRefusals.kept)
    }

    // A6: what an entitlement would have allowed names the entitlement, for the operator; the
    // list keeps the call as the worker or the runtime named it.
    func testA6ARefusalAnEntitlementWouldAllowNamesIt() throws {
        var refusals = SandboxRefusals()
        let network = try XCTUnwrap(refusals.refused("socket(AF_INET)", by: "org.test.a", worker: 10))
        XCTAssertEqual(network.kind, .entitlementMissing)
        XCTAssertEqual(network.name, "network")
        XCTAssertTrue(network.message.contains("socket(AF_INET)"), network.message)
        let input = try XCTUnwrap(refusals.refused("set_configuration(RECORD)", by: "org.test.a", worker: 10))
        XCTAssertEqual(input.kind, .entitlementMissing)
        XCTAssertEqual(input.name, "audio-input")
        let ptrace = try XCTUnwrap(refusals.refused("ptrace", by: "org.test.a", worker: 10))
        XCTAssertEqual(ptrace.kind, .sandboxRefused)
        XCTAssertEqual(ptrace.name, "ptrace")
        XCTAssertEqual(
            refusals.calls(of: "org.test.a", worker: 10), ["socket(AF_INET)", "set_configuration(RECORD)", "ptrace"])
    }
}
