/// The serial context the host core runs in, handed in so that the policy holds no queue of its
/// own: the host queue in production (`HostEventLoop` or a `DispatchQueue`, in ApphostExecutors), a `ManualExecutor`
/// in tests (ApphostPolicyTesting). Every
/// method of `HostCore`, and every completion it calls, runs on it.
public protocol HostExecutor: Sendable {
    /// Runs `work` on the executor, after what is already queued there.
    func execute(_ work: @escaping @Sendable () -> Void)
    /// Runs `work` on the executor and returns when it has run. Never call it on the executor.
    func executeAndWait(_ work: () -> Void)
    /// Stops the program when the caller is not running on the executor.
    func preconditionCurrent()
}
