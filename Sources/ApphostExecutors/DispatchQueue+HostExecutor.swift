import ApphostVocabulary
import Dispatch

/// A serial `DispatchQueue` is the host's executor, as `DispatchHostClock` is its clock: the two
/// production adapters of the core's seams.
extension DispatchQueue: HostExecutor {
    public func execute(_ work: @escaping @Sendable () -> Void) { async(execute: work) }
    public func executeAndWait(_ work: () -> Void) { sync(execute: work) }
    public func preconditionCurrent() { dispatchPrecondition(condition: .onQueue(self)) }
}
