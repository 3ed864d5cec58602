import ApphostChannels
import ApphostControl
import ApphostVocabulary
import Foundation
import XCTest

/// Each guest's user is allocated and recorded, machine-wide (CONTRACT X2): no other guest, of
/// this host or another, gets it while its files exist, so a host killed with SIGKILL leaves its
/// guests' files out of every other guest's reach, and a guest gets its user, and its files,
/// back when its host starts again. Users exist with process isolation only: with `--isolation
/// none` the guest is the host, and these tests do not apply.
final class WorkerUserTests: HostTestCase {
    private var otherHosts: [HostProcess] = []

    override func tearDown() {
        for host in otherHosts { host.kill() }
        otherHosts = []
        super.tearDown()
    }

    // CONTRACT X2: two hosts with different data directories give their guests users no other
    // guest has, each recorded in the one registry.
    func testTwoHostsOfDifferentDataDirectoriesNeverShareAUser() throws {
        let first = try startHost([BuildProducts.cSample, BuildProducts.swiftSample])
        try first.waitForLog(Self.swiftID, "callback will_connect", prefix: true)
        let otherData = scratch.path + "/other-data"
        let second = try otherHost([BuildProducts.cSample, BuildProducts.swiftSample], dataDirectory: otherData)
        try second.waitForLog(Self.swiftID, "callback will_connect", prefix: true)

        var users: [UInt32] = []
        for status in [try status(), try status(of: otherData)] {
            for id in [Self.cID, Self.swiftID] {
                let pid = try XCTUnwrap(status.guest(id)?.pid, id)
                users.append(try XCTUnwrap(try Self.user(of: pid)))
            }
        }
        XCTAssertEqual(Set(users).count, 4, "four guests, four users: \(users)")
        for user in users {
            XCTAssertTrue(Self.range.contains(user), "\(user)")
            XCTAssertTrue(FileManager.default.fileExists(atPath: "\(BuildProducts.uidRegistry)/\(user)"), "\(user)")
        }
    }

    // CONTRACT X2: a host that could give its guests users of their own but cannot record them
    // (here, the registry is a file) does not start, rather than run its guests as root; nor does
    // inspect --launch. Users of their own need root, as CI has.
    func testAHostThatCannotRecordUsersDoesNotRunGuestsAsRoot() throws {
        try XCTSkipUnless(geteuid() == 0, "users of their own need root")
        let registry = try scratch.file("not-a-directory", contents: "")
        let guest = try BuildProducts.path(BuildProducts.cSample)
        for arguments in [["launch", "--data-dir", dataDirectory, guest], ["inspect", "--launch", guest]] {
            let result = try runApphost(arguments, environment: ["APPHOST_UID_REGISTRY": registry])
            assertOneLineError(
                result, containing: "the uid registry \(registry) is not a directory: guests would run as root")
            XCTAssertEqual(result.status, 1, "\(arguments)")
        }
    }

    // CONTRACT X2: a data directory the operator made 0755 is the workers' group's to search and
    // nobody else's once the host runs (0710, as the host makes its own), not 0715, which let
    // every user list the guests.
    func testADataDirectoryMade0755IsNoOtherUsersToList() throws {
        try XCTSkipUnless(geteuid() == 0, "users of their own need root")
        try FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true)
        chmod(dataDirectory, 0o755)
        let host = try startHost([BuildProducts.cSample])
        try host.waitForLog(Self.cID, "callback did_become_active", prefix: true)
        var info = stat()
        XCTAssertEqual(stat(dataDirectory, &info), 0)
        XCTAssertEqual(String(info.st_mode & 0o7777, radix: 8), "710")
    }

    // CONTRACT X2: after its host was killed with SIGKILL, a guest's directory is still its user's,
    // which nobody else gets; when the host starts again, the guest runs as the same user and
    // its files are its own.
    func testAfterSIGKILLAndARestartEachGuestGetsItsUserAndFilesBack() throws {
        let minimal = try TestGuests.minimal(into: scratch.path, flags: ["-DFIXTURE_WRITE_DATA"])
        let host = try startHost([BuildProducts.cSample, minimal])
        try host.waitForLog(TestGuests.minimalID, "wrote note")
        try host.waitForLog(Self.cID, "callback did_become_active", prefix: true)
        let before = try status()
        var users: [String: UInt32] = [:]
        for id in [Self.cID, TestGuests.minimalID] {
            users[id] = try XCTUnwrap(try Self.user(of: try XCTUnwrap(before.guest(id)?.pid, id)))
        }
        host.kill()
        let directory = "\(dataDirectory)/guests/\(TestGuests.minimalID)"
        let user = try XCTUnwrap(users[TestGuests.minimalID])
        XCTAssertEqual(try Self.owner(of: directory).prefix(2), [user, user], "left as the killed host left it")

        let again = try startHost([BuildProducts.cSample, minimal])
        try again.waitForLog(TestGuests.minimalID, "wrote note")
        try again.waitForLog(Self.cID, "callback did_become_active", prefix: true)
        let after = try status()
        for id in [Self.cID, TestGuests.minimalID] {
            let pid = try XCTUnwrap(after.guest(id)?.pid, id)
            XCTAssertEqual(try Self.user(of: pid), users[id], "\(id) runs as its user again")
        }
        XCTAssertEqual(try Self.owner(of: directory), [user, user, 0o700])
        XCTAssertEqual(try Self.owner(of: directory + "/note").prefix(2), [user, user], "its file is its own")
    }

    // CONTRACT X2: a real escape attempt. A host is killed with SIGKILL while its guest's file is
    // in its directory; a guest of another host, on another data directory, started until its
    // worker gets the killed worker's pid (as a busy machine would give it, sooner or later),
    // tries to read that file and cannot.
    func testAGuestOfAnotherHostCannotReadAKilledHostsGuestsFiles() throws {
        // Orphans come to this process, which reaps the killed worker so that its pid is free.
        XCTAssertEqual(Self.setChildSubreaper(1), 0)
        // The hosts this test runs are this process's children of its own; what else came to it
        // (what the killed host left, its spawner among them) is killed and reaped before the
        // test ends, or it would stay a zombie child of the test process for later tests to find.
        var hosts: [pid_t] = []
        defer {
            Self.reapAdopted(except: hosts)
            _ = Self.setChildSubreaper(0)
        }
        let minimal = try TestGuests.minimal(into: scratch.path, flags: ["-DFIXTURE_WRITE_DATA"])
        let victim = try startHost([minimal])
        hosts.append(victim.pid)
        try victim.waitForLog(TestGuests.minimalID, "wrote note")
        let worker = try XCTUnwrap(try status().guest(TestGuests.minimalID)?.pid)
        let victimUser = try XCTUnwrap(try Self.user(of: worker))
        victim.kill()
        var reaped: Int32 = 0
        while waitpid(worker, &reaped, 0) < 0 && errno == EINTR {}
        let note = "\(dataDirectory)/guests/\(TestGuests.minimalID)/note"
        XCTAssertEqual(try Self.owner(of: note).prefix(2), [victimUser, victimUser])

        let proberID = TestGuests.proberID
        let prober = try TestGuests.prober(reading: note, into: scratch.path)
        let otherData = scratch.path + "/other-data"
        let host = try otherHost([prober], dataDirectory: otherData)
        hosts.append(host.pid)
        var mark = 0
        var consumed: Int32 = 1
        var reused = false
        var probes: [String] = []
        for attempt in 0..<40 {
            let probe = try host.waitForLog(proberID, "probe: ", prefix: true, after: mark)
            probes.append(probe.message ?? "")
            let pid = try XCTUnwrap(try status(of: otherData).guest(proberID)?.pid)
            if pid == worker {
                reused = true
                break
            }
            // How many pids went to others between the write and the worker: aim that far back.
            consumed = pid - worker + consumed
            if consumed < 1 || consumed > 2000 { consumed = 1 }
            XCTAssertEqual(try ctl(at: otherData, "terminate", proberID).status, 0, "attempt \(attempt)")
            mark = host.events.count
            // Where the kernel refuses (no CAP_SYS_ADMIN), the attempts go on unsteered.
            try? Self.setLastPID(worker - consumed)
            XCTAssertEqual(try ctl(at: otherData, "switch", proberID).status, 0, "attempt \(attempt)")
        }
        XCTAssertEqual(Set(probes), ["probe: EACCES"], "no attempt read the file (reused pid: \(reused))")
        print(
            "WorkerUserTests: \(probes.count) attempts, \(reused ? "the last with" : "none with") pid \(worker) again")
    }

    // MARK: Helpers

    /// The uids workers get: the 2^22 above the shared group (WorkerUserTable.range).
    static let range = (WorkerUsers.defaultBase + 1)...(WorkerUsers.defaultBase + (1 << 22))

    /// prctl(PR_SET_CHILD_SUBREAPER, on): prctl is variadic, which Swift does not import.
    private static func setChildSubreaper(_ on: UInt) -> Int32 {
        typealias Prctl = @convention(c) (Int32, UInt, UInt, UInt, UInt) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "prctl") else { return -1 }
        return unsafeBitCast(symbol, to: Prctl.self)(36 /* PR_SET_CHILD_SUBREAPER */, on, 0, 0, 0)
    }

    /// Kills and reaps this process's children but `hosts`: the orphans a subreaper adopted.
    private static func reapAdopted(except hosts: [pid_t]) {
        let me = getpid()
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = pid_t(entry), !hosts.contains(pid),
                let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { continue }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 1, pid_t(fields[1]) == me else { continue }
            kill(pid, SIGKILL)
            while waitpid(pid, nil, 0) < 0 && errno == EINTR {}
        }
    }

    /// The next process gets `pid + 1`, unless another takes it first (root only).
    private static func setLastPID(_ pid: pid_t) throws {
        let descriptor = open("/proc/sys/kernel/ns_last_pid", O_WRONLY)
        guard descriptor >= 0 else { throw CocoaError(.fileWriteNoPermission) }
        defer { close(descriptor) }
        let text = Array("\(pid)".utf8)
        guard write(descriptor, text, text.count) == text.count else { throw CocoaError(.fileWriteUnknown) }
    }

    private func otherHost(_ guests: [String], dataDirectory: String) throws -> HostProcess {
        let paths = try guests.map { $0.hasPrefix("/") ? $0 : try BuildProducts.path($0) }
        let host = try HostProcess(guests: paths, dataDirectory: dataDirectory)
        otherHosts.append(host)
        return host
    }

    private func ctl(at dataDirectory: String, _ arguments: String...) throws -> CommandResult {
        try runApphost(["ctl"] + arguments + ["--data-dir", dataDirectory])
    }

    private func status(of dataDirectory: String) throws -> HostStatus {
        let result = try ctl(at: dataDirectory, "ps", "--json")
        XCTAssertEqual(result.status, 0, result.stderr.joined(separator: "\n"))
        return try ControlCoding.decode(HostStatus.self, from: result.stdout.joined())
    }

    /// The real uid of a process.
    static func user(of pid: pid_t) throws -> UInt32? {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let line = status.split(separator: "\n").first { $0.hasPrefix("Uid:") }
        return line?.dropFirst(4).split(whereSeparator: \.isWhitespace).first.flatMap { UInt32($0) }
    }

    /// Owner, group and permission bits of a file.
    static func owner(of path: String) throws -> [UInt32] {
        var info = stat()
        guard lstat(path, &info) == 0 else { throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: path]) }
        return [info.st_uid, info.st_gid, UInt32(info.st_mode & 0o7777)]
    }
}
