import ApphostHost
import ArgumentParser
import Logging

/// Where guests run: each in a worker process of its own (the default: a guest that crashes or
/// hangs harms no other guest and not the host, CONTRACT X2, and suspension freezes it whole,
/// B7), or inside the host process (faster to start, no isolation).
enum IsolationOption: String, ExpressibleByArgument, CaseIterable {
    case process
    case none

    /// The opener for `launch`; throws the one-line error when no worker program is found.
    func opener(logger: Logger, limits: GuestLimits = GuestLimits()) throws -> any GuestOpener {
        switch self {
        case .none:
            return InProcessOpener()
        case .process:
            do {
                return WorkerOpener(
                    workerPath: try WorkerExecutable.locate(),
                    freezer: FirstUseFreezer { Freezers.best(logger: logger) },
                    limiter: limits.isEmpty ? nil : WorkerLimiter(limits: limits, logger: logger))
            } catch {
                throw CLIFailure(error)
            }
        }
    }
}
