import ApphostCore
import Foundation
import Synchronization
import XCTest

/// The host's event journal (CONTRACT O1): events numbered from 1, the latest kept, so that a
/// follower that reconnects resumes where it left and hears of what it missed.
final class EventJournalTests: XCTestCase {
    private func event(_ number: Int) -> HostEvent {
        HostEvent(time: Date(timeIntervalSince1970: 0), kind: .log, message: "\(number)")
    }

    /// What one follower heard.
    private final class Heard: Sendable {
        private let items = Mutex<[FollowedEvent]>([])
        func append(_ item: FollowedEvent) { items.withLock { $0.append(item) } }
        var all: [FollowedEvent] { items.withLock { $0 } }
    }

    private func follow(_ fanOut: EventFanOut, after position: UInt64?) -> (Heard, EventSubscription) {
        let heard = Heard()
        let subscription = fanOut.follow(after: position) { heard.append($0) }
        return (heard, subscription)
    }

    // CONTRACT O1: a follower that saw up to a position gets what came after it, then live events.
    func testO1FollowingAfterAPositionReplaysTheRestThenGoesOnLive() {
        let fanOut = EventFanOut(journalCapacity: 10)
        for number in 1...4 { fanOut.publish(event(number)) }
        let (heard, subscription) = follow(fanOut, after: 2)
        fanOut.publish(event(5))
        XCTAssertEqual(
            heard.all, [.event(position: 3, event(3)), .event(position: 4, event(4)), .event(position: 5, event(5))])
        subscription.cancel()
        fanOut.publish(event(6))
        XCTAssertEqual(heard.all.count, 3, "nothing after cancelling")
        XCTAssertEqual(fanOut.latestPosition, 6)
    }

    // CONTRACT O1: events the journal no longer holds are announced, with how many.
    func testO1WhatTheJournalDroppedIsCountedFirst() {
        let fanOut = EventFanOut(journalCapacity: 3)
        for number in 1...7 { fanOut.publish(event(number)) }
        let (heard, _) = follow(fanOut, after: 1)
        XCTAssertEqual(
            heard.all,
            [
                .missed(count: 3), .event(position: 5, event(5)), .event(position: 6, event(6)),
                .event(position: 7, event(7)),
            ])
    }

    // CONTRACT O1: a position past the newest (the host restarted and numbers from 1) replays all
    // it holds, the gap of unknown size; one at the newest replays nothing; nil is live only.
    func testO1APositionFromAnotherRunReplaysEverythingHeld() {
        let fanOut = EventFanOut(journalCapacity: 2)
        for number in 1...3 { fanOut.publish(event(number)) }
        XCTAssertEqual(
            follow(fanOut, after: 99).0.all,
            [.missed(count: nil), .event(position: 2, event(2)), .event(position: 3, event(3))])
        XCTAssertEqual(follow(fanOut, after: 3).0.all, [])
        let (live, _) = follow(fanOut, after: nil)
        fanOut.publish(event(4))
        XCTAssertEqual(live.all, [.event(position: 4, event(4))])
    }

    // The plain subscription hears events only, from now on.
    func testSubscribersHearOnlyNewEvents() {
        let fanOut = EventFanOut()
        fanOut.publish(event(1))
        let heard = Heard()
        let subscription = fanOut.subscribe { heard.append(.event(position: 0, $0)) }
        fanOut.publish(event(2))
        XCTAssertEqual(heard.all, [.event(position: 0, event(2))])
        subscription.cancel()
    }
}
