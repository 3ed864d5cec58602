import ApphostWire
import Glibc
import Synchronization

/// The host's spawner (apphost_spawner.h): `apphost-worker --spawner`, started once, which starts
/// each worker with clone(CLONE_PARENT), so that the worker is the host's child but copies the
/// spawner's few descriptors rather than the host's. Spawned by the host itself, each worker
/// copied and closed the host's whole descriptor table, four or five descriptors for every guest
/// running: a launch cost time in proportion to the guests already there, 8 ms at the first and
/// 27 ms at the 3,000th on the 2-core VM (Benchmarks/README.md).
///
/// Requests are made one at a time, from any thread. Where no spawner runs (no `apphost-worker`
/// found, or it could not start), `spawn` returns nil and the caller spawns the worker itself;
/// a spawner that died is started again at the next request.
final class WorkerSpawner: Sendable {
    static let shared = WorkerSpawner()

    private struct Connection {
        let socket: Int32
        let pid: pid_t
    }

    private enum State {
        case notStarted
        case running(Connection)
        /// It could not start: the host spawns its workers itself from now on.
        case unavailable
    }

    private let state = Mutex(State.notStarted)

    /// Starts `executable` as a worker, with `socket` as its descriptor 3 and `output` as its
    /// stdout and stderr (else the host's), as `WorkerProcess.start` would; nil when there is no
    /// spawner to ask.
    func spawn(
        executable: String, environment: [String], socket: Int32,
        output: (standardOutput: Int32, standardError: Int32)?
    ) -> Result<pid_t, WorkerProcess.SpawnFailure>? {
        let request = Self.request(executable: executable, environment: environment)
        guard request.count <= Int(APPHOST_SPAWNER_MAX_REQUEST) else { return nil }
        let descriptors = [socket] + (output.map { [$0.standardOutput, $0.standardError] } ?? [])
        return state.withLock { state -> Result<pid_t, WorkerProcess.SpawnFailure>? in
            // A second try, with a new spawner, when the one there had died.
            for _ in 0..<2 {
                guard let connection = Self.connection(&state) else { return nil }
                if let reply = Self.ask(connection, request, descriptors) {
                    return Self.outcome(reply, executable: executable)
                }
                Self.end(connection)
                state = .notStarted
            }
            return nil
        }
    }

    /// The request's bytes: the counts, then the strings, each NUL-terminated.
    private static func request(executable: String, environment: [String]) -> [UInt8] {
        var header = apphost_spawn_request(argument_count: 1, environment_count: UInt32(environment.count))
        var bytes = withUnsafeBytes(of: &header) { Array($0) }
        for string in [executable, executable] + environment {
            bytes += Array(string.utf8) + [0]
        }
        return bytes
    }

    private static func outcome(_ reply: apphost_spawn_reply, executable: String) -> Result<
        pid_t, WorkerProcess.SpawnFailure
    > {
        if reply.pid > 0, reply.error == 0 { return .success(reply.pid) }
        if reply.pid > 0 {
            // Its exec failed and it exited: ours to reap.
            var status: Int32 = 0
            while waitpid(reply.pid, &status, 0) < 0, errno == EINTR {}
        }
        return .failure(WorkerProcess.SpawnFailure(executable: executable, errno: reply.error))
    }

    /// The running spawner, started if need be; nil where none can run.
    private static func connection(_ state: inout State) -> Connection? {
        switch state {
        case .running(let connection):
            return connection
        case .unavailable:
            return nil
        case .notStarted:
            let connection = start()
            state = connection.map(State.running) ?? .unavailable
            return connection
        }
    }

    private static func start() -> Connection? {
        guard let executable = try? WorkerExecutable.locate() else { return nil }
        var ends: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0 else {
            return nil
        }
        defer { close(ends[1]) }
        // Nothing of the host's environment: the spawner gives each worker the one it is sent.
        let started = WorkerProcess.start(
            executable: executable, arguments: [executable, APPHOST_SPAWNER_ARGUMENT],
            environment: ["SWIFT_BACKTRACE=enable=no"], socket: ends[1], onto: Int32(APPHOST_SPAWNER_FD), output: nil)
        guard case .success(let pid) = started else {
            close(ends[0])
            return nil
        }
        return Connection(socket: ends[0], pid: pid)
    }

    /// Sends one request and waits for its reply; nil when the spawner is gone.
    private static func ask(_ connection: Connection, _ request: [UInt8], _ descriptors: [Int32])
        -> apphost_spawn_reply?
    {
        var sent: Int
        repeat {
            sent = request.withUnsafeBytes { sendWithDescriptors($0, descriptors, to: connection.socket) }
        } while sent < 0 && errno == EINTR
        guard sent == request.count else { return nil }
        var reply = apphost_spawn_reply()
        var received: Int
        repeat {
            received = withUnsafeMutableBytes(of: &reply) { recv(connection.socket, $0.baseAddress, $0.count, 0) }
        } while received < 0 && errno == EINTR
        return received == MemoryLayout<apphost_spawn_reply>.size ? reply : nil
    }

    /// Closes a spawner's socket, which ends it, and reaps it.
    private static func end(_ connection: Connection) {
        close(connection.socket)
        _ = Glibc.kill(connection.pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(connection.pid, &status, 0) < 0, errno == EINTR {}
    }
}
