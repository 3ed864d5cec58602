import ApphostChannels
import Foundation
import XCTest

/// A guest that signals its host or another guest (kill(getppid(), ...), kill(-1, ...), kill of
/// another worker's pid) harms neither (CONTRACT X2). With process isolation a root host, as the
/// tests run, gives each worker a user of its own before the guest loads, and the kernel refuses
/// the signals. With `--isolation none` the guest is the host: there is no one to protect the
/// host from, and these tests do not apply (the fixture would signal the test runner).
final class SignalIsolationTests: HostTestCase {
    // CONTRACT X2: SIGTERM would shut the host down gracefully, and end the other guest.
    func testAGuestCannotShutDownItsHostOrEndAnotherGuest() throws {
        try assertSignalsAreRefused("SIGTERM")
    }

    // CONTRACT X2: SIGSTOP would leave the host, and the other guest, stopped for good.
    func testAGuestCannotStopItsHostOrAnotherGuest() throws {
        try assertSignalsAreRefused("SIGSTOP")
    }

    // CONTRACT X2: SIGKILL would end the host, and with it every guest.
    func testAGuestCannotKillItsHostOrAnotherGuest() throws {
        try assertSignalsAreRefused("SIGKILL")
    }

    // CONTRACT X2: init runs the guest's code as well, before any callback.
    func testAGuestCannotKillItsHostOrAnotherGuestFromInit() throws {
        try assertSignalsAreRefused("SIGKILL", flags: ["-DFIXTURE_SIGNAL_IN_INIT"])
    }

    // CONTRACT X2: what keeps those signals out: each guest runs under a user and group of its
    // own, allocated from the range and recorded, with the base as its only other group. Its data
    // directory is its own while it runs, private; given back to the host when it ends; and the
    // guest gets the same user again at its next launch.
    func testEachWorkerRunsUnderAUserOfItsOwnThatOwnsItsDataDirectory() throws {
        let base = WorkerUsers.defaultBase
        let range = WorkerUserTests.range
        let minimal = try TestGuests.minimal(into: scratch.path, flags: ["-DFIXTURE_WRITE_DATA"])
        let host = try startHost([BuildProducts.cSample, minimal])
        try host.waitForLog(Self.cID, "callback did_become_active", prefix: true)
        try host.waitForLog(TestGuests.minimalID, "wrote note")

        let status = try status()
        let workers = try [Self.cID, TestGuests.minimalID].map { try XCTUnwrap(status.guest($0)?.pid, $0) }
        var users: [UInt32] = []
        for pid in workers {
            let user = try XCTUnwrap(try Self.ids("Uid", of: pid).first)
            XCTAssertTrue(range.contains(user), "worker \(pid): uid \(user)")
            XCTAssertEqual(try Self.ids("Uid", of: pid), Array(repeating: user, count: 4), "worker \(pid)")
            XCTAssertEqual(try Self.ids("Gid", of: pid), Array(repeating: user, count: 4), "worker \(pid)")
            XCTAssertEqual(try Self.ids("Groups", of: pid), [base], "worker \(pid)")
            XCTAssertTrue(
                FileManager.default.fileExists(atPath: "\(BuildProducts.uidRegistry)/\(user)"), "uid \(user) recorded")
            users.append(user)
        }
        XCTAssertNotEqual(users[0], users[1], "a user per guest")
        let directory = "\(dataDirectory)/guests/\(TestGuests.minimalID)"
        let first = users[1]
        XCTAssertEqual(try Self.owner(of: directory), [first, first, 0o700])
        XCTAssertEqual(try Self.owner(of: directory + "/note").prefix(2), [first, first])

        try ctlSucceeds("terminate", TestGuests.minimalID)
        XCTAssertEqual(try Self.owner(of: directory), [geteuid(), getegid(), 0o700], "given back to the host")

        let mark = host.events.count
        try ctlSucceeds("switch", TestGuests.minimalID)
        try host.waitForLog(TestGuests.minimalID, "wrote note", after: mark)
        let next = try XCTUnwrap(try self.status().guest(TestGuests.minimalID)?.pid)
        XCTAssertEqual(try Self.ids("Uid", of: next).first, first, "the same user at the next launch")
        XCTAssertEqual(try Self.owner(of: directory), [first, first, 0o700])
        XCTAssertEqual(try Self.owner(of: directory + "/note").prefix(2), [first, first])
    }

    // CONTRACT X1 X2: a library the worker's user may not read is reported so, not as a missing
    // dependency, by inspect and by launch.
    func testALibraryOtherUsersMayNotReadIsReportedAsUnreadable() throws {
        let hidden = scratch.path + "/hidden"
        XCTAssertEqual(mkdir(hidden, 0o700), 0)
        let library = try TestGuests.minimal(into: hidden)
        let expected =
            "\(library): cannot read the file: Permission denied (its worker runs as a user of its own: a guest "
            + "must be readable by other users)"
        assertOneLineError(try runApphost(["inspect", library]), containing: expected)
        let host = try startHost([library, BuildProducts.cSample])
        try host.waitForEvent("the launch failure") { $0.kind == .launchFailed && $0.message == expected }
    }

    // MARK: Helpers

    /// The numbers of a line of /proc/<pid>/status: "Uid:" real, effective, saved, file system.
    private static func ids(_ field: String, of pid: pid_t) throws -> [UInt32] {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let line = try XCTUnwrap(status.split(separator: "\n").first { $0.hasPrefix(field + ":") })
        return line.dropFirst(field.count + 1).split(whereSeparator: \.isWhitespace).compactMap { UInt32($0) }
    }

    /// Owner, group and permission bits of a file.
    private static func owner(of path: String) throws -> [UInt32] {
        var info = stat()
        guard lstat(path, &info) == 0 else { throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: path]) }
        return [info.st_uid, info.st_gid, UInt32(info.st_mode & 0o7777)]
    }

    /// Launches the minimal fixture, then the signalling one, which sends `signal` to the minimal
    /// fixture's worker, to every process it may and to the host. Each is refused, the host answers
    /// `ctl ps`, and both guests run on. Without the container (`--sandbox off`), whose call filter
    /// refuses them too (SandboxTests) and whose file system rules keep the fixture from listing
    /// /proc: this checks the users of their own alone.
    private func assertSignalsAreRefused(
        _ signal: String, flags: [String] = [], file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let minimal = try TestGuests.minimal(into: scratch.path)
        let signalling = try TestGuests.signalling(
            ["-DFIXTURE_SIGNAL=\(signal)"] + flags, as: "libSignalling.so", into: scratch.path)
        let host = try startHost([minimal, signalling], options: ["--sandbox", "off"])
        try host.waitForLog(TestGuests.signallingID, "signalled", file: file, line: line)

        let lines = host.events.filter { $0.kind == .log && $0.guest == TestGuests.signallingID }
            .compactMap(\.message)
        let status = try status(file: file, line: line)
        let other = try XCTUnwrap(
            status.guest(TestGuests.minimalID)?.pid, "the minimal fixture's worker", file: file, line: line)
        XCTAssertTrue(
            lines.contains("kill(worker \(other), \(signal)): EPERM"),
            "the other guest's worker is out of reach: \(lines)", file: file, line: line)
        XCTAssertTrue(
            lines.contains("kill(host, \(signal)): EPERM"), "the host is out of reach: \(lines)", file: file, line: line
        )
        let everything = lines.first { $0.hasPrefix("kill(-1, \(signal))") }
        XCTAssertTrue(
            everything == "kill(-1, \(signal)): ESRCH" || everything == "kill(-1, \(signal)): sent",
            "kill(-1) reached nothing it must not: \(everything ?? "not tried")", file: file, line: line)

        // What a signal that got through would have done takes a moment to show.
        Thread.sleep(forTimeInterval: 0.5)
        XCTAssertTrue(host.process.isRunning, "the host runs", file: file, line: line)
        XCTAssertNotEqual(WorkerProcesses.state(host.pid), "T", "the host is not stopped", file: file, line: line)
        let after = try self.status(file: file, line: line)
        for id in [TestGuests.minimalID, TestGuests.signallingID] {
            XCTAssertEqual(after.guest(id)?.phase, .running, "\(id) runs on", file: file, line: line)
        }
        XCTAssertEqual(
            after.guest(TestGuests.minimalID)?.pid, other, "the other guest's worker lives", file: file, line: line)
        XCTAssertNotEqual(
            WorkerProcesses.state(other), "T", "the other guest's worker is not stopped", file: file, line: line)
        XCTAssertEqual(
            host.events.filter { $0.kind == .error }.compactMap(\.message), [], "no guest died", file: file, line: line)
    }
}
