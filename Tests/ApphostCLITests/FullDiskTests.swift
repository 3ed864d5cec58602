import ApphostVocabulary
import Foundation
import XCTest

/// CONTRACT X5 with a disk that is full for real: the data directory is a small tmpfs, mounted
/// for each test and unmounted after it (skipped where mounting is not permitted).
final class FullDiskTests: HostTestCase {
    private var mounted = false
    private var host: HostProcess?

    override func setUpWithError() throws {
        try super.setUpWithError()
        try FileManager.default.createDirectory(
            atPath: dataDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        guard mount("tmpfs", dataDirectory, "tmpfs", 0, "size=2m,mode=0700") == 0 else {
            let cause = String(cString: strerror(errno))
            throw XCTSkip("mounting a tmpfs as the data directory is not permitted here (it needs root): \(cause)")
        }
        mounted = true
    }

    override func tearDown() {
        // The host goes before its data directory does.
        host?.kill()
        if mounted, umount2(dataDirectory, Int32(MNT_DETACH)) != 0 {
            XCTFail("cannot unmount \(dataDirectory): \(String(cString: strerror(errno)))")
        }
        super.tearDown()
    }

    func testSavesOnAFullDiskAreShownAndSaidUntilThereIsRoomIsolated() throws { try fullDisk("process") }
    func testSavesOnAFullDiskAreShownAndSaidUntilThereIsRoomInProcess() throws { try fullDisk("none") }

    func testConfirmedSavesAreConfirmedAfterTheEventIsolated() throws { try confirmedSaves("process") }
    func testConfirmedSavesAreConfirmedAfterTheEventInProcess() throws { try confirmedSaves("none") }

    /// The scenes fixture, launched in `isolation` and active: its host and its scene's session.
    private func startScenesFixture(_ isolation: String) throws -> (HostProcess, String) {
        let fixture = try TestGuests.scenes(into: scratch.path)
        let host = try startHost([fixture], options: ["--isolation", isolation])
        self.host = host
        try host.waitForEvent("the fixture active") {
            $0.kind == .sceneState && $0.guest == TestGuests.scenesID && $0.to == "foregroundActive"
        }
        return (host, try XCTUnwrap(try status().guest(TestGuests.scenesID)?.scenes.first?.session))
    }

    // CONTRACT X5 (ABI 1.7): a save made with save_scene_state_confirmed is confirmed to the
    // guest, on its main queue, once the host has stored it for good, and not before the event
    // stream said so: ok after its state-saved; while the disk is full, internal after its
    // state-save-failed (the call itself returned ok, as the host answers before it writes); ok
    // again once there is room.
    private func confirmedSaves(_ isolation: String) throws {
        let (host, session) = try startScenesFixture(isolation)
        try confirmedSave(
            100, on: session, host: host, answer: "ok", outcome: .stateSaved, message: "100 bytes", confirmation: "ok")

        let filler = dataDirectory + "/filler"
        try fill(filler)
        try confirmedSave(
            3000, on: session, host: host, answer: "ok", outcome: .stateSaveFailed,
            message: "3000 bytes not saved: disk full", confirmation: "internal")

        XCTAssertEqual(unlink(filler), 0)
        try confirmedSave(
            3002, on: session, host: host, answer: nil, outcome: .stateSaved, message: "3002 bytes", confirmation: "ok")
    }

    /// Has the fixture save `length` bytes with a confirmation, and waits for what the call
    /// returned (when `answer` is given), then for the confirmation, which must say
    /// `confirmation`, run on the main queue, and come after the host's event of that save.
    private func confirmedSave(
        _ length: Int, on session: String, host: HostProcess, answer: String?, outcome: HostEvent.Kind,
        message: String, confirmation: String, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let mark = host.events.count
        try ctlSucceeds("action", session, "confirm here \(length)", file: file, line: line)
        let said = try host.waitForLog(
            TestGuests.scenesID, "save \(length) = ", prefix: true, after: mark, file: file, line: line)
        if let answer { XCTAssertEqual(said.message, "save \(length) = \(answer)", file: file, line: line) }
        let stored = try host.waitForLog(
            TestGuests.scenesID, "stored \(length) @", prefix: true, after: mark, file: file, line: line)
        let text = try XCTUnwrap(stored.message, file: file, line: line)
        XCTAssertTrue(text.contains(" = \(confirmation) main="), text, file: file, line: line)
        let main = Int(text.split(separator: "=").last.map(String.init) ?? "")
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(main, text, file: file, line: line), 0, "on the main queue: \(text)")
        let events = Array(host.events.dropFirst(mark))
        let event = events.firstIndex { $0.kind == outcome && $0.session == session && $0.message == message }
        let confirmed = events.firstIndex { $0.kind == .log && $0.message == text }
        XCTAssertNotNil(event, "\(outcome.rawValue) \(message)", file: file, line: line)
        XCTAssertLessThan(
            try XCTUnwrap(event, file: file, line: line), try XCTUnwrap(confirmed, file: file, line: line),
            "confirmed after the event: \(events.map(\.humanLine))", file: file, line: line)
    }

    // CONTRACT X5: while the disk is full a save cannot be stored: the event stream says
    // state-save-failed with the cause, and `ctl ps` shows the size of the last state stored and
    // that the last save failed, not the size of the one that failed. The guest's runtime answers
    // save_scene_state before the host writes, so the save that fails first returns ok; from then
    // on the scene's saves return APPHOST_ERROR_INTERNAL (and still reach the host) until one is
    // stored. Once there is room again the next save is stored, and a later host restores it.
    private func fullDisk(_ isolation: String) throws {
        let (host, session) = try startScenesFixture(isolation)
        try save(100, on: session, host: host, answer: "ok", outcome: .stateSaved, message: "100 bytes")

        let filler = dataDirectory + "/filler"
        try fill(filler)
        try save(
            3000, on: session, host: host, answer: "ok", outcome: .stateSaveFailed,
            message: "3000 bytes not saved: disk full")
        try save(
            3001, on: session, host: host, answer: "internal", outcome: .stateSaveFailed,
            message: "3001 bytes not saved: disk full")
        var scene = try XCTUnwrap(try status().guest(TestGuests.scenesID)?.scenes.first)
        XCTAssertEqual(scene.savedBytes, 100, "the size of the last state stored, not of the one that failed")
        XCTAssertEqual(scene.saveFailure, "disk full")
        let table = try ctlSucceeds("ps").stdout.joined(separator: "\n")
        XCTAssertTrue(table.contains("saved 100 bytes  save failed: disk full"), table)

        // Room again: this save is stored (unless the host's own retry stored 3001 first, it
        // still hears of the failure before it), and the next one is ok.
        XCTAssertEqual(unlink(filler), 0)
        try save(3002, on: session, host: host, answer: nil, outcome: .stateSaved, message: "3002 bytes")
        try save(3003, on: session, host: host, answer: "ok", outcome: .stateSaved, message: "3003 bytes")
        scene = try XCTUnwrap(try status().guest(TestGuests.scenesID)?.scenes.first)
        XCTAssertEqual(scene.savedBytes, 3003)
        XCTAssertNil(scene.saveFailure)

        host.kill()
        let (_, restored) = try startScenesFixture(isolation)
        XCTAssertEqual(restored, session)
        scene = try XCTUnwrap(try status().guest(TestGuests.scenesID)?.scenes.first)
        XCTAssertEqual(scene.savedBytes, 3003, "stored for good")
    }

    /// Has the fixture save `length` bytes, and waits for what `save_scene_state` returned (when
    /// `answer` is given) and for the host's event of that save.
    private func save(
        _ length: Int, on session: String, host: HostProcess, answer: String?, outcome: HostEvent.Kind,
        message: String, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let mark = host.events.count
        try ctlSucceeds("action", session, "save here \(length)", file: file, line: line)
        let said = try host.waitForLog(
            TestGuests.scenesID, "save \(length) = ", prefix: true, after: mark, file: file, line: line)
        if let answer { XCTAssertEqual(said.message, "save \(length) = \(answer)", file: file, line: line) }
        try host.waitForEvent("\(outcome.rawValue) \(message)", after: mark, file: file, line: line) {
            $0.kind == outcome && $0.session == session && $0.message == message
        }
    }

    /// Writes to `path` until the file system has no room left.
    private func fill(_ path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        XCTAssertGreaterThanOrEqual(descriptor, 0)
        defer { close(descriptor) }
        let chunk = [UInt8](repeating: 0xF1, count: 64 * 1024)
        while true {
            let written = chunk.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 {
                XCTAssertEqual(errno, ENOSPC, String(cString: strerror(errno)))
                return
            }
        }
    }
}
