import ApphostChannels
import ApphostCore
import ApphostFreezing
import ApphostLimits
import ArgumentParser
import Logging

/// Where guests run: each in a worker process of its own (the default: a guest that crashes or
/// hangs harms no other guest and not the host, CONTRACT X2, and suspension freezes it whole,
/// B7), or inside the host process (faster to start, no isolation).
enum IsolationOption: String, ExpressibleByArgument, CaseIterable {
    case process
    case none

    /// The opener for `launch`; throws the one-line error when no worker program is found.
    func opener(
        logger: Logger, limits: GuestLimits = GuestLimits(), priority: WorkerPriority? = nil
    ) throws -> any GuestOpener {
        switch self {
        case .none:
            return InProcessOpener()
        case .process:
            do {
                let users = WorkerUsers.forThisHost(logger: logger)
                return WorkerOpener(
                    workerPath: try WorkerExecutable.locate(),
                    // Said when the first worker starts, with the freezer: a host that fails to
                    // start says nothing but its one-line error.
                    freezer: FirstUseFreezer {
                        WorkerUsers.report(users, logger: logger)
                        return Freezers.best(logger: logger)
                    },
                    limiter: limits.isEmpty
                        ? nil : WorkerLimiter(limits: limits, workersHaveOwnUsers: users != nil, logger: logger),
                    users: users, priority: priority)
            } catch {
                throw CLIFailure(error)
            }
        }
    }
}
