import Glibc
import XCTest

/// A host whose open-files limit cannot hold every guest it is asked to launch (issue 19): the
/// launches beyond what it holds are refused in one line that names the limit, and the guests
/// already there go on as before. The contract has no rule for it (X2 for the one-line errors).
final class DescriptorLimitTests: HostTestCase {
    func testLaunchesBeyondTheOpenFilesLimitAreRefusedAndTheOthersGoOn() throws {
        let count = 40
        let guests = try TestGuests.minimalCopies(count, into: scratch.path)
        // 160 descriptors, 20 of them kept for the host: some 30 guests, less what the host holds.
        let host = try startHost(guests, options: ["--isolation", "process"], openFiles: 160)
        let deadline = Date() + 60
        var loaded = 0
        var refused: [String] = []
        while Date() < deadline {
            let events = host.events
            loaded = events.count { $0.kind == .guestLoaded }
            refused = events.filter { $0.kind == .launchFailed }.compactMap(\.message)
            if loaded + refused.count == count { break }
            usleep(50_000)
        }
        XCTAssertEqual(loaded + refused.count, count, "every launch ended one way or the other")
        XCTAssertGreaterThan(loaded, 10, "the limit holds some guests")
        XCTAssertFalse(refused.isEmpty, "160 descriptors cannot hold \(count) guests")
        for message in refused {
            XCTAssertTrue(
                message.contains("the host's open-files limit (160) is reached")
                    && message.contains("4 descriptors for each isolated guest") && message.contains("raise it"),
                message)
        }
        XCTAssertTrue(
            host.stderr.snapshot.contains { $0.contains("open-files limit (160)") }, "\(host.stderr.snapshot)")

        // The reserve leaves the others what they need: ps, and a freeze and a thaw.
        let status = try status()
        XCTAssertEqual(status.guests.count { $0.phase == .running }, loaded)
        let running = try XCTUnwrap(status.guests.last { $0.phase == .running }?.id)
        try ctlSucceeds("suspend", running)
        try ctlSucceeds("resume", running)
        XCTAssertEqual(try self.status().guests.count { $0.phase == .running }, loaded)
    }
}
