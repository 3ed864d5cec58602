import Foundation
import Logging
import XCTest

@testable import ApphostChannels
@testable import ApphostFreezing
@testable import ApphostLimits

/// Guest limits with real processes (CONTRACT X2): Plugins/Fixtures/limit_hog.c spawned with
/// posix_spawn, limited by a `WorkerLimiter` before it starts, then left to run into the limit.
final class LimitsTests: XCTestCase {
    // MARK: Choosing a cgroup version

    /// A limit's cgroup v2 controller if it can be had, else its v1 form, else none: the host goes
    /// on without (rlimits, or nice only), and says so in its log.
    func testTheCgroupV2WayComesFirstThenV1ThenNone() {
        let logger = Logger(label: "apphost.test")
        let refused: () throws(LimitError) -> String = { () throws(LimitError) in throw LimitError("absent") }
        XCTAssertEqual(CgroupVersions.first(v2: { "v2" }, v1: { "v1" }, otherwise: "none", logger: logger), "v2")
        XCTAssertEqual(CgroupVersions.first(v2: refused, v1: { "v1" }, otherwise: "none", logger: logger), "v1")
        XCTAssertNil(CgroupVersions.first(v2: refused, v1: refused, otherwise: "none", logger: logger))
    }

    // MARK: Parsing

    // CONTRACT X2: sizes and counts the operator writes, and one-line errors for the others.
    func testMemorySizesParse() throws {
        XCTAssertEqual(try GuestLimits.parseMemory("256M"), 256 << 20)
        XCTAssertEqual(try GuestLimits.parseMemory("1G"), 1 << 30)
        XCTAssertEqual(try GuestLimits.parseMemory("512K"), 512 << 10)
        XCTAssertEqual(try GuestLimits.parseMemory("64mb"), 64 << 20)
        XCTAssertEqual(try GuestLimits.parseMemory("2097152"), 2 << 20)
        XCTAssertEqual(GuestLimits.describe(bytes: 64 << 20), "64 MB")
        XCTAssertEqual(GuestLimits.describe(bytes: 1 << 30), "1 GB")
        XCTAssertEqual(GuestLimits.describe(bytes: 1_000_001), "1000001 bytes")
    }

    func testBadLimitsGiveOneLineErrors() {
        for text in ["", "abc", "12Q", "M", "-5M", "1.5G", "99999999999999T"] {
            XCTAssertThrowsError(try GuestLimits.parseMemory(text), text) { error in
                XCTAssertTrue("\(error)".hasPrefix("--memory-limit: "), "\(error)")
                XCTAssertFalse("\(error)".contains("\n"))
            }
        }
        XCTAssertThrowsError(try GuestLimits.parseMemory("0M")) { error in
            XCTAssertEqual("\(error)", "--memory-limit: 0M is too small; it must be more than 0")
        }
        func count(_ text: String) throws(LimitError) -> Int {
            try GuestLimits.parseCount(text, option: "--files-limit", maximum: 1000, why: "a test's")
        }
        XCTAssertEqual(try count("64"), 64)
        XCTAssertEqual(try count("1000"), 1000)
        for text in ["", "x", "0", "-3", "+4", "2.5", "1001", "4294967296"] {
            XCTAssertThrowsError(try count(text), text) { error in
                XCTAssertTrue("\(error)".hasPrefix("--files-limit: "), "\(error)")
                XCTAssertFalse("\(error)".contains("\n"))
            }
        }
        XCTAssertThrowsError(try count("4294967296")) { error in
            XCTAssertEqual("\(error)", "--files-limit: 4294967296 is too large; it must be at most 1000 (a test's)")
        }
        XCTAssertGreaterThanOrEqual(GuestLimits.maximumOpenFiles, 1024, "fs.nr_open")
    }

    func testNoLimitsDoNothing() throws {
        let limiter = WorkerLimiter(limits: GuestLimits(), logger: Self.logger)
        XCTAssertTrue(limiter.mechanisms.isEmpty)
        let hog = try HogProcess(.files)
        try limiter.apply(to: hog.pid)
        XCTAssertNil(limiter.explainDeath(of: hog.pid))
        limiter.release(pid: hog.pid)
    }

    // MARK: Memory

    // CONTRACT X2: a guest over its memory limit is killed alone, and its death says memory.
    func testMemoryHogIsKilledAtItsCgroupLimit() throws {
        let limiter = WorkerLimiter(limits: GuestLimits(memoryBytes: 32 << 20), logger: Self.logger)
        guard case .cgroup(let cgroup) = limiter.memory else {
            throw XCTSkip("no memory cgroup usable here: \(limiter.mechanisms)")
        }
        let hog = try HogProcess(.memory)
        try limiter.apply(to: hog.pid)
        let directory = cgroup.cgroups.directory(of: hog.pid)
        XCTAssertEqual(try KernelFile.read("\(directory)/\(cgroup.limitFile)").trimmed, "\(32 << 20)")
        hog.go()
        XCTAssertEqual(try hog.exit(), .killed(signal: SIGKILL))
        XCTAssertEqual(limiter.explainDeath(of: hog.pid), "memory limit of 32 MB reached")
        XCTAssertEqual(limiter.limitHits(of: hog.pid).map(\.reason), ["memory"])
        limiter.release(pid: hog.pid)
        XCTAssertFalse(KernelFile.exists(directory), "release left \(directory)")
        XCTAssertFalse(KernelFile.exists(cgroup.cgroups.parent), "release left \(cgroup.cgroups.parent)")
    }

    // CONTRACT X2: a worker killed for another reason is not blamed on its memory limit.
    func testASIGKILLIsNotAMemoryDeath() throws {
        let limiter = WorkerLimiter(limits: GuestLimits(memoryBytes: 32 << 20, processes: 8), logger: Self.logger)
        guard case .cgroup = limiter.memory else {
            throw XCTSkip("no memory cgroup usable here: \(limiter.mechanisms)")
        }
        let hog = try HogProcess(.memory)
        try limiter.apply(to: hog.pid)
        kill(hog.pid, SIGKILL)
        XCTAssertEqual(try hog.exit(), .killed(signal: SIGKILL))
        XCTAssertNil(limiter.explainDeath(of: hog.pid))
        limiter.release(pid: hog.pid)
    }

    // CONTRACT X2: without a memory cgroup, RLIMIT_AS makes allocations fail instead. That death
    // is not detected: the guest dies however it handles a failed malloc.
    func testAddressSpaceLimitIsTheFallback() throws {
        let limiter = WorkerLimiter(
            limits: GuestLimits(memoryBytes: 64 << 20), hostPID: getpid(), useCgroups: false, logger: Self.logger)
        XCTAssertEqual(limiter.mechanisms, ["memory 64 MB: RLIMIT_AS"])
        let hog = try HogProcess(.memory)
        try limiter.apply(to: hog.pid)
        XCTAssertEqual(ResourceLimit.current(.addressSpace, pid: hog.pid), 64 << 20)
        hog.go()
        XCTAssertEqual(try hog.exit(), .exited(status: 44))
        XCTAssertNil(limiter.explainDeath(of: hog.pid))
        limiter.release(pid: hog.pid)
    }

    // MARK: Files

    // CONTRACT X2: open() fails with EMFILE at the limit, and a sample shows the limit reached.
    func testDescriptorHogGetsEMFILEAtItsLimit() throws {
        let limiter = WorkerLimiter(limits: GuestLimits(openFiles: 32), logger: Self.logger)
        XCTAssertEqual(limiter.mechanisms, ["files 32: RLIMIT_NOFILE"])
        let hog = try HogProcess(.files)
        try limiter.apply(to: hog.pid)
        XCTAssertEqual(ResourceLimit.current(.openFiles, pid: hog.pid), 32)
        XCTAssertLessThan(try XCTUnwrap(limiter.usage(of: hog.pid)).openFiles, 32)
        XCTAssertNil(limiter.explainDeath(of: hog.pid))
        hog.go()
        XCTAssertEqual(try hog.readLine(), "EMFILE 31")
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(limiter.usage(of: hog.pid)).openFiles, 32)
        hog.closeInput()
        XCTAssertEqual(try hog.exit(), .exited(status: 42))
        XCTAssertNil(limiter.usage(of: hog.pid), "a dead process has no descriptors to count")
        XCTAssertEqual(limiter.explainDeath(of: hog.pid), "open-file limit of 32 reached")
        limiter.release(pid: hog.pid)
        XCTAssertNil(limiter.explainDeath(of: hog.pid), "release forgets the samples")
    }

    // CONTRACT X2: the limiter samples by itself, so a worker that dies after it filled its
    // descriptor table is explained without anyone calling usage(of:).
    func testTheSamplerSeesAFullDescriptorTable() throws {
        let limiter = WorkerLimiter(limits: GuestLimits(openFiles: 16), logger: Self.logger)
        let hog = try HogProcess(.files)
        try limiter.apply(to: hog.pid)
        hog.go()
        XCTAssertEqual(try hog.readLine(), "EMFILE 15")
        usleep(UInt32(WorkerLimiter.samplingInterval.components.attoseconds / 1_000_000_000_000) * 3)
        hog.closeInput()
        XCTAssertEqual(try hog.exit(), .exited(status: 42))
        XCTAssertEqual(limiter.explainDeath(of: hog.pid), "open-file limit of 16 reached")
        limiter.release(pid: hog.pid)
    }

    // MARK: Processes

    // CONTRACT X2: a fork loop gets no more than its limit of tasks, and its death says so.
    func testForkLoopStopsAtItsPidsLimit() throws {
        let limiter = WorkerLimiter(limits: GuestLimits(processes: 8), logger: Self.logger)
        guard case .cgroup(let cgroup) = limiter.processes else {
            throw XCTSkip("no pids cgroup usable here: \(limiter.mechanisms)")
        }
        let hog = try HogProcess(.forks)
        try limiter.apply(to: hog.pid)
        let directory = cgroup.cgroups.directory(of: hog.pid)
        XCTAssertEqual(try KernelFile.read("\(directory)/pids.max").trimmed, "8")
        XCTAssertNil(limiter.explainDeath(of: hog.pid))
        hog.go()
        // The hog itself and 7 children make 8.
        XCTAssertEqual(try hog.readLine(), "EAGAIN 7")
        XCTAssertEqual(try KernelFile.read("\(directory)/pids.current").trimmed, "8")
        XCTAssertEqual(limiter.limitHits(of: hog.pid), [.processes(8)])
        hog.closeInput()
        XCTAssertEqual(try hog.exit(), .exited(status: 43))
        XCTAssertEqual(limiter.explainDeath(of: hog.pid), "process limit of 8 reached")
        // Its children die with it (PR_SET_PDEATHSIG); release waits for them to leave.
        limiter.release(pid: hog.pid)
        XCTAssertFalse(KernelFile.exists(directory), "release left \(directory)")
    }

    // CONTRACT X2: all three at once, one worker's limits apart from another's.
    func testEachWorkerHasItsOwnCgroups() throws {
        let limiter = WorkerLimiter(
            limits: GuestLimits(memoryBytes: 32 << 20, openFiles: 64, processes: 8), logger: Self.logger)
        guard case .cgroup(let memory) = limiter.memory, case .cgroup(let pids) = limiter.processes else {
            throw XCTSkip("no memory and pids cgroups usable here: \(limiter.mechanisms)")
        }
        let hog = try HogProcess(.memory)
        let bystander = try HogProcess(.files)
        try limiter.apply(to: hog.pid)
        try limiter.apply(to: bystander.pid)
        XCTAssertNotEqual(memory.cgroups.directory(of: hog.pid), memory.cgroups.directory(of: bystander.pid))
        hog.go()
        XCTAssertEqual(try hog.exit(), .killed(signal: SIGKILL))
        XCTAssertEqual(limiter.explainDeath(of: hog.pid), "memory limit of 32 MB reached")
        XCTAssertNil(limiter.explainDeath(of: bystander.pid))
        XCTAssertEqual(ProcessStat.of(pid: bystander.pid)?.hasExited, false, "the other worker runs on")
        limiter.release(pid: hog.pid)
        XCTAssertTrue(KernelFile.exists(pids.cgroups.directory(of: bystander.pid)))
        bystander.closeInput()
        XCTAssertEqual(try bystander.exit(), .exited(status: 1), "stdin closed before go")
        limiter.release(pid: bystander.pid)
        XCTAssertFalse(KernelFile.exists(memory.cgroups.parent))
        XCTAssertFalse(KernelFile.exists(pids.cgroups.parent))
    }

    static let logger = Logger(label: "apphost.limits.tests")
}

/// limit_hog.c built with one knob and spawned with pipes on stdin and stdout; it waits for `go`.
/// Killed and reaped at the end unless the test reaped it.
private final class HogProcess {
    enum Kind: String {
        case memory = "MEMORY"
        case files = "FILES"
        case forks = "FORKS"
    }

    let pid: pid_t
    private var input: Int32
    private let output: Int32
    private var reaped = false

    init(_ kind: Kind) throws {
        let program = try GuestFixtures.program(
            "limit_hog.c", name: "limit_hog_\(kind.rawValue.lowercased())", flags: ["-DHOG_\(kind.rawValue)"])
        var toChild: [Int32] = [-1, -1]
        var fromChild: [Int32] = [-1, -1]
        guard pipe(&toChild) == 0, pipe(&fromChild) == 0 else {
            throw GuestFixtures.BuildFailure(description: "pipe: \(String(cString: strerror(errno)))")
        }
        // Only the dup2'd copies go to the child (pipe2 is hidden from Swift: _GNU_SOURCE).
        for descriptor in toChild + fromChild { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, toChild[0], 0)
        posix_spawn_file_actions_adddup2(&actions, fromChild[1], 1)
        let arguments = [strdup(program), nil]
        defer { free(arguments[0]) }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, program, &actions, nil, arguments, environ)
        close(toChild[0])
        close(fromChild[1])
        guard status == 0 else {
            close(toChild[1])
            close(fromChild[0])
            throw GuestFixtures.BuildFailure(description: "posix_spawn: \(String(cString: strerror(status)))")
        }
        self.pid = pid
        input = toChild[1]
        output = fromChild[0]
        // It first closes what it inherited from this test runner, which would count against
        // its open-file limit, and says so.
        guard try readLine() == "ready 0" else {
            throw GuestFixtures.BuildFailure(description: "limit_hog did not say ready")
        }
    }

    deinit {
        if !reaped {
            kill(pid, SIGKILL)
            waitpid(pid, nil, 0)
        }
        closeInput()
        close(output)
    }

    /// Lets it start using its resource.
    func go() {
        XCTAssertEqual(write(input, "g", 1), 1)
    }

    func closeInput() {
        if input >= 0 { close(input) }
        input = -1
    }

    /// One line it printed, without the newline.
    func readLine() throws -> String {
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while read(output, &byte, 1) == 1, byte != UInt8(ascii: "\n") { bytes.append(byte) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Waits for it to end (at most 10 s) and reaps it.
    func exit() throws -> WorkerExit {
        var status: Int32 = 0
        let ended = try Polling.until(timeout: .seconds(10)) { waitpid(pid, &status, WNOHANG) == pid }
        guard ended else { throw GuestFixtures.BuildFailure(description: "process \(pid) did not end") }
        reaped = true
        return WorkerExit(waitStatus: status)
    }
}

extension String {
    fileprivate var trimmed: String { trimmingCharacters(in: .whitespacesAndNewlines) }
}
