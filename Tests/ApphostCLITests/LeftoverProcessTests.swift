import Foundation
import XCTest

/// Whatever a guest started ends with it (CONTRACT X2): its worker's cgroup is killed whole
/// (cgroup v2's cgroup.kill, the worker's process group where there is no cgroup) wherever the
/// worker ends, and removed once empty. The fixture starts a child that stays in the worker's
/// process group and an orphan that leaves it (double fork and setsid). With `--isolation none`
/// the guest's processes are the host's own children and nothing here applies.
final class LeftoverProcessTests: HostTestCase {
    private var libraries: [String] = []

    override func tearDown() {
        // A failing test leaves the fixture's processes asleep; end them here.
        for library in libraries { WorkerProcesses.killAll(mapping: library) }
        super.tearDown()
    }

    // CONTRACT X2: `ctl terminate` ends the guest's children and orphans with its worker.
    func testTerminateLeavesNoProcessOfTheGuest() throws {
        let library = try forking([], as: "libForkingTerminate.so")
        let host = try startHost([library])
        let cgroups = try waitForForks(host, library)
        try ctlSucceeds("terminate", TestGuests.forkingID)
        assertNothingLeft(of: library, cgroups: cgroups)
        XCTAssertTrue(host.process.isRunning)
    }

    // CONTRACT X2: a guest that crashes leaves nothing running either.
    func testACrashLeavesNoProcessOfTheGuest() throws {
        let library = try forking(["-DFIXTURE_CRASH"], as: "libForkingCrash.so")
        let host = try startHost([library])
        let cgroups = try waitForForks(host, library)
        try ctlSucceeds("memory-warning")
        try host.waitForEvent("the crash") { $0.kind == .error && $0.guest == TestGuests.forkingID }
        assertNothingLeft(of: library, cgroups: cgroups)
    }

    // CONTRACT X2: a host that shuts down leaves nothing of its guests running.
    func testShutdownLeavesNoProcessOfTheGuests() throws {
        let library = try forking([], as: "libForkingShutdown.so")
        let host = try startHost([library])
        let cgroups = try waitForForks(host, library)
        host.signal(SIGTERM)
        XCTAssertEqual(try host.waitForExit(), 0)
        assertNothingLeft(of: library, cgroups: cgroups)
    }

    // CONTRACT X2: a host killed with SIGKILL takes its workers with it (PR_SET_PDEATHSIG), but
    // not what they started; the next host ends those and removes their cgroups.
    func testTheNextHostEndsWhatAKilledHostsGuestsLeft() throws {
        let library = try forking([], as: "libForkingKilledHost.so")
        let host = try startHost([library])
        let cgroups = try waitForForks(host, library)
        host.kill()
        XCTAssertFalse(WorkerProcesses.mapping(library).isEmpty, "the orphans outlive the killed host")

        let next = try startHost([try TestGuests.minimal(into: scratch.path)])
        try next.waitForEvent("the next host's guest") { $0.kind == .appState && $0.guest == TestGuests.minimalID }
        assertNothingLeft(of: library, cgroups: cgroups)
    }

    // CONTRACT X1 X2: inspect's throwaway worker takes what the library's constructor started
    // with it, and leaves no cgroup.
    func testInspectLeavesNoProcessOfTheLibrary() throws {
        let library = try forking(["-DFIXTURE_FORK_IN_CONSTRUCTOR"], as: "libForkingConstructor.so")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try BuildProducts.apphost())
        process.arguments = ["inspect", library]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date() + 20
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "inspect prints the descriptor")
        assertNothingLeft(of: library, cgroups: [])
        if let base = WorkerProcesses.ownCgroupV2Directory() {
            let parent = "\(base)/apphost-\(process.processIdentifier)"
            XCTAssertFalse(FileManager.default.fileExists(atPath: parent), "inspect left \(parent)")
        }
    }

    // CONTRACT X1 X2: `inspect --launch` runs the guest as launch does: its constructor, init
    // and deinit under a user of its own, never root, in a cgroup of its own that is killed whole
    // at the end, orphan (setsid) included; its throwaway user is freed after. Without its
    // container, which would keep it from writing its report outside its data directory.
    func testInspectLaunchRunsTheGuestUnderAUserOfItsOwnAndLeavesNoProcess() throws {
        let report = NSTemporaryDirectory() + "apphost-inspect-report-\(UUID().uuidString)"
        defer { unlink(report) }
        let library = try forking(
            ["-DFIXTURE_FORK_IN_INIT", #"-DFIXTURE_REPORT="\#(report)""#], as: "libForkingInit.so")
        let before = Set(try FileManager.default.contentsOfDirectory(atPath: Self.registry))
        let inspected = try runApphost(["inspect", "--launch", "--sandbox", "off", library])
        XCTAssertEqual(inspected.status, 0, "\(inspected.stderr)")
        let lines = try String(contentsOfFile: report, encoding: .utf8).split(separator: "\n").map {
            $0.split(separator: " ").map(String.init)
        }
        XCTAssertEqual(lines.map { $0.first }, ["constructor", "init", "deinit"], "\(lines)")
        let range = WorkerUserTests.range
        for line in lines {
            let user = line.count > 2 ? UInt32(line[2]) : nil
            XCTAssertTrue(user.map(range.contains) ?? false, "\(line.first ?? "") ran as uid \(user ?? 0), not its own")
        }
        let orphan = try XCTUnwrap(lines.first { $0.first == "init" }.flatMap { $0.count > 4 ? pid_t($0[4]) : nil })
        XCTAssertGreaterThan(orphan, 0)
        // Gone, or dead and waiting for a parent to reap it.
        let state = WorkerProcesses.state(orphan)
        XCTAssertTrue(
            state == nil || state == "Z", "the orphan outlived inspect: state \(state.map { String($0) } ?? "gone")")
        assertNothingLeft(of: library, cgroups: [])
        XCTAssertEqual(
            Set(try FileManager.default.contentsOfDirectory(atPath: Self.registry)), before,
            "the throwaway user is freed")
    }

    // MARK: Helpers

    /// The tests' registry of worker users, made if need be.
    private static var registry: String {
        let path = BuildProducts.uidRegistry
        mkdir(path, 0o700)
        return path
    }

    private func forking(_ flags: [String], as name: String) throws -> String {
        let library = try TestGuests.forking(flags, as: name, into: scratch.path)
        libraries.append(library)
        return library
    }

    /// Waits for the fixture's forks, checks that its worker, child and orphan all run, and
    /// returns the worker's cgroup directories.
    private func waitForForks(
        _ host: HostProcess, _ library: String, file: StaticString = #filePath, line: UInt = #line
    ) throws -> [String] {
        let forked = try host.waitForLog(TestGuests.forkingID, "forked child ", prefix: true, file: file, line: line)
        let pids = (forked.message ?? "").split(separator: " ").compactMap { pid_t($0) }
        XCTAssertEqual(pids.count, 2, "\(forked.message ?? "")", file: file, line: line)
        XCTAssertFalse(pids.contains { $0 <= 0 }, "both forks worked: \(forked.message ?? "")", file: file, line: line)
        let worker = try XCTUnwrap(
            WorkerProcesses.pid(ofHost: host.pid, mapping: (library as NSString).lastPathComponent), file: file,
            line: line)
        XCTAssertEqual(
            Set(WorkerProcesses.mapping(library)), Set([worker] + pids), "the worker, its child and its orphan",
            file: file, line: line)
        return WorkerProcesses.apphostCgroups(of: worker)
    }

    /// No process has the library mapped (within a moment: the last may still be exiting), and
    /// none of the cgroups is left.
    private func assertNothingLeft(
        of library: String, cgroups: [String], file: StaticString = #filePath, line: UInt = #line
    ) {
        let deadline = Date() + 3
        while Date() < deadline, !WorkerProcesses.mapping(library).isEmpty { usleep(20_000) }
        XCTAssertEqual(WorkerProcesses.mapping(library), [], "processes of the guest are left", file: file, line: line)
        for cgroup in cgroups {
            XCTAssertFalse(FileManager.default.fileExists(atPath: cgroup), "\(cgroup) is left", file: file, line: line)
        }
    }
}
