import ApphostModel
import ApphostVocabulary
import XCTest

@testable import ApphostPolicy

/// The background scene limit on its own (CONTRACT S6): which scenes it disconnects.
final class SceneLimitPartTests: XCTestCase {
    private func scene(_ guest: String, _ session: String, since: Int, stopped: Bool = false) -> SceneLimit.Connected {
        SceneLimit.Connected(
            scene: SceneRef(guest: guest, session: session), handle: UInt64(since), since: .seconds(since),
            stopped: stopped)
    }

    // CONTRACT S6: over the limit, the scenes that went to background longest ago disconnect,
    // oldest first, over all guests; a stopped guest's disconnection waits for it (B7).
    func testS6OldestOverTheLimitDisconnect() {
        let connected = [
            scene("a", "a1", since: 5), scene("b", "b1", since: 2, stopped: true), scene("a", "a2", since: 9),
        ]
        let effects = SceneLimit(limit: 1).overLimit(connected)
        XCTAssertEqual(effects.map(\.guest), ["b", "a"])
        XCTAssertEqual(
            effects.map(\.effect),
            [
                .disconnect(session: "b1", handle: 2, reason: .automatic, held: true),
                .disconnect(session: "a1", handle: 5, reason: .automatic, held: false),
            ])
        XCTAssertTrue(SceneLimit(limit: 3).overLimit(connected).isEmpty)
        XCTAssertTrue(SceneLimit(limit: nil).overLimit(connected).isEmpty)
    }
}
