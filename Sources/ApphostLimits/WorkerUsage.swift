/// What a running worker uses now, of what limits count but no kernel counter records.
public struct WorkerUsage: Sendable, Equatable {
    /// Entries of /proc/<pid>/fd. RLIMIT_NOFILE bounds descriptor numbers, so open() fails with
    /// EMFILE exactly when every number below the limit is taken: when this reaches the limit.
    public var openFiles: Int
}
