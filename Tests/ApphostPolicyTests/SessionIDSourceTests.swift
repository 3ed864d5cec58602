import ApphostPolicy
import ApphostPolicyTesting
import XCTest

/// The core takes its session ids from a source it is given (CONTRACT S8): the tests' seeded one
/// repeats itself from run to run and still looks like the host's random UUIDs.
final class SessionIDSourceTests: XCTestCase {
    func testSeededIDsRepeatForASeedAndDifferBetweenSeeds() {
        let first = SeededSessionIDs(seed: 7)
        let again = SeededSessionIDs(seed: 7)
        let other = SeededSessionIDs(seed: 8)
        let ids = (0..<100).map { _ in first.next() }
        XCTAssertEqual(ids, (0..<100).map { _ in again.next() })
        XCTAssertNotEqual(ids, (0..<100).map { _ in other.next() })
        XCTAssertEqual(Set(ids).count, ids.count)
    }

    func testSeededIDsAreShapedLikeTheHostsUUIDs() throws {
        let source = SeededSessionIDs()
        for _ in 0..<1000 {
            let id = source.next()
            let uuid = try XCTUnwrap(UUID(uuidString: id), id)
            XCTAssertEqual(uuid.uuidString.lowercased(), id)
            XCTAssertEqual(Array(id)[14], "4", "version 4: \(id)")
        }
    }

    func testTheCoreTakesItsSessionIDsFromItsSource() {
        let harness = CoreHarness()
        harness.opener.add("org.example.notes")
        harness.run { $0.launch(path: "org.example.notes", foreground: true) { _ in } }
        let session = harness.guest("org.example.notes")?.scenes.first?.session
        XCTAssertEqual(session, SeededSessionIDs().next(), "the first id of the default seed")
    }
}
