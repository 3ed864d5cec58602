import Foundation
import Logging
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
        let users = WorkerUsers(logger: Logger(label: "apphost.users.tests"))
        let outside = scratch + "/outside"
        try "someone else's".write(toFile: outside, atomically: false, encoding: .utf8)
        let directory = scratch + "/guest"
        try FileManager.default.createDirectory(atPath: directory + "/deep/deeper", withIntermediateDirectories: true)
        try "note".write(toFile: directory + "/deep/deeper/note", atomically: false, encoding: .utf8)
        XCTAssertEqual(symlink(outside, directory + "/link"), 0)
        XCTAssertEqual(symlink(scratch, directory + "/up"), 0)
        XCTAssertEqual(link(outside, directory + "/hard"), 0)

        let pid: pid_t = 4_000_000
        let user = users.user(ofWorker: pid)
        try users.handOver(directory, toWorker: pid)
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

    /// Owner, group and permission bits, of the link itself for a link.
    private func owner(_ path: String) throws -> [UInt32] {
        var info = stat()
        guard lstat(path, &info) == 0 else { throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: path]) }
        return [info.st_uid, info.st_gid, UInt32(info.st_mode & 0o7777)]
    }
}
