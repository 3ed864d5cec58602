import ApphostVocabulary
import XCTest

@testable import ApphostChannels

/// What `apphost-worker --sandbox-support` says of this machine (CONTRACT X6), and the call
/// filter's programs it compiles once for every worker of a host.
final class WorkerSandboxTests: XCTestCase {
    // X6: this machine (and CI's) has every part, and the filter's two programs, which differ by
    // the network rule; a worker whose program is not one fails with the reason, not uncontained.
    func testX6TheWorkerSaysEveryPartAndGivesTheFiltersPrograms() throws {
        let support = WorkerSandbox.support(workerPath: try WorkerExecutable.locate())
        XCTAssertEqual(support.available, [.filesystem, .calls, .network], "\(support.missing)")
        let programs = try XCTUnwrap(support.callFilters)
        XCTAssertNotEqual(programs.withNetworkPart, programs.withoutNetworkPart)
        XCTAssertEqual(programs.withNetworkPart.count % 16, 0, "whole BPF instructions, 8 bytes each")
    }

    // A part the worker did not mention is missing for the given reason; programs without the
    // filter's part, or only one of the two, are none.
    func testX6LinesThatSayLessLeaveThePartsMissing() {
        let partial = WorkerSandbox(lines: "filesystem ok: Landlock ABI 7\nprogram network 00\n", failure: "gone")
        XCTAssertEqual(partial.available, [.filesystem])
        XCTAssertEqual(partial.missing.map(\.part), [.calls, .network])
        XCTAssertEqual(partial.missing.map(\.reason), ["gone", "gone"])
        XCTAssertNil(partial.callFilters)
    }
}
