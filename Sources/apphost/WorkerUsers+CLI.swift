import ApphostChannels
import Logging

extension WorkerUsers {
    /// `forThisHost`, failing as the CLI fails (one line, exit 1) when a root host could give its
    /// workers users of their own but cannot record them: rather than run guests as root.
    static func forThisHostForCLI(logger: Logger) throws -> WorkerUsers? {
        if let problem = registryProblem() {
            throw CLIFailure(
                "\(problem): guests would run as root; make it the host's own directory, or name another with APPHOST_UID_REGISTRY"
            )
        }
        return forThisHost(logger: logger)
    }
}
