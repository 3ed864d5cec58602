import ApphostModel
import ApphostPolicyTesting
import ApphostVocabulary
import Foundation
import XCTest

@testable import ApphostPolicy

/// How operators name guests and scenes, and why a command cannot act on the guest it names:
/// `GuestDirectory` on its own, with records and no host.
final class GuestDirectoryTests: XCTestCase {
    private var directory = GuestDirectory()

    @discardableResult
    private func add(_ id: String, name: String, sessions: [(String, SceneHandle?)] = []) -> GuestRecord {
        let guest = GuestRecord(
            descriptor: GuestDescriptor(id: id, name: name, version: "1.0"), path: "/guests/\(name).so", now: Date())
        guest.scenes = sessions.map { SceneRecord(sessionID: $0.0, role: .primary, handle: $0.1) }
        directory.add(guest)
        return guest
    }

    private func message<T>(_ result: Result<T, HostCommandError>) -> String? {
        guard case .failure(let error) = result else { return nil }
        return error.message
    }

    // A guest is named by its id, or by its descriptor's name in any case when that is unique.
    func testAGuestIsNamedByItsIDOrItsUniqueName() throws {
        XCTAssertThrowsError(try directory.id(named: "notes")) {
            XCTAssertEqual(($0 as? HostCommandError)?.message, "no guest notes (no guests are loaded)")
        }
        add("org.example.notes", name: "Notes")
        add("org.example.music", name: "Music")
        add("com.other.music", name: "music")
        XCTAssertEqual(try directory.id(named: "org.example.notes"), "org.example.notes")
        XCTAssertEqual(try directory.id(named: "NOTES"), "org.example.notes")
        XCTAssertThrowsError(try directory.id(named: "music")) {
            XCTAssertEqual(
                ($0 as? HostCommandError)?.message,
                "music is ambiguous: it names org.example.music, com.other.music")
        }
        XCTAssertThrowsError(try directory.id(named: "mail")) {
            XCTAssertEqual(
                ($0 as? HostCommandError)?.message,
                "no guest mail (loaded: org.example.notes, org.example.music, com.other.music)")
        }
    }

    // An error names five guests at most, and how many more: one short line for thousands.
    func testAnErrorNamesFiveGuestsAndHowManyMore() {
        for index in 0..<8 { add("g\(index)", name: "g\(index)") }
        XCTAssertEqual(directory.loadedIDs(), "g0, g1, g2, g3, g4 and 3 more")
        XCTAssertEqual(message(directory.running("x")), "no guest x (loaded: g0, g1, g2, g3, g4 and 3 more)")
        XCTAssertEqual(directory.all.map(\.id), (0..<8).map { "g\($0)" }, "in the order they were first loaded")
    }

    // A command acts on a guest that runs; `settled` refuses one changing its suspension too.
    func testACommandActsOnARunningGuest() throws {
        let guest = add("org.test.a", name: "a")
        XCTAssertEqual(message(directory.running("org.test.a")), "org.test.a is not running (notRunning)")
        let channel = UncalledChannel()
        GuestLifecycle.launching(guest, on: channel)
        XCTAssertEqual(message(directory.running("org.test.a")), "org.test.a is not running (launching)")
        XCTAssertTrue(GuestLifecycle.launched(guest))
        XCTAssertTrue(directory.running("org.test.a").value(orFail: { (_: Result<Void, HostCommandError>) in }) != nil)
        GuestLifecycle.changing(guest, suspending: true)
        XCTAssertNil(message(directory.running("org.test.a")))
        var failed: String?
        let found = directory.running("org.test.a", settled: true).value(orFail: {
            (result: Result<Void, HostCommandError>) in
            if case .failure(let error) = result { failed = error.message }
        })
        XCTAssertNil(found)
        XCTAssertEqual(failed, "org.test.a is being suspended or resumed; try again")
    }

    // A guest's record is made on its first load and kept: a later launch takes it up again,
    // with what its library says now, unless another launch of it runs.
    func testARecordIsMadeOnceAndTakenUpAgainWhenNotRunning() throws {
        let first = GuestDescriptor(id: "org.test.a", name: "a", version: "1.0")
        let (guest, new) = try XCTUnwrap(directory.load(first, from: "/guests/a.so", now: Date()))
        XCTAssertTrue(new)
        XCTAssertTrue(directory["org.test.a"] === guest)
        let second = GuestDescriptor(id: "org.test.a", name: "a", version: "2.0")
        let (again, newAgain) = try XCTUnwrap(directory.load(second, from: "/other/a.so", now: Date()))
        XCTAssertTrue(again === guest)
        XCTAssertFalse(newAgain)
        XCTAssertEqual(guest.descriptor.version, "2.0")
        XCTAssertEqual(guest.path, "/other/a.so")
        GuestLifecycle.launching(guest, on: UncalledChannel())
        XCTAssertNil(directory.load(first, from: "/guests/a.so", now: Date()), "another launch of it runs")
        XCTAssertEqual(guest.descriptor.version, "2.0", "untouched")
        XCTAssertEqual(directory.all.count, 1)
    }

    // A scene is named by its connection's handle, its session id or a unique prefix of one (at
    // least 4 characters).
    func testASceneIsNamedByHandleSessionOrPrefix() throws {
        add("org.test.a", name: "a", sessions: [("5f0c1a2b", 7), ("5f0c9e8d", nil)])
        let b = add("org.test.b", name: "b", sessions: [("a1b2c3d4", 9)])
        XCTAssertEqual(try directory.scene(named: "9").get().0.id, b.id)
        XCTAssertEqual(try directory.scene(named: "7").get().1, 0)
        XCTAssertEqual(try directory.scene(named: "5F0C9E8D").get().1, 1)
        XCTAssertEqual(try directory.scene(named: "a1b2").get().0.id, b.id)
        XCTAssertEqual(
            message(directory.scene(named: "5f0c")), "scene 5f0c is ambiguous: give more of its session id")
        XCTAssertEqual(
            message(directory.scene(named: "a1b")),
            "no scene a1b (give a session id, a prefix of one, or a scene handle)")
    }
}
