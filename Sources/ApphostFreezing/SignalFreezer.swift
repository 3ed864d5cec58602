import ApphostVocabulary
import Glibc
import Synchronization

/// The fallback where the host may not make cgroups: SIGSTOP and SIGCONT, confirmed by reading
/// the state of every thread in /proc/<pid>/task. It stops the worker's threads, not processes
/// the worker started, and anyone allowed to signal the worker can wake it with SIGCONT; a
/// stopped process still dies of SIGKILL.
public final class SignalFreezer: ProcessFreezer {
    public let mechanism = "SIGSTOP"
    private let timeout: Duration
    /// Signals go only to workers, never to a pid that may have been reused by someone else.
    private let adopted = Mutex<Set<pid_t>>([])

    public init(timeout: Duration = .seconds(2)) {
        self.timeout = timeout
    }

    public func adopt(pid: pid_t) throws(FreezeError) {
        guard kill(pid, 0) == 0 else { throw KernelFile.failure(errno, "cannot adopt process", "\(pid)") }
        adopted.withLock { _ = $0.insert(pid) }
    }

    public func freeze(pid: pid_t) throws(FreezeError) {
        try signal(pid, SIGSTOP)
        let stopped = try Polling.until(timeout: timeout) { () throws(FreezeError) in
            try Self.threads(of: pid).allSatisfy(\.isStopped)
        }
        guard stopped else {
            // Not stopped in time (a thread in uninterruptible sleep): leave it running rather
            // than half stopped.
            kill(pid, SIGCONT)
            throw FreezeError(
                "cannot freeze process \(pid), it runs on: not every thread stopped within \(timeout.secondsText)")
        }
    }

    public func thaw(pid: pid_t) throws(FreezeError) {
        try signal(pid, SIGCONT)
        let running = try Polling.until(timeout: timeout) { () throws(FreezeError) in
            try !Self.threads(of: pid).contains(where: \.isStopped)
        }
        guard running else {
            throw FreezeError("cannot thaw process \(pid): a thread was still stopped after \(timeout.secondsText)")
        }
    }

    public func release(pid: pid_t) {
        adopted.withLock { _ = $0.remove(pid) }
    }

    private func signal(_ pid: pid_t, _ number: Int32) throws(FreezeError) {
        guard adopted.withLock({ $0.contains(pid) }) else { throw .notAdopted(pid) }
        // A zombie accepts signals but will never stop or run again.
        guard let stat = ProcessStat.of(pid: pid), !stat.hasExited else { throw .exited(pid) }
        guard kill(pid, number) == 0 else {
            if errno == ESRCH { throw .exited(pid) }
            throw KernelFile.failure(errno, "cannot signal process", "\(pid)")
        }
    }

    /// The states of the process's threads; an error once the process has exited, which would
    /// otherwise pass for stopped (no thread running) or running (no thread stopped).
    private static func threads(of pid: pid_t) throws(FreezeError) -> [ProcessStat] {
        guard let process = ProcessStat.of(pid: pid), !process.hasExited else { throw .exited(pid) }
        let threads = ProcessStat.threads(of: pid)
        guard !threads.isEmpty else { throw .exited(pid) }
        return threads
    }
}
