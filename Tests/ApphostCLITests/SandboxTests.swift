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
    // The network's are refused too (A6: the guest does not declare it), each naming the
    // entitlement for the operator, and its worker is in a network namespace that is not the
    // host's; its fork bomb stops at --processes-limit.
    func testEveryEscapeIsRefusedAndHarmsNoOne() throws {
        let (host, outcomes, sibling) = try runEscapes(options: [])
        let escaped = outcomes.filter {
            !$0.hasSuffix(": refused EPERM") && !$0.hasSuffix(": refused EACCES")
                && $0 != "escape a fork bomb: refused EAGAIN"
        }
        XCTAssertEqual(escaped, [], "every escape refused, by the call filter (EPERM), Landlock (EACCES) or a limit")
        XCTAssertGreaterThanOrEqual(outcomes.count, 50, "the corpus")

        // Reported after the reply to the callback that made them, each once.
        for call in ["ptrace", "process_vm_readv", "kill", "mount", "unshare", "keyctl", "bpf", "socket"] {
            try host.waitForEvent("\(call) refused") {
                $0.kind == .sandboxRefused && $0.guest == TestGuests.escapeID && $0.name == call
            }
        }
        for family in ["AF_INET", "AF_INET6", "AF_PACKET"] {
            let event = try host.waitForEvent("socket(\(family)) refused for want of the network") {
                $0.kind == .entitlementMissing && $0.guest == TestGuests.escapeID
                    && $0.message?.contains("socket(\(family))") == true
            }
            XCTAssertEqual(event.name, "network")
        }
        let calls = host.events.filter { $0.kind == .sandboxRefused && $0.guest == TestGuests.escapeID }
            .compactMap(\.name)
        XCTAssertEqual(calls.count, Set(calls).count, "once per call: \(calls)")

        let status = try status()
        XCTAssertEqual(status.guest(Self.cID)?.pid, sibling, "the other guest runs on, in the same worker")
        let escapeGuest = try XCTUnwrap(status.guest(TestGuests.escapeID)?.sandbox)
        XCTAssertEqual(escapeGuest.parts, [.filesystem, .calls, .network])
        XCTAssertEqual(
            Set(escapeGuest.refused), Set(calls + ["socket(AF_INET)", "socket(AF_INET6)", "socket(AF_PACKET)"]))
        XCTAssertEqual(status.guest(Self.cID)?.sandbox?.parts, [.filesystem, .calls, .network])
        let worker = try XCTUnwrap(status.guest(TestGuests.escapeID)?.pid)
        XCTAssertNotEqual(try networkNamespace(of: worker), try networkNamespace(of: getpid()), "no network")
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
        XCTAssertTrue(table.contains("filesystem,calls,network"), table)
        let metrics = try PrometheusText(lines: try ctlSucceeds("metrics").stdout)
        let guest = #"guest="\#(TestGuests.escapeID)""#
        XCTAssertEqual(metrics["apphost_guest_sandbox_refusals_total{\(guest)}"], Double(Set(calls).count + 3))
        XCTAssertEqual(metrics[#"apphost_guest_sandbox{\#(guest),parts="filesystem,calls,network"}"#], 1)
    }

    // CONTRACT A6 X6: a guest that declares the network gets it, and no more: its network
    // attempts reach the test's listeners on the loopback, in the host's network namespace, while
    // every other escape is refused as before. Its worker is loaded once in the unknown guest's
    // container, then again in its own.
    func testAGuestWithTheNetworkEntitlementGetsTheNetworkAndNoMore() throws {
        let (host, outcomes, _) = try runEscapes(options: [], network: true)
        let network = [
            "opening a TCP socket", "opening a UDP socket", "opening an IPv6 TCP socket", "opening a packet socket",
            "connecting to a listener on the loopback", "sending a datagram on the loopback",
        ]
        for name in network where name != "opening a packet socket" {
            XCTAssertTrue(outcomes.contains("escape \(name): ESCAPED"), "\(name): \(outcomes)")
        }
        let others = outcomes.filter { line in !network.contains { line.hasPrefix("escape \($0):") } }
        let escaped = others.filter {
            !$0.hasSuffix(": refused EPERM") && !$0.hasSuffix(": refused EACCES")
                && $0 != "escape a fork bomb: refused EAGAIN"
        }
        XCTAssertEqual(escaped, [], "the network and nothing else")
        XCTAssertEqual(try listeners.received(), ["escape", "escape"], "the TCP listener and the UDP socket heard it")
        let status = try status()
        XCTAssertEqual(status.guest(TestGuests.escapeID)?.sandbox?.parts, [.filesystem, .calls])
        let worker = try XCTUnwrap(status.guest(TestGuests.escapeID)?.pid)
        XCTAssertEqual(try networkNamespace(of: worker), try networkNamespace(of: getpid()), "the host's network")
        XCTAssertFalse(host.events.contains { $0.kind == .entitlementMissing }, "nothing missing")
        let metrics = try PrometheusText(lines: try ctlSucceeds("metrics").stdout)
        XCTAssertEqual(
            metrics[#"apphost_guest_sandbox{guest="\#(TestGuests.escapeID)",parts="filesystem,calls"}"#], 1)
    }

    // CONTRACT A6: without audio input a guest cannot record: set_configuration(RECORD) gets
    // APPHOST_ERROR_NOT_DECLARED and the operator an event naming the entitlement, in either
    // isolation mode.
    func testRecordingWithoutAudioInputIsRefusedInProcess() throws { try recordingWithoutInput("none") }
    func testRecordingWithoutAudioInputIsRefusedIsolated() throws { try recordingWithoutInput("process") }

    private func recordingWithoutInput(_ isolation: String) throws {
        let guest = try TestGuests.renderFault(0, recordsOnly: true, declaresInput: false, into: scratch.path)
        let host = try startHost([guest], options: ["--isolation", isolation, "--audio-output", "null"])
        try host.waitForLog(TestGuests.renderFaultID, "configure record = not_declared")
        let event = try host.waitForEvent("audio input missing") {
            $0.kind == .entitlementMissing && $0.guest == TestGuests.renderFaultID
        }
        XCTAssertEqual(event.name, "audio-input")
        XCTAssertEqual(
            event.message,
            "the container refused set_configuration(RECORD): the guest does not declare the audio-input entitlement (CONTRACT A6)"
        )
    }

    // CONTRACT A6 X6: `--grant id:PATH:ro` lets that guest read PATH and nothing more: the escape
    // guest reads a granted file but still cannot write beside it; malformed grants are one-line
    // errors.
    func testAGrantLetsTheGuestReadThatPathOnly() throws {
        let granted = scratch.path + "/granted"
        try FileManager.default.createDirectory(atPath: granted, withIntermediateDirectories: true)
        try "shared\n".write(toFile: granted + "/shared.txt", atomically: false, encoding: .utf8)
        XCTAssertEqual(chmod(scratch.path, 0o755), 0)
        XCTAssertEqual(chmod(granted, 0o755), 0)
        XCTAssertEqual(chmod(granted + "/shared.txt", 0o644), 0)
        let (_, outcomes, _) = try runEscapes(
            options: ["--grant", "\(TestGuests.escapeID):\(granted):ro"], grantProbe: granted)
        XCTAssertTrue(outcomes.contains("escape reading a granted file: ESCAPED"), "\(outcomes)")
        XCTAssertTrue(outcomes.contains("escape writing in a granted directory: refused EACCES"), "\(outcomes)")

        let guest = try BuildProducts.path(BuildProducts.cSample)
        for (grant, error) in [
            ("org.example:relative:ro", "the path must be absolute"), ("nodots:/tmp:ro", "is not a guest id"),
            ("org.example.a:/tmp:rw", "the mode is ro"), ("org.example.a:/no/such/path:ro", "does not exist"),
            ("org.example.a", "expected <guest id>:<absolute path>:ro"),
        ] {
            let result = try runApphost(["launch", "--data-dir", dataDirectory, "--grant", grant, guest])
            assertOneLineError(result, containing: error)
        }
    }

    // CONTRACT X6: without the container the same guest gets out (so the corpus can fail): it
    // reads what every user may read and lists the other guest's directory's parent.
    func testWithoutTheContainerTheSameGuestGetsOut() throws {
        let (_, outcomes, _) = try runEscapes(options: ["--sandbox", "off"])
        XCTAssertTrue(outcomes.contains("escape reading /etc/passwd: ESCAPED"), "\(outcomes)")
        XCTAssertTrue(outcomes.contains("escape listing /tmp: ESCAPED"), "\(outcomes)")
        XCTAssertNil(try status().guest(TestGuests.escapeID)?.sandbox?.parts.first, "ps shows no part")
    }

    // CONTRACT X6: a worker's container is the host's choice alone: what the host's environment
    // says of a container (a filter program, grants, parts) never reaches a worker. Were the
    // broken program passed on, the worker would refuse to load; were the grant, the guest would
    // read /etc/passwd.
    func testTheHostsEnvironmentSaysNothingOfAWorkersContainer() throws {
        let environment = [
            "APPHOST_WORKER_CALL_FILTER": "not a program", "APPHOST_WORKER_GRANTS": "/etc",
            "APPHOST_WORKER_SANDBOX": "filesystem",
        ]
        let (_, outcomes, _) = try runEscapes(options: [], environment: environment)
        XCTAssertTrue(outcomes.contains("escape reading /etc/passwd: refused EACCES"), "\(outcomes)")
        XCTAssertTrue(outcomes.contains("escape opening a TCP socket: refused EPERM"), "\(outcomes)")
    }

    // CONTRACT X6: `--sandbox require` starts where the machine has every part, and says so.
    func testRequireStartsWhereTheMachineHasEveryPart() throws {
        let host = try startHost([BuildProducts.cSample], options: ["--sandbox", "require"])
        try host.waitForLog(Self.cID, "callback did_become_active", prefix: true)
        XCTAssertEqual(try status().guest(Self.cID)?.sandbox?.parts, [.filesystem, .calls, .network])
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

    /// The test's TCP listener and UDP socket on the loopback, which the escape guest aims at.
    private var listeners = LoopbackListeners()

    /// Starts a host on the C sample and the escape guest (`network`: the one that declares the
    /// network), gives the guest its targets, and relaunches it to try them; returns the host, the
    /// guest's outcome lines and the sibling's pid. Its fork bomb stops at 64 processes.
    private func runEscapes(
        options: [String], network: Bool = false, grantProbe: String? = nil, environment: [String: String] = [:]
    ) throws -> (
        HostProcess, [String], Int32
    ) {
        let guest = try TestGuests.escape(network: network, into: scratch.path)
        let host = try startHost(
            [BuildProducts.cSample, guest], options: options + ["--processes-limit", "64"], environment: environment)
        try host.waitForLog(Self.cID, "callback did_become_active", prefix: true)
        try host.waitForLog(TestGuests.escapeID, "no targets")
        let sibling = try XCTUnwrap(try status().guest(Self.cID)?.pid)
        let targets =
            [
                "host \(host.pid)", "sibling \(sibling)", "sibling_directory \(dataDirectory)/guests/\(Self.cID)",
                "host_directory \(dataDirectory)", "control_socket \(dataDirectory)/control.sock",
                "tcp_port \(try listeners.tcpPort())", "udp_port \(try listeners.udpPort())",
            ] + (grantProbe.map { ["granted \($0)"] } ?? [])
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

    /// The inode of `pid`'s network namespace.
    private func networkNamespace(of pid: Int32) throws -> UInt64 {
        var status = stat()
        guard stat("/proc/\(pid)/ns/net", &status) == 0 else { throw POSIXError(.ENOENT) }
        return UInt64(status.st_ino)
    }
}
