import Glibc
import XCTest

@testable import ApphostChannels

/// What a worker channel writes, on a real non-blocking socketpair: straight when the peer
/// reads, kept in order when it does not, flushed when it reads again, dropped once it is gone.
final class OutboundBytesTests: XCTestCase {
    private var ends: [Int32] = [-1, -1]

    override func setUp() {
        XCTAssertEqual(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &ends), 0)
        _ = fcntl(ends[0], F_SETFL, fcntl(ends[0], F_GETFL) | O_NONBLOCK)
        _ = fcntl(ends[1], F_SETFL, fcntl(ends[1], F_GETFL) | O_NONBLOCK)
    }

    override func tearDown() {
        for end in ends where end >= 0 { close(end) }
    }

    /// Everything the peer can read now.
    private func readAll() -> [UInt8] {
        var all: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(ends[1], $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return all }
            all += buffer[..<count]
        }
    }

    /// Appends `bytes` behind what waits, then writes what the socket takes.
    private func write(_ bytes: [UInt8], with outbound: inout OutboundBytes) -> OutboundBytes.Progress {
        outbound.append { room in
            if bytes.count <= room.count { room.copyBytes(from: bytes) }
            return EncodedFrame(size: bytes.count)
        }
        return outbound.flush(to: ends[0])
    }

    func testWritesStraightKeepsWhatTheSocketRefusesAndFlushesInOrder() {
        var outbound = OutboundBytes()
        XCTAssertEqual(write([1, 2, 3], with: &outbound), .written)
        XCTAssertEqual(readAll(), [1, 2, 3])

        // A peer that does not read: the socket fills, the rest waits, and later writes wait behind it.
        let chunk = [UInt8](repeating: 7, count: 1 << 16)
        var written = 0
        var progress = OutboundBytes.Progress.written
        while progress == .written {
            progress = write(chunk, with: &outbound)
            written += chunk.count
        }
        XCTAssertEqual(progress, .waiting)
        XCTAssertEqual(
            write([9], with: &outbound), .waiting, "behind what waits, never before it")

        var received: [UInt8] = []
        while progress == .waiting {
            received += readAll()
            progress = outbound.flush(to: ends[0])
        }
        received += readAll()
        XCTAssertEqual(progress, .written)
        XCTAssertEqual(received.count, written + 1)
        XCTAssertEqual(received.last, 9)
        XCTAssertTrue(received.dropLast().allSatisfy { $0 == 7 })
    }

    func testAGonePeerBreaksItForGoodWithoutSIGPIPE() {
        var outbound = OutboundBytes()
        close(ends[1])
        ends[1] = -1
        XCTAssertEqual(write([1], with: &outbound), .broken)
        XCTAssertTrue(outbound.isBroken)
        XCTAssertEqual(write([2], with: &outbound), .broken)
        XCTAssertEqual(outbound.flush(to: ends[0]), .broken)
    }
}
