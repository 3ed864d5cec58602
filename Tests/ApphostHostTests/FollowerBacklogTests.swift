import ApphostVocabulary
import XCTest

@testable import ApphostHTTP

/// CONTRACT O1, X4: an event-stream follower under a flood costs the server one write per batch,
/// not per event, so that the server's loops stay free to take new requests; and one that falls
/// `limit` events behind is told once and ends.
final class FollowerBacklogTests: XCTestCase {
    private func message(_ followed: FollowedEvent) -> String {
        guard case .missed(let count, _) = followed else { return "?" }
        return "\(count ?? 0);"
    }

    // What is handed over while a write is under way goes out in the next write, all of it.
    func testEventsHandedDuringAWriteGoOutTogetherInTheNext() async throws {
        let backlog = FollowerBacklog(limit: 1000)
        backlog.yield(.missed(count: 1, restarted: false))
        var writes: [String] = []
        let overflowed = try await backlog.drain(message: message, overflowNotice: "dropped") { text in
            writes.append(text)
            if writes.count == 1 {
                for count in 2...200 { backlog.yield(.missed(count: UInt64(count), restarted: false)) }
            } else {
                backlog.finish()
            }
        }
        XCTAssertFalse(overflowed)
        XCTAssertEqual(writes, ["1;", (2...200).map { "\($0);" }.joined()])
    }

    // Past its limit a follower gets what fitted, then the notice, and nothing more.
    func testAFollowerThatFallsBehindIsToldOnceAndEnds() async throws {
        let backlog = FollowerBacklog(limit: 3)
        backlog.yield(.missed(count: 1, restarted: false))
        var writes: [String] = []
        let overflowed = try await backlog.drain(message: message, overflowNotice: "dropped") { text in
            writes.append(text)
            for count in 2...9 { backlog.yield(.missed(count: UInt64(count), restarted: false)) }
        }
        XCTAssertTrue(overflowed)
        XCTAssertEqual(writes, ["1;", "2;3;4;dropped"])
    }

    // A keep-alive goes out only when no event does.
    func testAKeepAliveIsWrittenOnlyWithoutEvents() async throws {
        let backlog = FollowerBacklog(limit: 10)
        backlog.keepAlive()
        var writes: [String] = []
        _ = try await backlog.drain(message: message, overflowNotice: "dropped") { text in
            writes.append(text)
            if writes.count == 1 {
                backlog.keepAlive()
                backlog.yield(.missed(count: 7, restarted: false))
            } else {
                backlog.finish()
            }
        }
        XCTAssertEqual(writes, [": keep-alive\n\n", "7;"])
    }
}
