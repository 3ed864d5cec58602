import ApphostChannels

extension WorkerExecutable {
    /// `locate`, failing as the CLI fails: its one line, exit 1.
    static func locateForCLI() throws -> String {
        do {
            return try locate()
        } catch {
            throw CLIFailure(error)
        }
    }
}
