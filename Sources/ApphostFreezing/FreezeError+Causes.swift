import Glibc

/// The errors every mechanism gives alike, so that callers and tests see the same words.
extension FreezeError {
    /// The process is gone, or a zombie: there is nothing left to freeze or thaw.
    static func exited(_ pid: pid_t) -> FreezeError { FreezeError("process \(pid) has exited") }

    /// Freezing is only for workers: a freezer refuses any pid it was not given by `adopt`.
    static func notAdopted(_ pid: pid_t) -> FreezeError {
        FreezeError("process \(pid) is not a worker this host adopted")
    }
}
