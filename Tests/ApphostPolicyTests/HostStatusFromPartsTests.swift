import ApphostModel
import ApphostPolicyTesting
import ApphostVocabulary
import Foundation
import XCTest

@testable import ApphostPolicy

/// The operators' status read from the parts that own each piece (`HostStatus+Parts`), with
/// records and parts on their own and a manual clock's time: no host, no channel called.
final class HostStatusFromPartsTests: XCTestCase {
    private let clock = ManualClock()
    private var arrangement = Arrangement(policy: ScenePolicy(displayWidth: 1280, displayHeight: 800))
    private var reports = SceneReports()
    private var background = BackgroundScheduler(policy: BackgroundPolicy(budget: .seconds(30)))
    private let audio = AudioSessions(policy: AudioPolicy(), requests: .audioRequests, mixes: false)

    private func running(_ id: String, session: String, handle: SceneHandle, state: SceneState) -> GuestRecord {
        let guest = GuestRecord(
            descriptor: GuestDescriptor(id: id, name: id, version: "2.0"), path: "/guests/\(id).so", now: clock.now())
        GuestLifecycle.launching(
            guest, on: UncalledChannel())
        _ = GuestLifecycle.launched(guest)
        guest.scenes = [
            SceneRecord(sessionID: session, role: .primary, handle: handle, state: state, storedBytes: 12)
        ]
        return guest
    }

    private func status(_ guests: [GuestRecord]) -> HostStatus {
        HostStatus(
            of: guests, arrangement: arrangement, reports: reports, restarter: Restarter(policy: .never),
            background: background, audio: audio, meters: nil, now: clock.uptime())
    }

    // O1: the foreground, the display and each scene's place and report come from the scenes'
    // parts; a background guest's budget left from the scheduler, at the clock's time.
    func testStatusReadsEachPieceFromItsPart() {
        let shown = running("org.test.a", session: "aaaa1111", handle: 1, state: .foregroundActive)
        let hidden = running("org.test.b", session: "bbbb2222", handle: 2, state: .background)
        let scene = SceneRef(guest: shown.id, session: "aaaa1111")
        _ = arrangement.arrange(arrangement.fullScreen(scene), showable: { _ in true }, foreground: [])
        _ = reports.title("Inbox", of: scene, handle: 1)
        _ = background.enteredBackground(hidden.id, at: clock.uptime())
        clock.advance(by: .seconds(10))

        let status = status([shown, hidden])
        XCTAssertEqual(status.foreground, "org.test.a")
        XCTAssertEqual(status.display, "1280x800")
        XCTAssertFalse(status.alert)
        XCTAssertEqual(status.guests.map(\.id), ["org.test.a", "org.test.b"])
        let a = status.guests[0]
        XCTAssertEqual(a.appState, .active)
        XCTAssertEqual(a.scenes.first?.placement, "full screen")
        XCTAssertEqual(a.scenes.first?.title, "Inbox")
        XCTAssertEqual(a.scenes.first?.savedBytes, 12)
        XCTAssertNil(a.backgroundTimeRemaining, "unlimited in the foreground")
        let b = status.guests[1]
        XCTAssertEqual(b.appState, .background)
        XCTAssertNil(b.scenes.first?.placement)
        XCTAssertEqual(b.backgroundTimeRemaining, 20)
        XCTAssertNil(b.suspension)
    }

    // B7: a stopped guest shows why and since when, and no budget left.
    func testASuspendedGuestShowsWhyAndNoBudget() {
        let guest = running("org.test.b", session: "bbbb2222", handle: 2, state: .background)
        _ = background.enteredBackground(guest.id, at: clock.uptime())
        GuestLifecycle.changing(guest, suspending: true)
        _ = GuestLifecycle.settled(guest, suspending: true, .success(()), reason: .automatic, at: clock.now())
        let status = status([guest]).guests[0]
        XCTAssertEqual(status.appState, .suspended)
        XCTAssertEqual(status.suspension?.reason, .automatic)
        XCTAssertEqual(status.suspension?.since, clock.now())
        XCTAssertNil(status.backgroundTimeRemaining)
    }
}
