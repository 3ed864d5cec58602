import Glibc
import Logging

/// Picks how a host freezes its workers (CONTRACT B7), once per host.
public enum Freezers {
    /// The first mechanism that works on this machine, tried for real (a cgroup is made, frozen,
    /// thawed and removed): cgroup v2, then the cgroup v1 freezer, then SIGSTOP, which always
    /// works. Logs the choice, and why the better ones were passed over.
    ///
    /// Create one per host and hand it to every worker the host opens: its cgroups are named
    /// after `hostPID`, and it removes them as its workers go.
    public static func best(
        hostPID: pid_t = getpid(), timeout: Duration = .seconds(2), logger: Logger = Logger(label: "apphost.freezer")
    ) -> any ProcessFreezer {
        var passedOver: [String] = []
        do {
            let freezer = try CgroupFreezer.v2(hostPID: hostPID, timeout: timeout, logger: logger)
            logger.info(
                "freezing workers with the cgroup v2 freezer", metadata: ["cgroup": "\(freezer.cgroups.parent)"])
            return freezer
        } catch {
            passedOver.append("cgroup v2: \(error)")
        }
        do {
            let freezer = try CgroupFreezer.v1(hostPID: hostPID, timeout: timeout, logger: logger)
            logger.info(
                "freezing workers with the cgroup v1 freezer",
                metadata: [
                    "cgroup": "\(freezer.cgroups.parent)", "passed over": "\(passedOver.joined(separator: "; "))",
                ])
            return freezer
        } catch {
            passedOver.append("cgroup v1: \(error)")
        }
        logger.info(
            "freezing workers with SIGSTOP: no cgroup freezer is usable",
            metadata: ["passed over": "\(passedOver.joined(separator: "; "))"])
        return SignalFreezer(timeout: timeout)
    }
}
