import Foundation
import Logging
import XCTest

@testable import ApphostFreezing

/// The three ways of freezing a worker, each on a real process whose threads spin (CONTRACT
/// B7: a suspended guest runs no code, every thread of its process stopped). A mechanism is
/// skipped only where the machine lacks it; SIGSTOP is always there.
final class FreezerTests: XCTestCase {
    private let logger = Logger(label: "apphost.freezer.tests")

    // MARK: Each mechanism

    // CONTRACT B7: the cgroup v2 freezer stops every thread; thawing lets them run, twice over;
    // release removes the worker's cgroup and, with the last worker, the host's.
    func testCgroupV2FreezerStopsAndResumesEveryThread() throws {
        let freezer = try cgroupV2()
        try assertFreezesAndThaws(freezer, cgroups: freezer.cgroups)
    }

    // CONTRACT B7: the same with the cgroup v1 freezer.
    func testCgroupV1FreezerStopsAndResumesEveryThread() throws {
        let freezer = try cgroupV1()
        try assertFreezesAndThaws(freezer, cgroups: freezer.cgroups)
    }

    // CONTRACT B7: the same with SIGSTOP, where every thread must be in state T.
    func testSignalFreezerStopsAndResumesEveryThread() throws {
        try assertFreezesAndThaws(SignalFreezer(), cgroups: nil)
    }

    // MARK: Processes that exited

    // CONTRACT B7, X3: a worker that died, reaped or not, gives a FreezeError, never a crash.
    func testCgroupV2FreezingAnExitedProcessIsAnError() throws {
        let freezer = try cgroupV2()
        try assertExitedProcessIsAnError(freezer, cgroups: freezer.cgroups)
    }

    func testCgroupV1FreezingAnExitedProcessIsAnError() throws {
        let freezer = try cgroupV1()
        try assertExitedProcessIsAnError(freezer, cgroups: freezer.cgroups)
    }

    func testSignalFreezingAnExitedProcessIsAnError() throws {
        try assertExitedProcessIsAnError(SignalFreezer(), cgroups: nil)
    }

    // A frozen worker that is killed dies once thawed, whatever the mechanism: cgroup v1 holds
    // even a killed process until then, so a host that kills a frozen worker thaws it too.
    func testKilledWhileFrozenThenThawedExits() throws {
        var freezers: [any ProcessFreezer] = [SignalFreezer()]
        if let v2 = try? cgroupV2() { freezers.append(v2) }
        if let v1 = try? cgroupV1() { freezers.append(v1) }
        for freezer in freezers {
            let busy = try BusyProcess()
            try freezer.adopt(pid: busy.pid)
            try freezer.freeze(pid: busy.pid)
            kill(busy.pid, SIGKILL)
            try? freezer.thaw(pid: busy.pid)  // the process may be gone already: that error is expected
            XCTAssertTrue(try busy.reap(timeout: .seconds(3)), "\(freezer.mechanism): the killed worker exited")
            freezer.release(pid: busy.pid)
        }
    }

    // X3: a freezer signals and freezes only the workers it adopted.
    func testAProcessThatWasNotAdoptedIsRefused() throws {
        var freezers: [any ProcessFreezer] = [SignalFreezer()]
        if let v2 = try? cgroupV2() { freezers.append(v2) }
        if let v1 = try? cgroupV1() { freezers.append(v1) }
        let busy = try BusyProcess()
        for freezer in freezers {
            XCTAssertThrowsError(try freezer.freeze(pid: busy.pid), freezer.mechanism) { error in
                XCTAssertEqual(error as? FreezeError, .notAdopted(busy.pid))
            }
            XCTAssertThrowsError(try freezer.thaw(pid: busy.pid), freezer.mechanism)
            freezer.release(pid: busy.pid)  // a no-op, not a crash
        }
        XCTAssertNotEqual(busy.threadStates.first, "T")
    }

    // MARK: Choosing and cleaning up

    // CONTRACT B7: on a machine with a usable cgroup freezer (this one, and CI), the host uses it
    // rather than SIGSTOP.
    func testBestPicksACgroupFreezerWhereOneIsUsable() throws {
        let v2 = availability(CgroupLocation.v2Directory)
        let v1 = availability(CgroupLocation.v1FreezerDirectory)
        if case .failure(let v2Reason) = v2, case .failure(let v1Reason) = v1 {
            throw XCTSkip("no cgroup freezer here: \(v2Reason); \(v1Reason)")
        }
        let freezer = Freezers.best(hostPID: getpid(), logger: logger)
        let expected = if case .success = v2 { "cgroup v2" } else { "cgroup v1" }
        XCTAssertEqual(freezer.mechanism, expected)
    }

    // CONTRACT X2: a host that died leaves its cgroups, with what still runs in them (a worker it
    // left frozen, the processes its guests started); the next one kills those and removes the
    // cgroups, empty or not, and only the dead host's.
    func testStaleParentsOfDeadHostsAreRemovedWithWhatRunsInThem() throws {
        var hierarchies: [(base: String, freeze: (file: String, value: String), letRun: @Sendable (String) -> Void)] =
            []
        if case .success(let base) = availability(CgroupLocation.v2Directory) {
            hierarchies.append((base, ("cgroup.freeze", "1"), CgroupV2FreezeControl().letRun))
        }
        if case .success(let base) = availability(CgroupLocation.v1FreezerDirectory) {
            hierarchies.append((base, ("freezer.state", "FROZEN"), CgroupV1FreezeControl().letRun))
        }
        guard !hierarchies.isEmpty else { throw XCTSkip("no usable cgroup hierarchy here") }
        for (base, freeze, letRun) in hierarchies {
            let emptyParent = "\(base)/apphost-\(try deadPID())"
            let occupiedParent = "\(base)/apphost-\(try deadPID())"
            let occupied = "\(occupiedParent)/worker-2"
            let living = "\(base)/apphost-\(getppid())"
            try KernelFile.makeDirectory(emptyParent)
            try KernelFile.makeDirectory("\(emptyParent)/worker-1")
            try KernelFile.makeDirectory(occupiedParent)
            try KernelFile.makeDirectory(occupied)
            let livingExisted = KernelFile.exists(living)
            try KernelFile.makeDirectory(living)
            // An orphan, frozen, that would run on once thawed.
            let busy = try BusyProcess()
            defer {
                kill(busy.pid, SIGKILL)
                letRun(occupied)
                _ = try? busy.reap()
                _ = KernelFile.removeDirectory(occupied)
                _ = KernelFile.removeDirectory(occupiedParent)
                if !livingExisted { _ = KernelFile.removeDirectory(living) }
            }
            try KernelFile.write("\(busy.pid)", to: "\(occupied)/cgroup.procs")
            try KernelFile.write(freeze.value, to: "\(occupied)/\(freeze.file)")

            let cleaner = WorkerCgroups(base: base, hostPID: getpid(), logger: logger, thaw: letRun)
            let removed = cleaner.removeStaleParents()
            XCTAssertEqual(Set(removed), [emptyParent, occupiedParent], base)
            XCTAssertFalse(KernelFile.exists(emptyParent), "\(emptyParent) is removed")
            XCTAssertFalse(KernelFile.exists(occupiedParent), "\(occupiedParent) is emptied, then removed")
            XCTAssertTrue(try busy.reap(timeout: .seconds(1)), "the orphan in it is killed")
            XCTAssertTrue(KernelFile.exists(living), "a running host's cgroup stays")
        }
    }

    // MARK: Helpers

    /// Adopts a spinning process, checks that it runs, then twice: freezes it (its CPU time stands
    /// still for 300 ms), thaws it (its CPU time grows again). Then it exits and is released.
    private func assertFreezesAndThaws(
        _ freezer: any ProcessFreezer, cgroups: WorkerCgroups?, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let busy = try BusyProcess(spinningThreads: 2)
        try freezer.adopt(pid: busy.pid)
        if let cgroups {
            let procs = try KernelFile.read(cgroups.directory(of: busy.pid) + "/cgroup.procs")
            XCTAssertEqual(
                procs.split(separator: "\n"), ["\(busy.pid)"], "adopt moved the process", file: file, line: line)
        }
        try assertRuns(busy, "before freezing", file: file, line: line)

        for round in 1...2 {
            try freezer.freeze(pid: busy.pid)
            if freezer is SignalFreezer {
                XCTAssertEqual(Set(busy.threadStates), ["T"], "every thread stopped", file: file, line: line)
            }
            let frozen = busy.cpuTicks
            usleep(300_000)
            XCTAssertEqual(
                busy.cpuTicks, frozen, "\(freezer.mechanism), round \(round): no CPU time while frozen", file: file,
                line: line)
            try freezer.thaw(pid: busy.pid)
            XCTAssertFalse(busy.threadStates.contains("T"), "no thread stopped", file: file, line: line)
            try assertRuns(busy, "after thaw \(round)", file: file, line: line)
        }

        kill(busy.pid, SIGKILL)
        XCTAssertTrue(try busy.reap(), file: file, line: line)
        freezer.release(pid: busy.pid)
        if let cgroups {
            XCTAssertFalse(KernelFile.exists(cgroups.directory(of: busy.pid)), "release removed the worker's cgroup")
            XCTAssertFalse(KernelFile.exists(cgroups.parent), "the last release removed the host's cgroup")
        }
    }

    /// A worker that died: freezing and thawing it fail with "has exited", as a zombie and once
    /// reaped; then it is released.
    private func assertExitedProcessIsAnError(
        _ freezer: any ProcessFreezer, cgroups: WorkerCgroups?, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let busy = try BusyProcess(spinningThreads: 1)
        try freezer.adopt(pid: busy.pid)
        try busy.killLeavingZombie()
        for stage in ["a zombie", "reaped"] {
            if stage == "reaped" { XCTAssertTrue(try busy.reap(), file: file, line: line) }
            for (name, operation) in [("freeze", freezer.freeze), ("thaw", freezer.thaw)] {
                XCTAssertThrowsError(try operation(busy.pid), "\(name), \(stage)", file: file, line: line) { error in
                    XCTAssertEqual(
                        error as? FreezeError, .exited(busy.pid), "\(name), \(stage)", file: file, line: line)
                }
            }
        }
        freezer.release(pid: busy.pid)
        if let cgroups {
            XCTAssertFalse(
                KernelFile.exists(cgroups.parent), "release removed the host's cgroup", file: file, line: line)
        }
    }

    /// Its CPU time grows by a few ticks within 2 s.
    private func assertRuns(_ busy: BusyProcess, _ when: String, file: StaticString, line: UInt) throws {
        let start = busy.cpuTicks
        let grew = try Polling.until(timeout: .seconds(2)) { busy.cpuTicks >= start + 3 }
        XCTAssertTrue(grew, "CPU time grows \(when) (from \(start) to \(busy.cpuTicks) ticks)", file: file, line: line)
    }

    private func cgroupV2() throws -> CgroupFreezer {
        if case .failure(let reason) = availability(CgroupLocation.v2Directory) { throw XCTSkip("\(reason)") }
        return try CgroupFreezer.v2(hostPID: getpid(), logger: logger)
    }

    private func cgroupV1() throws -> CgroupFreezer {
        if case .failure(let reason) = availability(CgroupLocation.v1FreezerDirectory) { throw XCTSkip("\(reason)") }
        return try CgroupFreezer.v1(hostPID: getpid(), logger: logger)
    }

    /// Our cgroup directory in a hierarchy, or why this machine truly lacks it: not mounted, or
    /// mounted where we may not write (a container's read-only /sys/fs/cgroup, or not root).
    private func availability(
        _ locate: (_ mountinfo: String, _ cgroups: String) -> Result<String, FreezeError>
    ) -> Result<String, FreezeError> {
        guard let mountinfo = try? KernelFile.read("/proc/self/mountinfo"),
            let cgroups = try? KernelFile.read("/proc/self/cgroup")
        else { return .failure(FreezeError("/proc is not readable")) }
        return locate(mountinfo, cgroups).flatMap { base in
            access(base, W_OK) == 0 ? .success(base) : .failure(FreezeError("\(base) is not writable here"))
        }
    }

    /// A pid no process has, nor will have while the test runs: one above the kernel's pid_max.
    /// (The pid of a process that exited is no good: pid_max is 32768 on some machines, and a
    /// full test run wraps it, so that pid soon names a living process.)
    private func deadPID() throws -> pid_t {
        let pidMax = try XCTUnwrap(
            pid_t(try KernelFile.read("/proc/sys/kernel/pid_max").trimmingCharacters(in: .whitespacesAndNewlines)))
        deadPIDs += 1
        return pidMax + deadPIDs
    }

    private var deadPIDs: pid_t = 0
}
