import ApphostFreezing
import Glibc
import Synchronization

/// Chooses the real freezer when the first worker needs one: probing cgroups (and saying which
/// mechanism won) is for a host that got as far as opening a guest, not one that fails to start
/// with a one-line error.
final class FirstUseFreezer: ProcessFreezer {
    private let choose: @Sendable () -> any ProcessFreezer
    private let chosen = Mutex<(any ProcessFreezer)?>(nil)

    init(_ choose: @escaping @Sendable () -> any ProcessFreezer) { self.choose = choose }

    private var freezer: any ProcessFreezer {
        chosen.withLock { chosen in
            if let chosen { return chosen }
            let freezer = choose()
            chosen = freezer
            return freezer
        }
    }

    var mechanism: String { freezer.mechanism }
    func adopt(pid: pid_t) throws(FreezeError) { try freezer.adopt(pid: pid) }
    func freeze(pid: pid_t) throws(FreezeError) { try freezer.freeze(pid: pid) }
    func thaw(pid: pid_t) throws(FreezeError) { try freezer.thaw(pid: pid) }
    func release(pid: pid_t) { freezer.release(pid: pid) }
}
