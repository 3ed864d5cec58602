import ApphostControl
import Foundation
import Glibc
import XCTest

/// `ControlClient` against a listener whose backlog is full: Linux refuses a non-blocking connect
/// to such a Unix socket with EAGAIN ("Resource temporarily unavailable") at once, where a
/// blocking client would wait. Many `apphost ctl` at once hit it.
final class ControlClientRetryTests: XCTestCase {
    private var directory: String!
    private var listener: Int32 = -1
    /// Connections queued on the listener and never sent anything, to fill its backlog.
    private var fillers: [Int32] = []
    private let accepted = AcceptedConnections()

    override func setUpWithError() throws {
        var template = Array("/tmp/apphost-retry-XXXXXX".utf8CString)
        directory = String(cString: try XCTUnwrap(mkdtemp(&template)))
        // A backlog of 0 queues one connection; the next is refused.
        listener = try Self.listen(at: socketPath, backlog: 0)
        while fillers.count < 64 {
            let filler = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            guard Self.connect(filler, to: socketPath) == 0 else {
                let code = errno
                close(filler)
                XCTAssertEqual(code, EAGAIN, "a full backlog refuses with EAGAIN")
                break
            }
            fillers.append(filler)
        }
        XCTAssertFalse(fillers.isEmpty)
        XCTAssertLessThan(fillers.count, 64, "the backlog never filled up")
    }

    override func tearDown() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        for filler in fillers { close(filler) }
        accepted.closeAll()
        try? FileManager.default.removeItem(atPath: directory)
    }

    private var socketPath: String { directory + "/control.sock" }

    // A connect refused because the backlog is full is tried again, with backoff, until the
    // listener has accepted the connections before it: the request is answered.
    func testAConnectRefusedForAFullBacklogIsRetriedUntilTheListenerCatchesUp() throws {
        let listener = listener
        let accepted = accepted
        Thread.detachNewThread {
            usleep(300_000)
            Self.serve(listener, accepted: accepted)
        }
        let started = ContinuousClock.now
        let reply = try ControlClient(socketPath: socketPath).send(line: "ping")
        XCTAssertEqual(reply, "answer to ping")
        XCTAssertGreaterThan(ContinuousClock.now - started, .milliseconds(250), "it waited for the backlog to drain")
    }

    // The retries are bounded: a backlog that stays full fails after a second or two, saying why.
    func testABacklogThatStaysFullFailsWithinTheRetryBudgetSayingWhy() throws {
        let started = ContinuousClock.now
        XCTAssertThrowsError(try ControlClient(socketPath: socketPath).send(line: "ping")) { error in
            XCTAssertTrue("\(error)".contains("backlog"), "\(error)")
        }
        let elapsed = ContinuousClock.now - started
        XCTAssertGreaterThan(elapsed, .seconds(1), "it retried")
        XCTAssertLessThan(elapsed, .seconds(5), "within its budget")
    }

    // MARK: A listener by hand

    private static func listen(at path: String, backlog: Int32) throws -> Int32 {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in path.utf8.enumerated() { buffer[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0, Glibc.listen(descriptor, backlog) == 0 else {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
        return descriptor
    }

    private static func connect(_ descriptor: Int32, to path: String) -> Int32 {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in path.utf8.enumerated() { buffer[index] = byte }
        }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
    }

    /// Accepts until the listener is shut down; answers each connection's first line with
    /// "answer to <line>" on a thread of its own (the fillers never send one).
    private static func serve(_ listener: Int32, accepted: AcceptedConnections) {
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { return }
            accepted.add(connection)
            Thread.detachNewThread {
                var line: [UInt8] = []
                var byte: UInt8 = 0
                while read(connection, &byte, 1) == 1, byte != UInt8(ascii: "\n") { line.append(byte) }
                let answer = Array("answer to \(String(decoding: line, as: UTF8.self))\n".utf8)
                // A filler's peer is gone by now: no SIGPIPE.
                _ = answer.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                accepted.finish(connection)
            }
        }
    }
}

/// The connections the fake listener accepted and has not closed yet.
private final class AcceptedConnections: @unchecked Sendable {
    private let lock = NSLock()
    private var descriptors: [Int32] = []

    func add(_ descriptor: Int32) { lock.withLock { descriptors.append(descriptor) } }

    /// Closes a connection its thread is done with.
    func finish(_ descriptor: Int32) {
        lock.withLock {
            descriptors.removeAll { $0 == descriptor }
            close(descriptor)
        }
    }

    /// Ends the reads of the threads still waiting; each then closes its connection.
    func closeAll() {
        lock.withLock {
            for descriptor in descriptors { shutdown(descriptor, Int32(SHUT_RDWR)) }
        }
    }
}
