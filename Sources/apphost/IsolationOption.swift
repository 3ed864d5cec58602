import ApphostChannels
import ApphostExecutors
import ApphostFreezing
import ApphostLimits
import ApphostVocabulary
import ArgumentParser
import Dispatch
import Logging

/// Where guests run: each in a worker process of its own (the default: a guest that crashes or
/// hangs harms no other guest and not the host, CONTRACT X2, and suspension freezes it whole,
/// B7), or inside the host process (faster to start, no isolation).
enum IsolationOption: String, ExpressibleByArgument, CaseIterable {
    case process
    case none

    /// A host queue for `launch` (a new one each call, for `.none`). Workers' replies arrive on sockets: the host's event loop,
    /// which reads them, runs the host queue too, so that a reply wakes the thread that runs it
    /// (Benchmarks/README.md, sporadic round trips). In-process guests reply from Dispatch threads,
    /// where a Dispatch queue of the host's own often runs the reply on the thread that sent it;
    /// on the loop each reply woke it, and the chained round trip, 1.04x a bare Dispatch hop on a
    /// queue, took 1.15x to 2.5x on the loop, depending on where the scheduler put the two threads.
    func makeHostQueue() -> any HostExecutor {
        switch self {
        case .process: HostEventLoop.shared
        case .none: DispatchQueue(label: "apphost.host")
        }
    }

    /// The opener for `launch`; throws the one-line error when no worker program is found.
    func opener(
        logger: Logger, limits: GuestLimits = GuestLimits(), priority: WorkerPriority? = nil,
        sandbox: SandboxOption = .auto, grants: [FileGrant] = []
    ) throws -> any GuestOpener {
        switch self {
        case .none:
            return InProcessOpener()
        case .process:
            let users = try WorkerUsers.forThisHostForCLI(logger: logger)
            let workerPath: String
            do {
                workerPath = try WorkerExecutable.locate()
            } catch {
                throw CLIFailure(error)
            }
            var opener = WorkerOpener(
                workerPath: workerPath,
                // Said when the first worker starts, with the freezer: a host that fails to
                // start says nothing but its one-line error.
                freezer: FirstUseFreezer {
                    WorkerUsers.report(users, logger: logger)
                    return Freezers.best(logger: logger)
                },
                limiter: limits.isEmpty
                    ? nil : WorkerLimiter(limits: limits, workersHaveOwnUsers: users != nil, logger: logger),
                users: users, priority: priority)
            opener.containers = try sandbox.containers(workerPath: workerPath, grants: grants, logger: logger)
            return opener
        }
    }
}
