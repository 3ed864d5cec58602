import Foundation
import XCTest

/// `apphost launch` and `inspect` with process isolation, the default: each guest in a worker
/// process of its own, so that one that dies harms no other guest and not the host (CONTRACT X2).
final class IsolationTests: HostTestCase {
    private static let dyingID = "org.apphost.fixtures.dying"

    // CONTRACT X2 S12 A5: a guest that crashes in a callback is reported as an event with the
    // callback and the cause; the other guests keep running in their own workers; ps shows the
    // crashed guest notRunning with reason crash, its scene keeping the state it saved.
    func testACrashIsReportedWithItsCauseAndTheOthersRunOn() throws {
        let dying = try buildDying(["-DFIXTURE_DIE_IN_CALLBACK"], as: "libDyingFixture.so")
        let host = try startHost([BuildProducts.cSample, BuildProducts.swiftSample, dying])
        try host.waitForEvent("the dying fixture's saved state") {
            $0.kind == .stateSaved && $0.guest == Self.dyingID
        }
        XCTAssertEqual(WorkerProcesses.all(ofHost: host.pid).count, 3, "one worker per guest")

        let mark = host.events.count
        try ctlSucceeds("switch", Self.dyingID)
        let crash = try host.waitForEvent("the crash", after: mark) {
            $0.kind == .error && $0.guest == Self.dyingID
        }
        XCTAssertEqual(crash.reason, .crash)
        XCTAssertEqual(crash.message, "crashed in will_enter_foreground: killed by SIGSEGV")
        try host.waitForEvent("its termination", after: mark) {
            $0.kind == .terminated && $0.guest == Self.dyingID && $0.reason == .crash
        }

        let afterCrash = try status()
        let crashed = try XCTUnwrap(afterCrash.guest(Self.dyingID))
        XCTAssertEqual(crashed.appState, .notRunning)
        XCTAssertEqual(crashed.phase, .notRunning)
        XCTAssertEqual(crashed.lastReason, .crash)
        XCTAssertEqual(crashed.scenes.map(\.state), [.unattached])
        XCTAssertEqual(crashed.scenes.map(\.savedBytes), ["saved in will_connect".utf8.count], "saved state kept")
        XCTAssertEqual(afterCrash.guest(Self.cID)?.phase, .running)
        XCTAssertEqual(afterCrash.guest(Self.swiftID)?.phase, .running)
        XCTAssertTrue(host.process.isRunning)
        XCTAssertEqual(WorkerProcesses.all(ofHost: host.pid).count, 2, "the crashed worker is reaped, the others run")

        let back = host.events.count
        try ctlSucceeds("switch", Self.cID)
        try host.waitForLog(Self.cID, "callback did_become_active", prefix: true, after: back)
        XCTAssertEqual(try status().guest(Self.cID)?.appState, .active)
        XCTAssertEqual(host.stderr.snapshot, [], "a guest's crash is an event, not host output")
    }

    // CONTRACT A2 X2: a guest that crashes in init fails its launch with the cause; the others run.
    func testACrashInInitFailsTheLaunchWithItsCause() throws {
        let dying = try buildDying(
            ["-DFIXTURE_DIE_IN_INIT", "-DFIXTURE_HOW=2", "-DFIXTURE_ID=\"org.apphost.fixtures.dying-init\""],
            as: "libDyingInInit.so")
        let host = try startHost([dying, BuildProducts.cSample])
        try host.waitForLog(Self.cID, "callback did_become_active", prefix: true)
        let errors = host.stderr.wait(until: Date() + 10) { !$0.isEmpty }.lines
        XCTAssertEqual(errors, ["apphost: \(dying): the guest crashed while loading: killed by SIGABRT"])
        XCTAssertEqual(try status().guest(Self.cID)?.appState, .active)
    }

    // CONTRACT X1 X2: inspect loads the library in a throwaway worker: a constructor that
    // crashes costs one line and a non-zero exit, and so does one that never returns, within
    // the timeout.
    func testInspectOfALibraryWhoseConstructorCrashesOrHangsIsOneLine() throws {
        let crashing = try buildDying(["-DFIXTURE_DIE_IN_CONSTRUCTOR"], as: "libCrashingConstructor.so")
        assertOneLineError(
            try runApphost(["inspect", crashing]),
            containing: "\(crashing): the guest crashed while loading: killed by SIGSEGV")

        let hanging = try buildDying(
            ["-DFIXTURE_DIE_IN_CONSTRUCTOR", "-DFIXTURE_HOW=4"], as: "libHangingConstructor.so")
        let start = Date()
        let result = try runApphost(["inspect", hanging, "--timeout", "1"], timeout: 10)
        XCTAssertLessThan(Date().timeIntervalSince(start), 5)
        assertOneLineError(result, containing: "\(hanging): timed out: loading the library did not finish within 1 s")
    }

    // `--isolation none` keeps the in-process loader for inspect, and runs guests in the host.
    func testIsolationNoneRunsInTheHostProcess() throws {
        let sample = try BuildProducts.path(BuildProducts.cSample)
        let inspected = try runApphost(["inspect", "--isolation", "none", sample])
        XCTAssertEqual(inspected.status, 0, "\(inspected.stderr)")
        XCTAssertTrue(inspected.stdout.contains { $0.hasPrefix("id") && $0.hasSuffix(Self.cID) })

        let host = try HostProcess(guests: ["--isolation", "none", sample], dataDirectory: dataDirectory)
        defer { host.kill() }
        try host.waitForLog(Self.cID, "callback did_become_active", prefix: true)
        XCTAssertEqual(WorkerProcesses.all(ofHost: host.pid), [], "no worker process")
    }

    // CONTRACT X2 B7: workers run with no_new_privs, and none outlives a host killed with SIGKILL,
    // not even a frozen one; a new host on the same data directory starts cleanly.
    func testWorkersDieWithTheHostEvenFrozen() throws {
        let host = try startBothSamples()
        let pids = WorkerProcesses.all(ofHost: host.pid)
        XCTAssertEqual(pids.count, 2)
        for pid in pids {
            let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
            XCTAssertTrue(status.contains("NoNewPrivs:\t1"), "worker \(pid) may gain privileges")
        }
        try ctlSucceeds("suspend", Self.swiftID)
        host.signal(SIGKILL)
        _ = try host.waitForExit()
        let deadline = Date() + 10
        while Date() < deadline, pids.contains(where: { !WorkerProcesses.hasExited($0) }) { usleep(20_000) }
        XCTAssertEqual(pids.filter { !WorkerProcesses.hasExited($0) }, [], "workers outlived their host")

        let next = try startBothSamples()
        try next.waitForLog(Self.cID, "callback did_become_active", prefix: true)
    }

    // CONTRACT X2: a host started with a soft descriptor limit below its hard one raises it, for
    // its four descriptors per guest; each worker gets back the soft limit the host started with.
    func testTheHostRaisesItsDescriptorLimitAndItsWorkersKeepTheUsualOne() throws {
        var inherited = rlimit()
        XCTAssertEqual(getrlimit(Int32(RLIMIT_NOFILE.rawValue), &inherited), 0)
        let hard = inherited.rlim_max
        guard hard > 600 else { throw XCTSkip("the hard descriptor limit is \(hard)") }
        var lowered = rlimit(rlim_cur: 512, rlim_max: hard)
        XCTAssertEqual(setrlimit(Int32(RLIMIT_NOFILE.rawValue), &lowered), 0)
        let started = Result { try startBothSamples() }
        XCTAssertEqual(setrlimit(Int32(RLIMIT_NOFILE.rawValue), &inherited), 0)
        let host = try started.get()

        XCTAssertEqual(try Self.openFilesLimits(host.pid), [hard, hard])
        let pids = WorkerProcesses.all(ofHost: host.pid)
        XCTAssertEqual(pids.count, 2)
        for pid in pids { XCTAssertEqual(try Self.openFilesLimits(pid), [512, hard], "worker \(pid)") }
    }

    // CONTRACT X2: workers are spawned at the host's nice value, not at the one of whichever host
    // thread spawned them (Dispatch runs user-initiated work at -2 where it may). Without the fair
    // shares' offset (FairShareTests), that is the nice they keep.
    func testWorkersRunAtTheNiceValueOfTheHost() throws {
        let host = try startHost(
            [BuildProducts.cSample, BuildProducts.swiftSample], options: ["--worker-nice", "0"])
        try host.waitForLog(Self.cID, "callback did_become_active", prefix: true)
        try host.waitForLog(Self.swiftID, "callback will_connect", prefix: true)
        let pids = WorkerProcesses.all(ofHost: host.pid)
        XCTAssertEqual(pids.count, 2)
        let hostNice = try XCTUnwrap(WorkerProcesses.nice(host.pid))
        for pid in pids { XCTAssertEqual(WorkerProcesses.nice(pid), hostNice, "worker \(pid)") }
    }

    // MARK: Helpers

    /// The soft and hard "Max open files" of /proc/<pid>/limits.
    private static func openFilesLimits(_ pid: pid_t) throws -> [rlim_t] {
        let limits = try String(contentsOfFile: "/proc/\(pid)/limits", encoding: .utf8)
        let line = try XCTUnwrap(limits.split(separator: "\n").first { $0.hasPrefix("Max open files") })
        return line.split(separator: " ").compactMap { rlim_t($0) }
    }

    /// Plugins/Fixtures/dying_guest.c built with `flags` into this test's scratch directory.
    private func buildDying(_ flags: [String], as name: String) throws -> String {
        try TestGuests.dying(flags, as: name, into: scratch.path)
    }

    // CONTRACT X2: a worker dies with its host (PR_SET_PDEATHSIG), and the kernel counts the
    // thread that spawned it as its parent: spawned from one of Dispatch's threads, which retire
    // when idle, an idle guest was killed about 5 s after it launched. It must live on.
    func testAnIdleGuestOutlivesTheThreadThatLaunchedIt() throws {
        let host = try startHost([BuildProducts.cSample])
        try host.waitForLog(Self.cID, "callback did_become_active", prefix: true)
        Thread.sleep(forTimeInterval: 8)
        XCTAssertEqual(host.events.filter { $0.kind == .error }.compactMap(\.message), [])
        XCTAssertEqual(try status().guest(Self.cID)?.appState, .active)
    }
}
