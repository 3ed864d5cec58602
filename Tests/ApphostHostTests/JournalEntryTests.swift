import ApphostService
import ApphostServiceTesting
import Foundation
import Synchronization
import XCTest

/// The host's entries for journald's native socket (CONTRACT O3), sent by `JournalSocket` and
/// read back by a socket in journald's place, as journald reads them.
final class JournalEntryTests: XCTestCase {
    private var directory: String!

    override func setUpWithError() throws {
        var template = Array("/tmp/apphost-journal-XXXXXX".utf8CString)
        directory = String(cString: try XCTUnwrap(mkdtemp(&template)))
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: directory)
    }

    // CONTRACT O3: fields arrive as they were given, in order: `NAME=value`, the binary-safe form
    // for a value with a newline or a NUL, names journald keeps (uppercase, no leading
    // underscore), and an entry too large for a datagram in a sealed memfd.
    func testO3EntriesReachTheSocketFieldByField() throws {
        let listener = try JournalListener(path: directory + "/socket")
        let socket = try XCTUnwrap(JournalSocket(path: listener.path))
        XCTAssertTrue(socket.isListening)

        var entry = JournalEntry(message: "two\nlines", priority: 3)
        entry.append("guest_id", "org.example.notes")
        entry.append("_PID", "1")
        entry.append("request-id", "a\u{0}b")
        entry.append("9LIVES", "")
        entry.append("ABSENT", nil)
        XCTAssertEqual(socket.send(entry), 0)
        let received = try XCTUnwrap(listener.receive(timeout: 5))
        XCTAssertEqual(
            received.fields.map { "\($0.name)=\($0.value)" },
            [
                "MESSAGE=two\nlines", "PRIORITY=3", "SYSLOG_IDENTIFIER=apphost", "GUEST_ID=org.example.notes",
                "F_PID=1", "REQUEST_ID=a\u{0}b", "F9LIVES=",
            ])

        // Larger than a datagram may be (the socket's send buffer, 208 KiB by default).
        let large = String(repeating: "0123456789abcdef", count: 1 << 16)
        XCTAssertEqual(socket.send(JournalEntry(message: large, priority: 6)), 0)
        let big = try XCTUnwrap(listener.receive(timeout: 5))
        XCTAssertEqual(big["MESSAGE"]?.count, large.count)
        XCTAssertEqual(big["MESSAGE"], large)
    }

    // CONTRACT O3: where nothing listens the socket says so, and a send fails with its cause
    // rather than waiting.
    func testO3NoJournalIsNotListening() throws {
        let socket = try XCTUnwrap(JournalSocket(path: directory + "/absent"))
        XCTAssertFalse(socket.isListening)
        XCTAssertEqual(socket.send(JournalEntry(message: "lost", priority: 6)), ENOENT)
        // A file that is no socket at all.
        XCTAssertTrue(FileManager.default.createFile(atPath: directory + "/file", contents: Data()))
        XCTAssertFalse(try XCTUnwrap(JournalSocket(path: directory + "/file")).isListening)
    }

    // CONTRACT X2, O3: a writer that sends each entry goes on when journald refuses some: they are
    // counted as dropped and said, by one notice, before the next entry that is sent.
    func testO3EntriesJournaldRefusedAreNoticedBeforeTheNext() throws {
        let sent = Mutex<[String]>([])
        let refusing = Atomic<Bool>(true)
        let writer = LineWriter(
            sendingEach: { item in
                guard !refusing.load(ordering: .relaxed) else { return false }
                sent.withLock { $0.append(String(decoding: item, as: UTF8.self)) }
                return true
            }, name: "test.journal", notice: { Array("dropped \($0)".utf8) })
        for index in 0..<3 { writer.write(item: Array("entry \(index)".utf8)) }
        XCTAssertTrue(writer.flush(patience: .seconds(10)))
        XCTAssertEqual(writer.droppedLines, 3)
        XCTAssertEqual(sent.withLock { $0 }, [])

        refusing.store(false, ordering: .relaxed)
        writer.write(item: Array("entry 3".utf8))
        XCTAssertTrue(writer.flush(patience: .seconds(10)))
        XCTAssertEqual(sent.withLock { $0 }, ["dropped 3", "entry 3"])
    }
}
