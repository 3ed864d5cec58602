import Dispatch
import Foundation
import Glibc

/// The in-process channel's baseline: the host queue hops to another serial queue and back. As
/// with the channel, the host queue is a serial queue of its own (Dispatch's overcommit pool) and
/// the other one runs on the default global queue's pool, where in-process guests' main queues
/// run (`InProcessGuest.threads`).
struct DispatchHopBaseline {
    private let hostQueue = DispatchQueue(label: "bench.baseline.host")
    private let guestQueue = DispatchQueue(label: "bench.baseline.guest", target: .global())

    func measure(_ count: Int) -> [Double] {
        chain(count: count, on: hostQueue) { [guestQueue, hostQueue] done in
            guestQueue.async { hostQueue.async { done() } }
        }
    }
}

/// The worker channel's baseline: a raw ping-pong over a socketpair with a second process
/// (`cat`, which writes back what it reads), blocking reads and writes, frames of the size of a
/// CALL and its REPLY. With `niceOffset`, `cat` runs that much nicer than the benchmark, as a
/// worker does at `--worker-nice`: woken, it then waits for the writer to sleep rather than
/// preempting it, and the round trip pays for that switch as the worker channel's does.
final class SocketpairPingPong {
    private let descriptor: Int32
    private let child: pid_t
    private static let frameSize = 17

    init(niceOffset: Int32 = 0) throws {
        var pair: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
            throw BenchmarkFailure("socketpair failed")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        posix_spawn_file_actions_adddup2(&actions, pair[1], 0)
        posix_spawn_file_actions_adddup2(&actions, pair[1], 1)
        var pid: pid_t = 0
        let arguments: [UnsafeMutablePointer<CChar>?] = [strdup("cat"), nil]
        defer { arguments.forEach { free($0) } }
        let spawned = posix_spawn(&pid, "/bin/cat", &actions, nil, arguments, environ)
        posix_spawn_file_actions_destroy(&actions)
        close(pair[1])
        guard spawned == 0 else { throw BenchmarkFailure("cannot start /bin/cat") }
        if niceOffset != 0 {
            errno = 0
            let nice = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
            guard errno == 0, setpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(pid), nice + niceOffset) == 0
            else { throw BenchmarkFailure("cannot make /bin/cat nicer") }
        }
        descriptor = pair[0]
        child = pid
    }

    func measure(_ count: Int) -> [Double] {
        var frame = [UInt8](repeating: 7, count: Self.frameSize)
        var durations: [Double] = []
        durations.reserveCapacity(count)
        for _ in 0..<count {
            let start = monotonicNanoseconds()
            _ = frame.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            var received = 0
            while received < Self.frameSize {
                let count = frame.withUnsafeMutableBytes {
                    read(descriptor, $0.baseAddress! + received, Self.frameSize - received)
                }
                guard count > 0 else { return durations }
                received += count
            }
            durations.append(monotonicNanoseconds() - start)
        }
        return durations
    }

    deinit {
        close(descriptor)
        var status: Int32 = 0
        waitpid(child, &status, 0)
    }
}
