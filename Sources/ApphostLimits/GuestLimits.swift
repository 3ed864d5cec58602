/// What one guest's worker process may use (CONTRACT X2: a guest that runs away with memory,
/// descriptors or processes harms no other guest and not the host). Nil means no limit, which is
/// the default for all three.
public struct GuestLimits: Sendable, Equatable {
    /// Memory in bytes: the cgroup memory limit (resident memory, page cache included) where the
    /// machine has one, else RLIMIT_AS (address space, which counts reservations too).
    public var memoryBytes: UInt64?
    /// Open file descriptors (RLIMIT_NOFILE): descriptor numbers stay below it.
    public var openFiles: Int?
    /// Tasks, that is processes and threads, as the pids controller and RLIMIT_NPROC count them.
    public var processes: Int?

    public init(memoryBytes: UInt64? = nil, openFiles: Int? = nil, processes: Int? = nil) {
        self.memoryBytes = memoryBytes
        self.openFiles = openFiles
        self.processes = processes
    }

    /// No limit at all: the limiter then does nothing.
    public var isEmpty: Bool { memoryBytes == nil && openFiles == nil && processes == nil }
}
