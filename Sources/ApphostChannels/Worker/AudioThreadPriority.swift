import Glibc

/// Makes a worker's audio thread real-time when the worker could not do it itself (CONTRACT C13),
/// as rtkit does for desktop audio clients: SCHED_FIFO at 60, below the host's mixer (70). The
/// host may (CAP_SYS_NICE) where the worker, under a user of its own, may not. Only a thread of
/// the worker's own (in its /proc/<pid>/task): a guest cannot name another process's thread. The
/// worker's RLIMIT_RTTIME (process_setup.c) bounds how long it may then run without sleeping.
enum AudioThreadPriority {
    static let priority: Int32 = 60

    /// True when `thread` of `process` now runs under SCHED_FIFO.
    static func promote(thread: Int32, of process: Int32) -> Bool {
        guard thread > 0, process > 0, access("/proc/\(process)/task/\(thread)", F_OK) == 0 else { return false }
        var parameters = sched_param(sched_priority: priority)
        return sched_setscheduler(thread, SCHED_FIFO, &parameters) == 0
    }
}
