import Foundation
import XCTest

/// Scene sessions and their saved state outlive the host, even one killed with SIGKILL
/// (CONTRACT S8, S12): they live in the data directory's SQLite database.
final class PersistenceTests: HostTestCase {
    func testTheSwiftSDKConfirmsASaveAfterTheEventIsolated() throws { try sdkConfirms("process") }
    func testTheSwiftSDKConfirmsASaveAfterTheEventInProcess() throws { try sdkConfirms("none") }

    // CONTRACT X5 (ABI 1.7): the Swift sample saves with Scene.saveState(_:confirmed:) when it
    // goes to background; the SDK runs its closure once the host has stored the state, after the
    // event stream said state-saved for that session.
    private func sdkConfirms(_ isolation: String) throws {
        let host = try startHost(
            [BuildProducts.swiftSample, BuildProducts.cSample],
            options: ["--isolation", isolation, "--suspend-delay", "60"])
        try host.waitForLog(Self.swiftID, "callback did_become_active", prefix: true)
        try host.waitForLog(Self.cID, "callback will_connect", prefix: true)
        let session = try XCTUnwrap(try status().guest(Self.swiftID)?.scenes.first?.session)
        let mark = host.events.count
        try ctlSucceeds("switch", Self.cID)
        let stored = try host.waitForLog(Self.swiftID, "stored counter=", prefix: true, after: mark)
        XCTAssertTrue(stored.message?.hasSuffix(": ok") == true, "\(stored.message ?? "")")
        let events = Array(host.events.dropFirst(mark))
        let saved = events.firstIndex { $0.kind == .stateSaved && $0.session == session }
        let confirmed = events.firstIndex { $0.kind == .log && $0.message == stored.message }
        XCTAssertLessThan(
            try XCTUnwrap(saved, "state-saved of \(session)"), try XCTUnwrap(confirmed),
            "\(events.map(\.humanLine))")
    }

    // CONTRACT S12, S8: the host is killed at random moments while its guest saves its state as
    // fast as it can; each restart restores a state at least as new as the last one the host
    // reported saved, never a torn one, into the same session.
    func testKillingTheHostLosesNothingSavedAndRestoresNothingTorn() throws {
        for isolation in ["process", "none"] {
            try killRepeatedly(isolation: isolation, data: scratch.path + "/data-\(isolation)")
        }
    }

    private func killRepeatedly(isolation: String, data: String) throws {
        let saver = try TestGuests.saver(into: scratch.path)
        var reportedSaved: UInt64 = 0
        var session: String?
        for round in 0..<10 {
            let host = try HostProcess(guests: ["--isolation", isolation, saver], dataDirectory: data)
            defer { host.kill() }
            let restored = try XCTUnwrap(
                try host.waitForLog(TestGuests.saverID, "restored", prefix: true).message
                    ?? (host.events.contains { $0.message == "torn" } ? "torn" : nil),
                "round \(round)")
            XCTAssertFalse(host.events.contains { $0.message == "torn" }, "\(isolation) round \(round): a torn state")
            // What a kill leaves in the log is no damage: nothing acknowledged is lost (X5).
            XCTAssertEqual(
                host.events.filter { $0.kind == .storeRecovered }.compactMap(\.message), [],
                "\(isolation) round \(round)")
            let state =
                restored == "restored nothing" ? 0 : try XCTUnwrap(UInt64(restored.dropFirst("restored ".count)))
            XCTAssertGreaterThanOrEqual(
                state, reportedSaved, "\(isolation) round \(round): a state the host reported saved was lost")
            if round > 0 { XCTAssertNotEqual(state, 0, "\(isolation) round \(round): nothing restored") }

            Thread.sleep(forTimeInterval: Double.random(in: 0.05...0.4))
            host.kill()
            _ = try host.waitForExit()
            let saved = host.events.filter { $0.kind == .stateSaved && $0.guest == TestGuests.saverID }
            reportedSaved = state + UInt64(saved.count)
            let sessions = Set(saved.compactMap(\.session))
            XCTAssertLessThanOrEqual(sessions.count, 1)
            if let current = sessions.first {
                XCTAssertEqual(session ?? current, current, "S8: the session keeps its id across restarts")
                session = current
            }
        }
        XCTAssertGreaterThan(reportedSaved, 20, "\(isolation): the guest saved as it ran")
    }

    // CONTRACT S6: beyond --background-scene-limit the scene in background longest is
    // disconnected (did-disconnect); the guest runs on, and its session reconnects when shown.
    func testScenesBeyondTheBackgroundLimitAreDisconnectedAndReconnectLaterIsolated() throws {
        try scenesBeyondTheLimit("process")
    }

    func testScenesBeyondTheBackgroundLimitAreDisconnectedAndReconnectLaterInProcess() throws {
        try scenesBeyondTheLimit("none")
    }

    private func scenesBeyondTheLimit(_ isolation: String) throws {
        let host = try HostProcess(
            guests: [
                "--isolation", isolation, "--background-scene-limit", "1",
                try BuildProducts.path(BuildProducts.swiftSample), try BuildProducts.path(BuildProducts.cSample),
                try BuildProducts.path("libSwiftUploadGuest.so"),
            ], dataDirectory: dataDirectory)
        defer { host.kill() }
        try host.waitForLog(Self.cID, "callback did_disconnect", prefix: true)
        let c = try XCTUnwrap(try status().guest(Self.cID))
        XCTAssertEqual(c.scenes.map(\.state), [.unattached])
        XCTAssertEqual(c.appState, .background)
        let session = try XCTUnwrap(c.scenes.first?.session)
        let mark = host.events.count
        try ctlSucceeds("switch", Self.cID)
        try host.waitForLog(Self.cID, "callback did_become_active", prefix: true, after: mark)
        XCTAssertEqual(host.events.since(mark).loggedCallbacks(of: Self.cID).first, "will_connect")
        XCTAssertEqual(try status().guest(Self.cID)?.scenes.map(\.session), [session], "the same session")
    }

    // CONTRACT S2, S3, S8: `ctl open` opens a new window of a running guest, shown in the
    // foreground while the one before goes to background; after a restart both sessions
    // reconnect, the oldest in the foreground (which one was shown last is not stored yet).
    func testOpenedWindowsComeBackAfterAKill() throws {
        let sample = try BuildProducts.path(BuildProducts.cSample)
        let first = try HostProcess(guests: [sample], dataDirectory: dataDirectory)
        try first.waitForLog(Self.cID, "callback did_become_active scene=1")
        let reply = try ctlSucceeds("open", Self.cID).stdout.joined()
        XCTAssertTrue(reply.hasPrefix("opened a window of \(Self.cID): session "), reply)
        try first.waitForLog(Self.cID, "callback did_enter_background scene=1")
        XCTAssertEqual(
            first.events.loggedCallbacks(of: Self.cID).suffix(5),
            [
                "will_connect", "will_enter_foreground", "did_become_active", "will_resign_active",
                "did_enter_background",
            ])
        let scenes = try XCTUnwrap(try status().guest(Self.cID)?.scenes)
        XCTAssertEqual(scenes.map(\.state), [.background, .foregroundActive])
        first.kill()

        let second = try HostProcess(guests: [sample], dataDirectory: dataDirectory)
        defer { second.kill() }
        try second.waitForLog(Self.cID, "callback did_become_active", prefix: true)
        try second.waitForEvent("both connected") { event in
            event.kind == .sceneState && event.guest == Self.cID && event.to == "background"
        }
        let again = try XCTUnwrap(try status().guest(Self.cID)?.scenes)
        XCTAssertEqual(again.map(\.session), scenes.map(\.session), "S8: the same sessions")
        XCTAssertEqual(again.map(\.state), [.foregroundActive, .background], "the oldest window in front")
    }
}
