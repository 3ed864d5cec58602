import Foundation
import XCTest

/// The corpus of misbehaving guests, each in one host beside the C sample: every failure is
/// reported with its cause, the host stays up and answers, and the other guests run on.
final class MisbehavingGuestTests: HostTestCase {
    private struct Misbehaviour {
        var name: String
        var flags: [String]
        /// What the event stream says of it.
        var report: String
        /// It fails while loading (a launch failure), not in a callback.
        var atLoad = false
    }

    private let corpus = [
        Misbehaviour(
            name: "segfault in init", flags: ["-DFIXTURE_DIE_IN_INIT"], report: "killed by SIGSEGV", atLoad: true),
        Misbehaviour(
            name: "crash in a library constructor", flags: ["-DFIXTURE_DIE_IN_CONSTRUCTOR"],
            report: "killed by SIGSEGV",
            atLoad: true),
        Misbehaviour(
            name: "segfault in a callback", flags: ["-DFIXTURE_DIE_IN_CALLBACK"],
            report: "crashed in will_enter_foreground: killed by SIGSEGV"),
        Misbehaviour(
            name: "abort", flags: ["-DFIXTURE_DIE_IN_CALLBACK", "-DFIXTURE_HOW=2"],
            report: "crashed in will_enter_foreground: killed by SIGABRT"),
        Misbehaviour(
            name: "exit(3)", flags: ["-DFIXTURE_DIE_IN_CALLBACK", "-DFIXTURE_HOW=3"],
            report: "crashed in will_enter_foreground: exited with status 3"),
        Misbehaviour(
            name: "busy loop in a callback", flags: ["-DFIXTURE_DIE_IN_CALLBACK", "-DFIXTURE_HOW=5"],
            report: "killed by the watchdog in will_enter_foreground: killed by SIGKILL"),
        Misbehaviour(
            name: "deadlock", flags: ["-DFIXTURE_DIE_IN_CALLBACK", "-DFIXTURE_HOW=6"],
            report: "killed by the watchdog in will_enter_foreground: killed by SIGKILL"),
    ]

    // CONTRACT X2, X1, A2, B5: each misbehaviour is contained and reported with its cause.
    func testEveryMisbehaviourIsContainedAndReported() throws {
        let libraries = try corpus.enumerated().map { index, misbehaviour in
            try TestGuests.dying(
                misbehaviour.flags + ["-pthread", "-DFIXTURE_ID=\"\(id(index))\""], as: "libMisbehaving\(index).so",
                into: scratch.path)
        }
        let busyThread = try TestGuests.busyThread(into: scratch.path)
        let sample = try BuildProducts.path(BuildProducts.cSample)
        let host = try HostProcess(
            guests: ["--watchdog", "0.3", "--watchdog-hard-limit", "0.6", sample, busyThread] + libraries,
            dataDirectory: dataDirectory)
        defer { host.kill() }
        try host.waitForLog(Self.cID, "callback did_become_active", prefix: true)

        for (index, misbehaviour) in corpus.enumerated() {
            if misbehaviour.atLoad {
                let failure = try host.waitForEvent(misbehaviour.name) {
                    $0.kind == .launchFailed && $0.message?.hasPrefix(libraries[index]) == true
                }
                XCTAssertTrue(failure.message?.hasSuffix(misbehaviour.report) == true, "\(failure.message ?? "")")
            } else {
                let guest = id(index)
                try waitForLaunch(guest, of: host)
                try ctlSucceeds("switch", guest)
                let report = try host.waitForEvent(misbehaviour.name) { $0.kind == .error && $0.guest == guest }
                XCTAssertEqual(report.message, misbehaviour.report, misbehaviour.name)
                XCTAssertEqual(try status().guest(guest)?.appState, .notRunning, misbehaviour.name)
            }
            // The host answers, and the sample and the guest spinning in its own thread run on.
            let running = try status()
            XCTAssertEqual(running.guest(Self.cID)?.phase, .running, "after \(misbehaviour.name)")
            XCTAssertEqual(running.guest(TestGuests.busyThreadID)?.phase, .running, "after \(misbehaviour.name)")
        }

        let before = host.events.count
        try ctlSucceeds("switch", Self.cID)
        try host.waitForLog(Self.cID, "callback did_become_active", prefix: true, after: before)
        host.signal(SIGTERM)
        XCTAssertEqual(try host.waitForExit(), 0)
    }

    // CONTRACT X2: a guest over its memory, process or open-file limit is stopped by the kernel
    // or fails, and its death names the limit; the host and the other guests run on.
    func testGuestsOverTheirLimitsAreReportedWithTheLimit() throws {
        let hogs = [
            ("memory", "7", "crashed in will_enter_foreground: killed by SIGKILL: memory limit of 64 MB reached"),
            ("processes", "8", "crashed in will_enter_foreground: killed by SIGABRT: process limit of 16 reached"),
            ("files", "9", "crashed in will_enter_foreground: killed by SIGABRT: open-file limit of 64 reached"),
        ]
        let libraries = try hogs.enumerated().map { index, hog in
            try TestGuests.dying(
                ["-DFIXTURE_DIE_IN_CALLBACK", "-DFIXTURE_HOW=\(hog.1)", "-DFIXTURE_ID=\"\(id(10 + index))\""],
                as: "libHog\(index).so", into: scratch.path)
        }
        let sample = try BuildProducts.path(BuildProducts.cSample)
        let host = try HostProcess(
            guests: ["--memory-limit", "64M", "--processes-limit", "16", "--files-limit", "64", sample] + libraries,
            dataDirectory: dataDirectory)
        defer { host.kill() }
        try host.waitForLog(Self.cID, "callback did_become_active", prefix: true)
        for (index, hog) in hogs.enumerated() {
            let guest = id(10 + index)
            try waitForLaunch(guest, of: host)
            try ctlSucceeds("switch", guest)
            let report = try host.waitForEvent("the \(hog.0) hog's end") { $0.kind == .error && $0.guest == guest }
            XCTAssertEqual(report.message, hog.2)
            XCTAssertEqual(try status().guest(Self.cID)?.phase, .running, "after the \(hog.0) hog")
        }
    }

    // CONTRACT X2: a worker that the memory cgroup kills while its guest loads is reported with
    // the limit, as one that dies later is: a limit too small to load anything, and a library
    // constructor that allocates past a reasonable one. It was "crashed while loading: killed by
    // SIGKILL", nothing more.
    func testAGuestKilledByItsMemoryLimitWhileLoadingIsReportedWithTheLimit() throws {
        let minimal = try TestGuests.minimal(into: scratch.path)
        let hog = try TestGuests.dying(
            ["-DFIXTURE_DIE_IN_CONSTRUCTOR", "-DFIXTURE_HOW=7"], as: "libLoadingHog.so", into: scratch.path)
        for (limit, guest, named) in [("1K", minimal, "1 KB"), ("64M", hog, "64 MB")] {
            let result = try runApphost([
                "launch", "--log-level", "error", "--data-dir", dataDirectory, "--memory-limit", limit, guest,
            ])
            XCTAssertEqual(result.status, 1, "\(limit): \(result.stderr)")
            XCTAssertEqual(
                result.stderr,
                [
                    "apphost: \(guest): the guest crashed while loading: killed by SIGKILL: memory limit of \(named) reached"
                ])
        }
    }

    // Limits need a worker to hold them.
    func testLimitsNeedProcessIsolation() throws {
        let sample = try BuildProducts.path(BuildProducts.cSample)
        let result = try runApphost(["launch", "--isolation", "none", "--memory-limit", "64M", sample])
        XCTAssertNotEqual(result.status, 0)
        XCTAssertTrue(result.stderr.contains { $0.contains("need --isolation process") }, "\(result.stderr)")
    }

    /// The guests launch one after another: a busy machine may not have launched `guest` yet
    /// when the sample is active, and a switch to a guest still launching is refused.
    private func waitForLaunch(_ guest: String, of host: HostProcess) throws {
        _ = try host.waitForEvent("\(guest)'s launch") {
            $0.kind == .appState && $0.guest == guest && $0.from == "notRunning"
        }
    }

    private func id(_ index: Int) -> String { "org.apphost.fixtures.misbehaving\(index)" }
}
