import ApphostWire
import Foundation
import Glibc
import XCTest

@testable import ApphostChannels

/// The worker spawner (apphost_spawner.h): what it starts is this process's child, with the
/// descriptors it was given on 3, 1 and 2 and no other, and the environment it was sent; a failed
/// exec or a malformed request is answered, and the spawner goes on. The contract has no rule
/// for it (X2 is that a worker holds nothing of the host's).
final class WorkerSpawnerTests: XCTestCase {
    private var scratch: URL!

    override func setUpWithError() throws {
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("spawner-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: scratch)
    }

    func testASpawnedProgramIsOurChildWithItsDescriptorsAndEnvironmentOnly() throws {
        let script = scratch.appendingPathComponent("probe.sh")
        try """
        #!/bin/sh
        echo "parent $PPID" >&3
        echo "variable $SPAWNER_TEST" >&3
        echo out
        echo err >&2
        exec ls /proc/self/fd >&3
        """.write(to: script, atomically: true, encoding: .utf8)
        chmod(script.path, 0o755)
        let (socket, theirs) = try Self.socketPair()
        let (outputRead, outputWrite) = try Self.pipe()
        let (errorRead, errorWrite) = try Self.pipe()

        let spawned = try XCTUnwrap(
            WorkerSpawner.shared.spawn(
                executable: script.path, environment: ["SPAWNER_TEST=sent", "PATH=/usr/bin:/bin"], socket: theirs,
                output: (outputWrite, errorWrite)), "apphost-worker is built beside the tests: a spawner runs")
        close(theirs)
        close(outputWrite)
        close(errorWrite)
        let pid = try spawned.get()
        var status: Int32 = 0
        XCTAssertEqual(waitpid(pid, &status, 0), pid, "the spawned program is this process's child")
        XCTAssertEqual(status, 0)

        let said = Self.readAll(socket).split(separator: "\n").map(String.init)
        XCTAssertEqual(said.first, "parent \(getpid())")
        XCTAssertEqual(said.dropFirst().first, "variable sent")
        // What the program it ran holds: 0, 1, 2, 3, and the directory ls opened to list them.
        let descriptors = said.dropFirst(2).compactMap { Int($0) }.sorted()
        XCTAssertEqual(Array(descriptors.prefix(4)), [0, 1, 2, 3], "\(said)")
        XCTAssertLessThanOrEqual(descriptors.count, 5, "\(said)")
        XCTAssertEqual(Self.readAll(outputRead), "out\n")
        XCTAssertEqual(Self.readAll(errorRead), "err\n")
    }

    func testAProgramThatCannotRunIsAnErrorAndTheSpawnerGoesOn() throws {
        let (socket, theirs) = try Self.socketPair()
        defer { close(socket) }
        let missing = scratch.appendingPathComponent("missing").path
        let failed = try XCTUnwrap(
            WorkerSpawner.shared.spawn(executable: missing, environment: [], socket: theirs, output: nil))
        XCTAssertThrowsError(try failed.get()) { error in
            XCTAssertEqual("\(error)", "cannot run \(missing): No such file or directory")
        }
        let next = try XCTUnwrap(
            WorkerSpawner.shared.spawn(executable: "/bin/true", environment: [], socket: theirs, output: nil))
        close(theirs)
        var status: Int32 = 0
        XCTAssertEqual(waitpid(try next.get(), &status, 0), try next.get())
    }

    // A request the spawner cannot read is answered EINVAL; the next one is served.
    func testAMalformedRequestIsRefusedAndTheNextServed() throws {
        let worker = try WorkerExecutable.locate()
        var ends: [Int32] = [-1, -1]
        XCTAssertEqual(socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends), 0)
        defer { close(ends[0]) }
        let started = WorkerProcess.start(
            executable: worker, arguments: [worker, APPHOST_SPAWNER_ARGUMENT], environment: [], socket: ends[1],
            onto: Int32(APPHOST_SPAWNER_FD), output: nil)
        close(ends[1])
        let spawner = try started.get()
        defer {
            kill(spawner, SIGKILL)
            var status: Int32 = 0
            waitpid(spawner, &status, 0)
        }
        let (socket, theirs) = try Self.socketPair()
        defer {
            close(socket)
            close(theirs)
        }
        // No descriptor; then counts that promise more strings than there are.
        var header = apphost_spawn_request(argument_count: 1, environment_count: 0)
        let valid = withUnsafeBytes(of: &header) { Array($0) } + Array("/bin/true\0/bin/true\0".utf8)
        XCTAssertEqual(Self.ask(ends[0], valid, descriptors: []).error, EINVAL)
        header.environment_count = 3
        let short = withUnsafeBytes(of: &header) { Array($0) } + Array("/bin/true\0/bin/true\0".utf8)
        XCTAssertEqual(Self.ask(ends[0], short, descriptors: [theirs]).error, EINVAL)
        XCTAssertEqual(Self.ask(ends[0], Array("x".utf8), descriptors: [theirs]).error, EINVAL)

        let reply = Self.ask(ends[0], valid, descriptors: [theirs])
        XCTAssertEqual(reply.error, 0)
        var status: Int32 = 0
        XCTAssertEqual(waitpid(reply.pid, &status, 0), reply.pid)
        XCTAssertEqual(status, 0)
    }

    // MARK: Helpers

    private static func ask(_ socket: Int32, _ request: [UInt8], descriptors: [Int32]) -> apphost_spawn_reply {
        _ = request.withUnsafeBytes { sendWithDescriptors($0, descriptors, to: socket) }
        var reply = apphost_spawn_reply(pid: 0, error: -1)
        _ = withUnsafeMutableBytes(of: &reply) { recv(socket, $0.baseAddress, $0.count, 0) }
        return reply
    }

    private static func socketPair() throws -> (Int32, Int32) {
        var ends: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0 else {
            throw XCTSkip("socketpair failed")
        }
        return (ends[0], ends[1])
    }

    private static func pipe() throws -> (read: Int32, write: Int32) {
        var ends: [Int32] = [-1, -1]
        guard Glibc.pipe(&ends) == 0 else { throw XCTSkip("pipe failed") }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        return (ends[0], ends[1])
    }

    /// Everything until end of file.
    private static func readAll(_ descriptor: Int32) -> String {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count <= 0 { break }
            bytes += buffer[..<count]
        }
        close(descriptor)
        return String(decoding: bytes, as: UTF8.self)
    }
}
