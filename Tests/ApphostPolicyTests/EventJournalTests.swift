import ApphostVocabulary
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

    private func follow(
        _ fanOut: EventFanOut, from start: EventStart, filter: EventFilter = .everything, live: Bool = true
    ) -> (Heard, EventSubscription) {
        let heard = Heard()
        let subscription = fanOut.follow(from: start, filter: filter, live: live) { heard.append($0) }
        return (heard, subscription)
    }

    private func follow(_ fanOut: EventFanOut, after number: UInt64) -> (Heard, EventSubscription) {
        follow(fanOut, from: .after(EventPosition(run: fanOut.run, number: number)))
    }

    /// Event `number` as a follower of `fanOut` hears it.
    private func heard(_ number: Int, in fanOut: EventFanOut) -> FollowedEvent {
        .event(position: EventPosition(run: fanOut.run, number: UInt64(number)), event(number))
    }

    // CONTRACT O1: a follower that saw up to a position gets what came after it, then live events.
    func testO1FollowingAfterAPositionReplaysTheRestThenGoesOnLive() {
        let fanOut = EventFanOut(run: 1000, journalCapacity: 10)
        for number in 1...4 { fanOut.publish(event(number)) }
        let (heard, subscription) = follow(fanOut, after: 2)
        fanOut.publish(event(5))
        XCTAssertEqual(heard.all, [self.heard(3, in: fanOut), self.heard(4, in: fanOut), self.heard(5, in: fanOut)])
        subscription.cancel()
        fanOut.publish(event(6))
        XCTAssertEqual(heard.all.count, 3, "nothing after cancelling")
        XCTAssertEqual(fanOut.latestPosition, EventPosition(run: 1000, number: 6))
        XCTAssertEqual(fanOut.latestPosition.description, "1000.6")
    }

    // CONTRACT O1: events the journal no longer holds are announced, with how many.
    func testO1WhatTheJournalDroppedIsCountedFirst() {
        let fanOut = EventFanOut(journalCapacity: 3)
        for number in 1...7 { fanOut.publish(event(number)) }
        let (heard, _) = follow(fanOut, after: 1)
        let held = (5...7).map { self.heard($0, in: fanOut) }
        XCTAssertEqual(heard.all, [.missed(count: 3, restarted: false)] + held)
        XCTAssertEqual(follow(fanOut, from: .oldest).0.all, [.missed(count: 4, restarted: false)] + held)
    }

    // CONTRACT O1: a position of another run of the host (it restarted since) is said to be one,
    // the gap of unknown size, and everything this run holds follows from its first event, even
    // where the number is one this run has reached: never a silent skip. A number past this run's
    // newest is a gap of unknown size; one at the newest replays nothing; live is live only.
    func testO1APositionFromAnotherRunIsSaidToBeOne() {
        let fanOut = EventFanOut(run: 2000, journalCapacity: 10)
        for number in 1...3 { fanOut.publish(event(number)) }
        let all = (1...3).map { heard($0, in: fanOut) }
        XCTAssertEqual(
            follow(fanOut, from: .after(EventPosition(run: 1000, number: 2))).0.all,
            [.missed(count: nil, restarted: true)] + all)
        XCTAssertEqual(
            follow(fanOut, from: .after(EventPosition(run: 1000, number: 99))).0.all,
            [.missed(count: nil, restarted: true)] + all)
        XCTAssertEqual(follow(fanOut, after: 99).0.all, [.missed(count: nil, restarted: false)] + all)
        XCTAssertEqual(follow(fanOut, after: 3).0.all, [])
        XCTAssertEqual(follow(fanOut, from: .oldest).0.all, all)
        let (live, _) = follow(fanOut, from: .live)
        fanOut.publish(event(4))
        XCTAssertEqual(live.all, [heard(4, in: fanOut)])
    }

    // CONTRACT O1: a filtered follower hears only the events of its guests and kinds, replayed and
    // live, and still hears of a gap; one that does not follow hears the replay and nothing more.
    func testO1AFilteredFollowerStillHearsOfAGap() {
        let fanOut = EventFanOut(run: 3000, journalCapacity: 4)
        let kinds: [HostEvent.Kind] = [.log, .appState, .log, .log, .appState, .log]
        let guests = ["a", "a", "b", "a", "a", "a"]
        let events = zip(kinds, guests).enumerated().map { index, pair in
            HostEvent(time: Date(timeIntervalSince1970: 0), kind: pair.0, guest: pair.1, message: "\(index + 1)")
        }
        for event in events.prefix(5) { fanOut.publish(event) }
        let filter = EventFilter(guests: ["a"], kinds: [.log])
        let (heard, _) = follow(fanOut, from: .after(EventPosition(run: 3000, number: 0)), filter: filter)
        let (once, _) = follow(fanOut, from: .oldest, filter: filter, live: false)
        fanOut.publish(events[5])
        let position = { (number: UInt64) in EventPosition(run: 3000, number: number) }
        XCTAssertEqual(
            heard.all,
            [
                .missed(count: 1, restarted: false), .event(position: position(4), events[3]),
                .event(position: position(6), events[5]),
            ])
        XCTAssertEqual(once.all, [.missed(count: 1, restarted: false), .event(position: position(4), events[3])])
        XCTAssertTrue(EventFilter(kinds: [.appState]).admits(events[1]))
        XCTAssertFalse(EventFilter(guests: ["a"]).admits(HostEvent(time: Date(), kind: .hostStarted)))
    }

    // CONTRACT O1: positions read and write as RUN.NUMBER; to resume, 0 is the oldest held and any
    // other bare number is refused, since it cannot say which run it counts in.
    func testO1PositionsNameTheirRun() throws {
        XCTAssertEqual(EventPosition("1795544430894.42"), EventPosition(run: 1_795_544_430_894, number: 42))
        for text in ["42", "1.2.3", ".4", "4.", "-1.2", "1.+2", "a.b", "", "1 .2"] {
            XCTAssertNil(EventPosition(text), text)
        }
        XCTAssertEqual(try EventStart(resumingAfter: "0"), .oldest)
        XCTAssertEqual(try EventStart(resumingAfter: "7.9"), .after(EventPosition(run: 7, number: 9)))
        XCTAssertThrowsError(try EventStart(resumingAfter: "42")) { error in
            XCTAssertTrue("\(error)".hasPrefix("a bare position (42) cannot tell this run of the host from another"))
        }
        XCTAssertThrowsError(try EventStart(resumingAfter: "x"))
        XCTAssertEqual(
            EventPosition.run(startedAt: Date(timeIntervalSince1970: 1_795_544_430.894)), 1_795_544_430_894)
        XCTAssertEqual(try EventFilter.kinds(["log,app-state", "terminated"]), [.log, .appState, .terminated])
        XCTAssertThrowsError(try EventFilter.kinds(["log,nope"])) { error in
            XCTAssertTrue("\(error)".hasPrefix(#"unknown event kind "nope" (known: host-started, guest-loaded, "#))
        }
    }

    // The plain subscription hears events only, from now on.
    func testSubscribersHearOnlyNewEvents() {
        let fanOut = EventFanOut()
        fanOut.publish(event(1))
        let heard = Heard()
        let subscription = fanOut.subscribe { heard.append(.event(position: EventPosition(run: 0, number: 0), $0)) }
        fanOut.publish(event(2))
        XCTAssertEqual(heard.all, [.event(position: EventPosition(run: 0, number: 0), event(2))])
        subscription.cancel()
    }
}
