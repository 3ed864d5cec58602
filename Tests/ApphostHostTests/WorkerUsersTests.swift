import Dispatch
import Foundation
import Logging
import Synchronization
import XCTest

@testable import ApphostChannels

/// The data directory a worker under a user of its own gets while it runs (CONTRACT X2): handed
/// over whole, never past a symbolic link or a hard link into someone else's file, and taken
/// back, private, when the worker ends. Needs root, as giving files away does.
final class WorkerUsersTests: XCTestCase {
    private var scratch: String!

    override func setUpWithError() throws {
        guard geteuid() == 0 else { throw XCTSkip("giving files to another user needs root") }
        var template = Array((NSTemporaryDirectory() + "/apphost-users-XXXXXX").utf8CString)
        scratch = try XCTUnwrap(mkdtemp(&template).map { String(cString: $0) })
    }

    override func tearDown() {
        if let scratch { try? FileManager.default.removeItem(atPath: scratch) }
    }

    // CONTRACT X2: everything in the directory becomes the worker's, the directory itself private;
    // a link out of it changes only the link, a file hard-linked in stays whose it was.
    func testHandOverGivesTheDirectoryAndNothingOutsideIt() throws {
        let users = WorkerUsers(registry: scratch + "/registry", logger: Logger(label: "apphost.users.tests"))
        let outside = scratch + "/outside"
        try "someone else's".write(toFile: outside, atomically: false, encoding: .utf8)
        let directory = scratch + "/guest"
        try FileManager.default.createDirectory(atPath: directory + "/deep/deeper", withIntermediateDirectories: true)
        try "note".write(toFile: directory + "/deep/deeper/note", atomically: false, encoding: .utf8)
        XCTAssertEqual(symlink(outside, directory + "/link"), 0)
        XCTAssertEqual(symlink(scratch, directory + "/up"), 0)
        XCTAssertEqual(link(outside, directory + "/hard"), 0)

        let user = WorkerUsers.defaultBase + 4_000_000
        try users.handOver(directory, to: user)
        for path in ["", "/deep", "/deep/deeper", "/deep/deeper/note", "/link", "/up"] {
            XCTAssertEqual(try owner(directory + path).prefix(2), [user, user], path)
        }
        XCTAssertEqual(try owner(directory), [user, user, 0o700])
        XCTAssertEqual(try owner(outside).prefix(2), [0, 0], "the link's target is not given away")
        XCTAssertEqual(try owner(scratch).prefix(2), [0, 0], "the link's target is not given away")
        XCTAssertEqual(try owner(directory + "/hard").prefix(2), [0, 0], "a hard-linked file is not given away")

        XCTAssertEqual(chmod(directory, 0o777), 0)
        users.takeBack(directory)
        XCTAssertEqual(try owner(directory), [geteuid(), getegid(), 0o700], "the host's again, private")
    }

    // CONTRACT X2: two hosts with different data directories on one machine share the registry:
    // allocating at once, from two threads each, they never give one uid to two guests; a
    // library gets its recorded user back once its worker is gone, and a user bound to no guest
    // is freed with its worker.
    func testHostsOfDifferentDataDirectoriesNeverShareAUser() throws {
        let registry = scratch + "/registry"
        let hosts = ["/one/guests", "/two/guests"].map { guests in
            (guests, WorkerUsers(registry: registry, logger: Logger(label: "apphost.users.tests")))
        }
        let given = Mutex<[UInt32]>([])
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            let (guests, users) = hosts[thread % 2]
            for index in 0..<50 {
                guard let user = try? users.acquire(library: "/lib/\(thread)-\(index).so", guestsDirectory: guests)
                else { return XCTFail("no user for \(thread)-\(index)") }
                given.withLock { $0.append(user.uid) }
            }
        }
        let uids = given.withLock { $0 }
        XCTAssertEqual(uids.count, 200)
        XCTAssertEqual(Set(uids).count, 200, "no uid given twice")
        XCTAssertTrue(uids.allSatisfy(WorkerUserTable.range(base: WorkerUsers.defaultBase).contains))
        let files = try FileManager.default.contentsOfDirectory(atPath: registry).filter { UInt32($0) != nil }
        XCTAssertEqual(Set(files.compactMap { UInt32($0) }), Set(uids), "each recorded, in a file of its own")

        let (guests, users) = hosts[0]
        let first = try users.acquire(library: "/lib/guest.so", guestsDirectory: guests)
        let directory = scratch + "/guest"
        XCTAssertEqual(mkdir(directory, 0o700), 0)
        try users.adopt(first, guest: "org.guest", dataDirectory: directory)
        let second = try users.acquire(library: "/lib/guest.so", guestsDirectory: guests)
        XCTAssertNotEqual(second.uid, first.uid, "never while its worker runs")
        users.release(second)
        XCTAssertFalse(FileManager.default.fileExists(atPath: "\(registry)/\(second.uid)"), "bound to no guest: freed")
        users.release(first)
        XCTAssertTrue(FileManager.default.fileExists(atPath: "\(registry)/\(first.uid)"), "bound: kept")
        XCTAssertEqual(try users.acquire(library: "/lib/guest.so", guestsDirectory: guests).uid, first.uid)
        let fresh = WorkerUsers(registry: registry, logger: Logger(label: "apphost.users.tests"))
        XCTAssertEqual(
            try fresh.acquire(library: "/lib/guest.so", guestsDirectory: guests).uid, first.uid,
            "read back from the registry by the next host")
    }

    /// Owner, group and permission bits, of the link itself for a link.
    private func owner(_ path: String) throws -> [UInt32] {
        var info = stat()
        guard lstat(path, &info) == 0 else { throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: path]) }
        return [info.st_uid, info.st_gid, UInt32(info.st_mode & 0o7777)]
    }
}
