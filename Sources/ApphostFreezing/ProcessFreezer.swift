import Glibc

/// Freezes and thaws whole worker processes, every thread of them (CONTRACT B7): with the cgroup
/// v2 freezer, else the v1 freezer, where the host may create cgroups, else with SIGSTOP.
/// `Freezers.best` picks one; a host makes one and gives it to every worker it opens.
///
/// Calls may block for as long as the kernel takes to confirm (bounded by a timeout): make them
/// off the host queue. A freezer acts only on pids it adopted; any other is refused.
///
/// To kill a frozen worker, send SIGKILL and then thaw it: the v1 freezer holds even a killed
/// process until it is thawed. That thaw may find the process gone ("has exited"), which is fine.
public protocol ProcessFreezer: Sendable {
    /// What freezes processes: "cgroup v2", "cgroup v1" or "SIGSTOP", for operators.
    var mechanism: String { get }

    /// Takes charge of a newly spawned worker (for cgroups: moves it into a cgroup of its own),
    /// before it runs any guest code.
    func adopt(pid: pid_t) throws(FreezeError)

    /// Stops every thread of `pid` and returns once the kernel confirms that all are stopped.
    /// When that does not happen within the timeout, the process is left running and this throws;
    /// so does freezing a process that has exited (even one not yet reaped).
    func freeze(pid: pid_t) throws(FreezeError)

    /// Lets `pid` run again and returns once it runs.
    func thaw(pid: pid_t) throws(FreezeError)

    /// Forgets a worker that has exited. For cgroups: kills what is left in its cgroup (what its
    /// guest started, CONTRACT X2), then removes the cgroup once it is empty. Never fails.
    func release(pid: pid_t)
}

/// Why a process could not be frozen or thawed; `description` is one line.
public struct FreezeError: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
