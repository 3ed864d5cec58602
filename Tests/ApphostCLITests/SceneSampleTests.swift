import ApphostModel
import ApphostVocabulary
import Foundation
import XCTest

/// The multi-window samples end to end: the Swift notes guest restores its windows and their
/// text after the host is killed (CONTRACT S8, S9, S12), and the C sample opens, sizes and closes
/// scenes (S7, S9, S11, N3), in both isolation modes.
final class SceneSampleTests: HostTestCase {
    static let notesID = "org.apphost.samples.notes"
    static let notes = "libSwiftNotesGuest.so"

    override class var stopsHostsGracefully: Bool { true }

    private func scenes(of guest: String) throws -> [SceneStatus] {
        try XCTUnwrap(try status().guest(guest)?.scenes)
    }

    func testNotesRestoresItsWindowsAndTextInProcess() throws { try notesRestore("none") }
    func testNotesRestoresItsWindowsAndTextIsolated() throws { try notesRestore("process") }

    // CONTRACT S9, S12, S8: the list opens an editor window on a user action; after the host is
    // killed with SIGKILL, a new host reconnects both windows, same sessions, with their text.
    private func notesRestore(_ isolation: String) throws {
        var host = try startHost([Self.notes], options: ["--isolation", isolation])
        try host.waitForLog(Self.notesID, "connected list: ")
        let list = try XCTUnwrap(try scenes(of: Self.notesID).first)
        try ctlSucceeds("action", list.session, "new", "Groceries")
        try host.waitForLog(Self.notesID, "list: Groceries")
        try ctlSucceeds("action", list.session, "open", "Groceries")
        try host.waitForLog(Self.notesID, "connected editor Groceries: ")
        let editor = try XCTUnwrap(try scenes(of: Self.notesID).last)
        XCTAssertEqual(editor.role, .auxiliary)
        XCTAssertEqual(try scenes(of: Self.notesID).map(\.placement), ["split left", "split right"])

        let mark = host.events.count
        try ctlSucceeds("action", editor.session, "type", "milk, eggs")
        try host.waitForLog(Self.notesID, "editor Groceries: milk, eggs", after: mark)
        try host.waitForEvent("the editor's state saved", after: mark) {
            $0.kind == .stateSaved && $0.session == editor.session
        }
        host.signal(SIGKILL)
        _ = try host.waitForExit()

        host = try startHost([Self.notes], options: ["--isolation", isolation])
        try host.waitForLog(Self.notesID, "connected list: Groceries")
        try host.waitForLog(Self.notesID, "connected editor Groceries: milk, eggs")
        XCTAssertEqual(try scenes(of: Self.notesID).map(\.session), [list.session, editor.session])
    }

    func testNotesOpensAWindowAfterSlowWorkInProcess() throws { try notesFetch("none") }
    func testNotesOpensAWindowAfterSlowWorkIsolated() throws { try notesFetch("process") }

    /// Swift Notes on a host of its own, with its list window shown.
    private func startNotes(_ isolation: String, options: [String] = []) throws -> (HostProcess, SceneStatus) {
        let host = try startHost([Self.notes], options: ["--isolation", isolation] + options)
        try host.waitForLog(Self.notesID, "connected list: ", prefix: true)
        return (host, try XCTUnwrap(try scenes(of: Self.notesID).first))
    }

    // CONTRACT S9: the Swift SDK's activation token: "fetch" takes it inside the action and opens
    // the editor from another thread after the action returned.
    private func notesFetch(_ isolation: String) throws {
        let (host, list) = try startNotes(isolation)
        try ctlSucceeds("action", list.session, "new", "Reading")
        try ctlSucceeds("action", list.session, "fetch", "Reading")
        try host.waitForLog(Self.notesID, "fetched Reading")
        try host.waitForLog(Self.notesID, "connected editor Reading: ")
        XCTAssertEqual(try scenes(of: Self.notesID).map(\.role), [.primary, .auxiliary])
    }

    func testNotesListsAndClosesItsOwnWindowsInProcess() throws { try notesClose("none") }
    func testNotesListsAndClosesItsOwnWindowsIsolated() throws { try notesClose("process") }

    // CONTRACT S7, S8 (ABI 1.2, from Swift): the list window counts the windows the host lists;
    // an editor closes itself for good, and the guest hears did-discard for it.
    private func notesClose(_ isolation: String) throws {
        let (host, list) = try startNotes(isolation)
        try ctlSucceeds("action", list.session, "new", "Todo")
        try ctlSucceeds("action", list.session, "open", "Todo")
        try host.waitForLog(Self.notesID, "connected editor Todo: ")
        try ctlSucceeds("action", list.session, "windows")
        try host.waitForLog(Self.notesID, "windows: 2, 2 shown")
        let editor = try XCTUnwrap(try scenes(of: Self.notesID).last)
        let mark = host.events.count
        try ctlSucceeds("action", editor.session, "close")
        try host.waitForLog(Self.notesID, "discarded \(editor.session)", after: mark)
        XCTAssertEqual(try scenes(of: Self.notesID).map(\.session), [list.session])
        XCTAssertTrue(
            host.events.dropFirst(mark).contains { $0.kind == .sceneClosed && $0.reason == .guest },
            "closed by the guest")
    }

    func testTheCSampleClosesItsOwnWindowInProcess() throws { try cSampleClosesItsWindow("none") }
    func testTheCSampleClosesItsOwnWindowIsolated() throws { try cSampleClosesItsWindow("process") }

    // CONTRACT S7 (ABI 1.2, from C): "close-window" finds its scene's session with
    // list_sessions and closes it with close_session.
    private func cSampleClosesItsWindow(_ isolation: String) throws {
        let host = try startHost([BuildProducts.cSample], options: ["--isolation", isolation, "--display", "1000x800"])
        try host.waitForLog(Self.cID, "callback did_become_active", prefix: true)
        let first = try XCTUnwrap(try scenes(of: Self.cID).first)
        try ctlSucceeds("action", first.session, "open")
        try host.waitForLog(Self.cID, "open -> ok")
        let second = try XCTUnwrap(try scenes(of: Self.cID).last)
        let mark = host.events.count
        try ctlSucceeds("action", second.session, "close-window")
        try host.waitForLog(Self.cID, "close-window -> ok", after: mark)
        try host.waitForLog(Self.cID, "discarded \(second.session)", after: mark)
        XCTAssertEqual(try scenes(of: Self.cID).map(\.session), [first.session])
    }

    func testTheSamplesLearnOfTheNotificationLimitInProcess() throws { try notificationLimit("none") }
    func testTheSamplesLearnOfTheNotificationLimitIsolated() throws { try notificationLimit("process") }

    // CONTRACT N1 (ABI 1.2): a notification over the host's limit is refused at once, and the
    // guest learns why: from C (APPHOST_ERROR_LIMIT_REACHED) and Swift (.limitReached).
    private func notificationLimit(_ isolation: String) throws {
        let host = try startHost(
            [BuildProducts.cSample, Self.notes],
            options: ["--isolation", isolation, "--notification-limit", "1", "--notification-window", "60"])
        try host.waitForLog(Self.cID, "callback did_become_active", prefix: true)
        try host.waitForLog(Self.notesID, "connected list: ")
        let c = try XCTUnwrap(try scenes(of: Self.cID).first)
        try ctlSucceeds("action", c.session, "notify", "one")
        try host.waitForLog(Self.cID, "notify -> ok")
        try ctlSucceeds("action", c.session, "notify", "two")
        try host.waitForLog(Self.cID, "notify -> limit_reached")

        try ctlSucceeds("switch", Self.notesID)
        let list = try XCTUnwrap(try scenes(of: Self.notesID).first)
        try ctlSucceeds("action", list.session, "remind", "Milk")
        try host.waitForLog(Self.notesID, "reminded Milk")
        try ctlSucceeds("action", list.session, "remind", "Eggs")
        try host.waitForLog(Self.notesID, "remind Eggs refused: limit_reached (12)")
        XCTAssertEqual(host.events.filter { $0.kind == .notification }.map(\.message), ["one", "Milk"])
    }

    func testTheCSampleOpensSizesAndClosesScenesInProcess() throws { try cSampleScenes("none") }
    func testTheCSampleOpensSizesAndClosesScenesIsolated() throws { try cSampleScenes("process") }

    // CONTRACT S9, S10, S11, N3, S7: "open" opens an auxiliary scene beside the first, both
    // learn their halves; a sheet is dismissed when the operator asks (the sample never keeps
    // one); closing the auxiliary scene discards its session.
    private func cSampleScenes(_ isolation: String) throws {
        let host = try startHost([BuildProducts.cSample], options: ["--isolation", isolation, "--display", "1000x800"])
        try host.waitForLog(Self.cID, "callback did_become_active", prefix: true)
        let first = try XCTUnwrap(try scenes(of: Self.cID).first)
        try host.waitForLog(Self.cID, "size 1000x800 regular scene=\(first.handle ?? 0)")

        try ctlSucceeds("action", first.session, "open")
        try host.waitForLog(Self.cID, "open -> ok")
        try host.waitForLog(Self.cID, "size 500x800 compact scene=\(first.handle ?? 0)")
        let second = try XCTUnwrap(try scenes(of: Self.cID).last)
        XCTAssertEqual(second.role, .auxiliary)
        XCTAssertEqual(second.size, SceneSize(width: 500, height: 800, sizeClass: .compact))

        try ctlSucceeds("action", second.session, "sheet", "Settings")
        try host.waitForLog(Self.cID, "sheet -> ok modal=1")
        XCTAssertEqual(try scenes(of: Self.cID).last?.modals.map(\.title), ["Settings"])
        let dismissed = try ctlSucceeds("dismiss", second.session).stdout.joined()
        XCTAssertTrue(dismissed.contains("dismissed"), dismissed)
        XCTAssertEqual(try scenes(of: Self.cID).last?.modals, [])

        let mark = host.events.count
        try ctlSucceeds("close", second.session)
        try host.waitForLog(Self.cID, "discarded \(second.session)", after: mark)
        try host.waitForLog(Self.cID, "size 1000x800 regular scene=\(first.handle ?? 0)", after: mark)
        XCTAssertEqual(try scenes(of: Self.cID).map(\.session), [first.session])
    }

    func testTheCSampleOpensASceneLaterWithItsTokenInProcess() throws { try cSampleOpensLater("none") }
    func testTheCSampleOpensASceneLaterWithItsTokenIsolated() throws { try cSampleOpensLater("process") }

    // CONTRACT S9: "open-later" keeps the action's activation token and opens the scene from a
    // host timer after the action returned; past the activation window the token opens nothing.
    private func cSampleOpensLater(_ isolation: String) throws {
        let host = try startHost(
            [BuildProducts.cSample], options: ["--isolation", isolation, "--display", "1000x800", "--activation", "2"])
        try host.waitForLog(Self.cID, "callback did_become_active", prefix: true)
        let first = try XCTUnwrap(try scenes(of: Self.cID).first)

        var mark = host.events.count
        try ctlSucceeds("action", first.session, "open-later", "300")
        try host.waitForLog(Self.cID, "open-later -> ok", after: mark)
        try host.waitForEvent("the later scene active", after: mark) {
            $0.kind == .sceneState && $0.scene != first.handle && $0.to == "foregroundActive"
        }
        XCTAssertEqual(try scenes(of: Self.cID).count, 2)

        mark = host.events.count
        try ctlSucceeds("action", first.session, "open-later", "2500")
        try host.waitForLog(Self.cID, "open-later -> no_activation", after: mark)
        XCTAssertEqual(try scenes(of: Self.cID).count, 2, "a token past its window opens nothing")
    }
}
