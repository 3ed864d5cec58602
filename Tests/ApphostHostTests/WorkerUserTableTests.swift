import XCTest

@testable import ApphostChannels

/// The policy of worker users (CONTRACT X2), as values: which recorded user a worker gets, when
/// a user is bound to a guest, and when it is freed.
final class WorkerUserTableTests: XCTestCase {
    private let base: UInt32 = 0x7000_0000
    private let guests = "/var/lib/apphost/guests"

    // CONTRACT X2: a library launched for the first time gets no recorded user; once its guest is
    // bound, the next launch gets the same one, but never while a worker runs as it.
    func testAGuestGetsItsRecordedUserAgainAndNeverTwiceAtOnce() {
        var table = WorkerUserTable(base: base, guests: guests, records: [])
        XCTAssertNil(table.choose(library: "/lib/a.so"), "never launched here: a new user")
        var record = table.newRecord(library: "/lib/a.so", holder: 10)
        record.uid = base + 7
        table.allocated(record)
        XCTAssertEqual(table.bind(base + 7, to: "org.a").write?.guest, "org.a")
        XCTAssertNil(table.choose(library: "/lib/a.so"), "its worker runs: no second worker gets it")
        XCTAssertFalse(table.release(base + 7), "bound to a guest: kept")
        XCTAssertEqual(table.choose(library: "/lib/a.so"), base + 7, "the same user at the next launch")
        XCTAssertNil(table.bind(base + 7, to: "org.a").write, "nothing to record again")
    }

    // CONTRACT X2: a user whose worker never got as far as its guest (a throwaway one, a load that
    // failed) is freed with its worker.
    func testAUserBoundToNoGuestIsFreedWithItsWorker() {
        var table = WorkerUserTable(base: base, guests: guests, records: [])
        var record = table.newRecord(library: "/lib/a.so", holder: 10)
        record.uid = base + 1
        table.allocated(record)
        XCTAssertTrue(table.release(base + 1))
        XCTAssertFalse(table.release(base + 1), "released once")
    }

    // CONTRACT X2: the table of one guests directory holds its records only, and only uids of
    // the range.
    func testATableHoldsItsOwnDirectorysRecordsOnly() {
        let records = [
            WorkerUserRecord(uid: base + 1, guests: guests, library: "/a.so", guest: "a", holder: 1),
            WorkerUserRecord(uid: base + 2, guests: "/elsewhere/guests", library: "/a.so", guest: "a", holder: 1),
            WorkerUserRecord(uid: base, guests: guests, library: "/b.so", guest: "b", holder: 1),
        ]
        let table = WorkerUserTable(base: base, guests: guests, records: records)
        XCTAssertEqual(Set(table.records.keys), [base + 1])
    }

    // CONTRACT X2: a library that now declares another guest: the old guest's directory goes back
    // to the host; a guest that ran from another library before: that library's user is freed
    // once the directory is the new one's.
    func testBindingMovesAGuestsFilesToItsNewUser() {
        let records = [
            WorkerUserRecord(uid: base + 1, guests: guests, library: "/a.so", guest: "old", holder: 1),
            WorkerUserRecord(uid: base + 2, guests: guests, library: "/b.so", guest: "new", holder: 1),
        ]
        var table = WorkerUserTable(base: base, guests: guests, records: records)
        XCTAssertEqual(table.choose(library: "/a.so"), base + 1)
        let binding = table.bind(base + 1, to: "new")
        XCTAssertEqual(binding.write?.guest, "new")
        XCTAssertEqual(binding.displaced, ["old"])
        XCTAssertEqual(binding.superseded, [base + 2])
        table.removed(base + 2)
        XCTAssertNil(table.choose(library: "/b.so"), "its user is gone")
        XCTAssertEqual(table.user(ofGuest: "new", owner: 0), base + 1)
        XCTAssertNil(table.user(ofGuest: "old", owner: base + 1), "the old guest has no user: the host's")
    }

    // CONTRACT X2: which user a guest's directory goes back to when a host starts: the owner when
    // it is one of the guest's, else its lowest.
    func testAGuestsDirectoryGoesToItsRecordedUser() {
        let records = [
            WorkerUserRecord(uid: base + 5, guests: guests, library: "/a.so", guest: "a", holder: 1),
            WorkerUserRecord(uid: base + 3, guests: guests, library: "/b.so", guest: "a", holder: 1),
        ]
        let table = WorkerUserTable(base: base, guests: guests, records: records)
        XCTAssertEqual(table.user(ofGuest: "a", owner: base + 5), base + 5)
        XCTAssertEqual(table.user(ofGuest: "a", owner: base + 77), base + 3, "a stale pid-derived owner")
    }

    // CONTRACT X2: freed at a host's start: users of its guests whose directories are gone, and
    // users bound to no guest whose holder is gone (or that are its own directory's); never one
    // a process runs as, nor another data directory's bound user.
    func testAUserIsFreedOnlyOnceItsFilesAndProcessesAreGone() {
        let records = [
            WorkerUserRecord(uid: base + 1, guests: guests, library: "/a.so", guest: "here", holder: 1),
            WorkerUserRecord(uid: base + 2, guests: guests, library: "/b.so", guest: "gone", holder: 1),
            WorkerUserRecord(uid: base + 3, guests: guests, library: "/c.so", guest: "gone2", holder: 1),
            WorkerUserRecord(uid: base + 4, guests: "/other/guests", library: "/d.so", guest: "x", holder: 1),
            WorkerUserRecord(uid: base + 5, guests: "", library: "/e.so", holder: 50),
            WorkerUserRecord(uid: base + 6, guests: "", library: "/f.so", holder: 60),
            WorkerUserRecord(uid: base + 7, guests: guests, library: "/g.so", holder: 60),
        ]
        let unused = WorkerUserTable.unused(
            records, guests: guests, existingGuests: ["here"], usersWithProcesses: [base + 3],
            holderIsAlive: { $0 == 60 })
        XCTAssertEqual(unused, [base + 2, base + 5, base + 7])
    }

    // CONTRACT X2: allocation tries every uid of the range once, from anywhere in it.
    func testCandidatesCoverTheRangeOnceFromAnyStart() {
        let size = WorkerUserTable.rangeSize
        let candidates = Array(WorkerUserTable.candidates(base: base, from: size - 2).prefix(4))
        XCTAssertEqual(candidates, [base + size - 1, base + size, base + 1, base + 2])
        XCTAssertEqual(Array(WorkerUserTable.candidates(base: base, from: 5)).count, Int(size))
        XCTAssertTrue(WorkerUserTable.range(base: base).contains(base + size))
        XCTAssertFalse(WorkerUserTable.range(base: base).contains(base), "the base is the shared group")
    }
}
