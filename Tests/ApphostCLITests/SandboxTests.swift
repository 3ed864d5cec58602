import ApphostVocabulary
import Foundation
import XCTest

/// Each guest lives in a container (CONTRACT X6): a hostile guest tries every way out it knows
/// (Plugins/Fixtures/escape_guest.c), at a real host and a real sibling guest, and each is refused
/// while the host, the sibling and their saved state stay as they were. Containers exist with
/// process isolation only: with `--isolation none` the guest is the host.
final class SandboxTests: HostTestCase {
    // CONTRACT X6 X7: every escape is refused, with an error rather than death; the operator
    // hears once of each system call the filter refused; the host and the other guest carry on,
    // with their files untouched; `ps` shows the container's parts and what it refused.
    func testEveryEscapeIsRefusedAndHarmsNoOne() throws {
        let (host, outcomes, sibling) = try runEscapes(options: [])
        let escaped = outcomes.filter { !$0.hasSuffix(": refused EPERM") && !$0.hasSuffix(": refused EACCES") }
        XCTAssertEqual(escaped, [], "every escape refused, by the call filter (EPERM) or Landlock (EACCES)")
        XCTAssertGreaterThanOrEqual(outcomes.count, 30, "the corpus")

        // Reported after the reply to the callback that made them, each once.
        for call in ["ptrace", "process_vm_readv", "kill", "mount", "unshare", "keyctl", "bpf", "socket"] {
            try host.waitForEvent("\(call) refused") {
                $0.kind == .sandboxRefused && $0.guest == TestGuests.escapeID && $0.name == call
            }
        }
        let calls = host.events.filter { $0.kind == .sandboxRefused && $0.guest == TestGuests.escapeID }
            .compactMap(\.name)
        XCTAssertEqual(calls.count, Set(calls).count, "once per call: \(calls)")

        let status = try status()
        XCTAssertEqual(status.guest(Self.cID)?.pid, sibling, "the other guest runs on, in the same worker")
        let escapeGuest = try XCTUnwrap(status.guest(TestGuests.escapeID)?.sandbox)
        XCTAssertEqual(escapeGuest.parts, [.filesystem, .calls])
        XCTAssertEqual(Set(escapeGuest.refused), Set(calls))
        XCTAssertEqual(status.guest(Self.cID)?.sandbox?.parts, [.filesystem, .calls])
        XCTAssertTrue(host.process.isRunning, "the host runs on")
        let siblingDirectory = "\(dataDirectory)/guests/\(Self.cID)"
        XCTAssertFalse(FileManager.default.fileExists(atPath: siblingDirectory + "/escaped"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: dataDirectory + "/escaped"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: dataDirectory + "/guests/escaped"))

        // The sibling comes back to the foreground as before.
        let mark = host.events.count
        try ctlSucceeds("switch", Self.cID)
        try host.waitForEvent("the sibling active again", after: mark) {
            $0.kind == .appState && $0.guest == Self.cID && $0.to == "active"
        }
        let table = try ctlSucceeds("ps").stdout.joined(separator: "\n")
        XCTAssertTrue(table.contains("filesystem,calls"), table)
    }

    // CONTRACT X6: without the container the same guest gets out (so the corpus can fail): it
    // reads what every user may read and lists the other guest's directory's parent.
    func testWithoutTheContainerTheSameGuestGetsOut() throws {
        let (_, outcomes, _) = try runEscapes(options: ["--sandbox", "off"])
        XCTAssertTrue(outcomes.contains("escape reading /etc/passwd: ESCAPED"), "\(outcomes)")
        XCTAssertTrue(outcomes.contains("escape listing /tmp: ESCAPED"), "\(outcomes)")
        XCTAssertNil(try status().guest(TestGuests.escapeID)?.sandbox?.parts.first, "ps shows no part")
    }

    // CONTRACT X6: `--sandbox require` starts where the machine has every part, and says so.
    func testRequireStartsWhereTheMachineHasEveryPart() throws {
        let host = try startHost([BuildProducts.cSample], options: ["--sandbox", "require"])
        try host.waitForLog(Self.cID, "callback did_become_active", prefix: true)
        XCTAssertEqual(try status().guest(Self.cID)?.sandbox?.parts, [.filesystem, .calls])
    }

    // CONTRACT X6: a guest in the host's process has no container to require.
    func testRequireRefusesTheHostsOwnProcess() throws {
        let guest = try BuildProducts.path(BuildProducts.cSample)
        let result = try runApphost(
            ["launch", "--data-dir", dataDirectory, "--isolation", "none", "--sandbox", "require", guest])
        assertOneLineError(result, containing: "--sandbox require needs --isolation process")
    }

    // CONTRACT X6 X1: inspect loads a library in the container a host would give it, so that a
    // plugin being vetted runs its constructors contained; `--sandbox require` says so or fails.
    func testInspectLoadsTheLibraryInItsContainer() throws {
        let guest = try TestGuests.escape(into: scratch.path)
        for arguments in [
            ["inspect", "--sandbox", "require", guest], ["inspect", "--launch", "--sandbox", "require", guest],
        ] {
            let result = try runApphost(arguments)
            XCTAssertEqual(result.status, 0, "\(arguments): \(result.stderr)")
            XCTAssertTrue(result.stdout.contains { $0.contains(TestGuests.escapeID) }, "\(result.stdout)")
        }
        let refused = try runApphost(["inspect", "--isolation", "none", "--sandbox", "require", guest])
        assertOneLineError(refused, containing: "--sandbox require needs --isolation process")
    }

    /// Starts a host on the C sample and the escape guest, gives the guest its targets, and
    /// relaunches it to try them; returns the host, the guest's outcome lines and the sibling's pid.
    private func runEscapes(options: [String]) throws -> (HostProcess, [String], Int32) {
        let guest = try TestGuests.escape(into: scratch.path)
        let host = try startHost([BuildProducts.cSample, guest], options: options)
        try host.waitForLog(Self.cID, "callback did_become_active", prefix: true)
        try host.waitForLog(TestGuests.escapeID, "no targets")
        let sibling = try XCTUnwrap(try status().guest(Self.cID)?.pid)
        let targets = [
            "host \(host.pid)", "sibling \(sibling)", "sibling_directory \(dataDirectory)/guests/\(Self.cID)",
            "host_directory \(dataDirectory)", "control_socket \(dataDirectory)/control.sock",
        ]
        let file = "\(dataDirectory)/guests/\(TestGuests.escapeID)/targets"
        try (targets.joined(separator: "\n") + "\n").write(toFile: file, atomically: false, encoding: .utf8)
        XCTAssertEqual(chmod(file, 0o644), 0)

        try ctlSucceeds("terminate", TestGuests.escapeID)
        let mark = host.events.count
        try ctlSucceeds("switch", TestGuests.escapeID)
        try host.waitForLog(TestGuests.escapeID, "escapes done", prefix: true, after: mark)
        let outcomes = host.events.dropFirst(mark).filter { $0.kind == .log && $0.guest == TestGuests.escapeID }
            .compactMap(\.message).filter { $0.hasPrefix("escape ") }
        return (host, outcomes, sibling)
    }
}
