import ApphostChannels
import ApphostVocabulary
import ArgumentParser
import Logging

/// Whether each guest's worker contains it (CONTRACT X6): with every part this machine can
/// enforce, saying loudly once which it cannot (auto); only with all of them, or not at all
/// (require); or with none (off, for a kernel whose refusals get in the way of debugging).
enum SandboxOption: String, ExpressibleByArgument, CaseIterable {
    case auto
    case require
    case off

    /// The parts each worker enforces. `auto` warns once for each part this machine lacks;
    /// `require` throws the one-line error naming them.
    func parts(workerPath: String, logger: Logger) throws -> [SandboxPart] {
        try support(workerPath: workerPath, logger: logger)?.available ?? []
    }

    /// The container each worker gets, with the operator's `grants`.
    func containers(workerPath: String, grants: [FileGrant] = [], logger: Logger) throws -> ContainerPolicy {
        guard let support = try support(workerPath: workerPath, logger: logger) else { return ContainerPolicy() }
        return ContainerPolicy(support, grants: FileGrant.byGuest(grants))
    }

    /// What this machine can enforce, nil for none asked.
    private func support(workerPath: String, logger: Logger) throws -> WorkerSandbox? {
        guard self != .off else {
            logger.warning("guests run without their container (--sandbox off): each reads what its user may read")
            return nil
        }
        let support = WorkerSandbox.support(workerPath: workerPath)
        if self == .require, !support.missing.isEmpty {
            let missing = support.missing.map { "\($0.part.rawValue) (\($0.reason))" }.joined(separator: ", ")
            throw CLIFailure("--sandbox require: this machine cannot contain guests: \(missing) is missing")
        }
        for (part, reason) in support.missing {
            logger.warning(
                "guests run without their \(part.rawValue) container: \(reason); `ctl ps` shows what each has (CONTRACT X6)"
            )
        }
        return support
    }
}
