import Dispatch
import Glibc
import Synchronization

/// The threads that thaw suspended workers, one per processor, at real-time priority
/// (SCHED_FIFO) where the host may use it. A thawed worker becomes runnable at once; a thawing
/// thread of normal priority is then preempted by the workers it woke and a hundred thaws take
/// tens of milliseconds, where one that cannot be preempted by them finishes them in a few
/// (Benchmarks/README.md). Without the privilege it runs at normal priority; `isRealtime` says.
final class ThawThread: Sendable {
    static let shared = ThawThread()

    private let work = Mutex<[@Sendable () -> Void]>([])
    private let pending = DispatchSemaphore(value: 0)
    private let realtime = Atomic<Bool>(false)

    /// Whether the thread got real-time priority.
    var isRealtime: Bool { realtime.load(ordering: .acquiring) }

    private init() {
        // Plain pthreads, never joined: they live as long as the process.
        for _ in 0..<max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) {
            let context = Unmanaged.passRetained(self).toOpaque()
            var thread = pthread_t()
            let status = pthread_create(
                &thread, nil,
                { context in
                    let owner = Unmanaged<ThawThread>.fromOpaque(context!).takeRetainedValue()
                    owner.run()
                    return nil
                }, context)
            precondition(status == 0, "pthread_create: \(String(cString: strerror(status)))")
            pthread_detach(thread)
        }
    }

    /// Runs `body` on a thaw thread, started after what was queued before it.
    func async(_ body: @escaping @Sendable () -> Void) {
        work.withLock { $0.append(body) }
        pending.signal()
    }

    private func run() {
        // The lowest real-time priority: above every normal thread, below the kernel's own.
        var parameters = sched_param()
        parameters.sched_priority = 1
        realtime.store(pthread_setschedparam(pthread_self(), SCHED_FIFO, &parameters) == 0, ordering: .releasing)
        while true {
            pending.wait()
            let next = work.withLock { $0.isEmpty ? nil : $0.removeFirst() }
            next?()
        }
    }
}
