import Glibc

/// Makes a worker's audio thread real-time when the worker could not do it itself (CONTRACT C13),
/// as rtkit does for desktop audio clients: SCHED_FIFO at 60, below the host's mixer (70). The
/// host may (CAP_SYS_NICE) where the worker, under a user of its own, may not. Only a thread of
/// the worker's own (in its /proc/<pid>/task): a guest cannot name another process's thread. The
/// worker's RLIMIT_RTTIME (process_setup.c) bounds how long it may then run without sleeping.
/// A thread whose render keeps missing its deadlines is demoted again (issue 34, point 9).
enum AudioThreadPriority {
    static let priority: Int32 = 60

    /// True when `thread` of `process` now runs under SCHED_FIFO.
    static func promote(thread: Int32, of process: Int32) -> Bool {
        guard thread > 0, process > 0, access("/proc/\(process)/task/\(thread)", F_OK) == 0 else { return false }
        var parameters = sched_param(sched_priority: priority)
        return sched_setscheduler(thread, SCHED_FIFO, &parameters) == 0
    }

    /// Back to ordinary scheduling (SCHED_OTHER, its nice kept), `thread` of `process` (nil: the
    /// host's own process, for an in-process guest); a worker's RLIMIT_RTPRIO becomes 0 first, so
    /// that neither this thread nor another of the worker's can ask for real-time again. True
    /// when the thread no longer runs real-time.
    static func demote(thread: Int32, of process: Int32?) -> Bool {
        guard thread > 0, access("\(taskDirectory(process))/\(thread)", F_OK) == 0 else { return false }
        if let process, let prlimit {
            var none = rlimit(rlim_cur: 0, rlim_max: 0)
            _ = prlimit(process, realtimePriorityLimit, &none, nil)
        }
        var parameters = sched_param(sched_priority: 0)
        return sched_setscheduler(thread, SCHED_OTHER, &parameters) == 0
    }

    /// The CPU time `thread` of `process` (nil: the host's own) has run, from its schedstat; nil
    /// when it is not one of that process's threads.
    static func cpuTime(thread: Int32, of process: Int32?) -> Duration? {
        guard thread > 0 else { return nil }
        let path = "\(taskDirectory(process))/\(thread)/schedstat"
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: 64)
        let count = read(descriptor, &bytes, bytes.count)
        guard count > 0 else { return nil }
        // "<run time ns> <wait ns> <slices>\n"
        let text = bytes.prefix(count).prefix { $0 != UInt8(ascii: " ") }
        guard let nanoseconds = Int64(String(decoding: text, as: UTF8.self)) else { return nil }
        return .nanoseconds(nanoseconds)
    }

    /// prlimit(2) from the C library, which Glibc declares only under _GNU_SOURCE (as
    /// ResourceLimit finds it), and RLIMIT_RTPRIO, which Swift's Glibc hides too: 14 on Linux.
    private typealias Prlimit =
        @convention(c) (pid_t, Int32, UnsafePointer<rlimit>?, UnsafeMutablePointer<rlimit>?) -> Int32
    private static let prlimit: Prlimit? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "prlimit").map {
        unsafeBitCast($0, to: Prlimit.self)
    }
    private static let realtimePriorityLimit: Int32 = 14

    private static func taskDirectory(_ process: Int32?) -> String {
        process.map { "/proc/\($0)/task" } ?? "/proc/self/task"
    }
}
