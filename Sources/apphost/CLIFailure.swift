import ApphostControl

/// A failure the CLI reports as one line on stderr ("apphost: ...") with a non-zero exit.
struct CLIFailure: Error {
    var message: String
    var exitCode: Int32 = 1

    init(_ message: String, exitCode: Int32 = 1) {
        self.message = message
        self.exitCode = exitCode
    }

    init(_ error: some CustomStringConvertible) { self.init(error.description) }

    /// A request the verb's own rules refuse (`ControlCommands.decode`, here or in the host), or
    /// that the host answered `invalid`: the usage error's status.
    static let invalidExitCode: Int32 = 64
    /// The host has no such guest, scene or action: as systemctl's 4, "no such unit".
    static let notFoundExitCode: Int32 = 4

    /// The host's refusal, with the exit status its code calls for: 64 invalid, 4 not-found, 1
    /// for a refusal in the host's present state (conflict), and for any other.
    init(refusal message: String, code: ControlErrorCode?) {
        let status: Int32 =
            switch code {
            case .invalid?: Self.invalidExitCode
            case .notFound?: Self.notFoundExitCode
            default: 1
            }
        self.init(message, exitCode: status)
    }
}
