import ApphostExecutors
import Dispatch
import Glibc
import Synchronization

/// Threads of the host's own that live as long as the process, for work that Dispatch's threads,
/// which come and go, cannot do:
/// - `thawing`: one per processor, at real-time priority (SCHED_FIFO) where the host may use it.
///   A thawed worker becomes runnable at once; a thawing thread of normal priority is then
///   preempted by the workers it woke, and a hundred thaws take tens of milliseconds, where
///   threads that cannot be preempted by them finish them in a few (Benchmarks/README.md).
///   Without the privilege they run at normal priority; `isRealtime` says.
/// - `spawning`: the one thread that starts workers. A worker asks the kernel to kill it when its
///   parent dies (PR_SET_PDEATHSIG), and its parent is the thread that spawned it: spawned from
///   a Dispatch thread, it would be killed when that thread retires, seconds later. It runs at
///   the nice value of the host's main thread, which workers inherit: the Dispatch thread that
///   first asks for it may run at another (-2 for user-initiated work, where the host may).
final class DedicatedThreads: Sendable {
    static let thawing = DedicatedThreads(count: max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))), realtime: true)
    static let spawning = DedicatedThreads(count: 1, realtime: false, niceOfMainThread: true)

    private let work = Mutex<[@Sendable () -> Void]>([])
    private let pending = DispatchSemaphore(value: 0)
    private let realtime = Atomic<Bool>(false)
    private let wantsRealtime: Bool
    private let niceOfMainThread: Bool

    /// Whether the threads got real-time priority.
    var isRealtime: Bool { realtime.load(ordering: .acquiring) }

    private init(count: Int, realtime: Bool, niceOfMainThread: Bool = false) {
        wantsRealtime = realtime
        self.niceOfMainThread = niceOfMainThread
        // They live as long as the process.
        for _ in 0..<count {
            startDetachedThread { [self] in run() }
        }
    }

    /// Runs `body` on one of the threads, started after what was queued before it.
    func async(_ body: @escaping @Sendable () -> Void) {
        work.withLock { $0.append(body) }
        pending.signal()
    }

    /// Runs `body` on one of the threads and waits for its result.
    func sync<T: Sendable>(_ body: @escaping @Sendable () -> T) -> T {
        let done = DispatchSemaphore(value: 0)
        let result = Mutex<T?>(nil)
        async {
            let value = body()
            result.withLock { $0 = value }
            done.signal()
        }
        done.wait()
        return result.withLock { $0! }
    }

    private func run() {
        if wantsRealtime {
            // The lowest real-time priority: above every normal thread, below the kernel's own.
            var parameters = sched_param()
            parameters.sched_priority = 1
            realtime.store(pthread_setschedparam(pthread_self(), SCHED_FIFO, &parameters) == 0, ordering: .releasing)
        }
        if niceOfMainThread { takeNiceOfMainThread() }
        while true {
            pending.wait()
            let next = work.withLock { $0.isEmpty ? nil : $0.removeFirst() }
            next?()
        }
    }
}
