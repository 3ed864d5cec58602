import ApphostControl

/// A failure the CLI reports as one line on stderr ("apphost: ...") with a non-zero exit; with
/// `ctl --json`, as the JSON line a host sends for a refusal.
struct CLIFailure: Error {
    var message: String
    var exitCode: Int32 = 1
    /// What `ctl --json` says of it in its error line: the host's code, or the CLI's own.
    var code: ControlErrorCode?

    init(_ message: String, exitCode: Int32 = 1, code: ControlErrorCode? = nil) {
        self.message = message
        self.exitCode = exitCode
        self.code =
            code
            ?? (exitCode == Self.invalidExitCode ? .invalid : exitCode == Self.notRunningExitCode ? .notRunning : nil)
    }

    init(_ error: some CustomStringConvertible) { self.init(error.description) }

    /// A request the verb's own rules refuse (`ControlCommands.decode`, here or in the host), or
    /// that the host answered `invalid`: the usage error's status.
    static let invalidExitCode: Int32 = 64
    /// The host has no such guest, scene or action: as systemctl's 4, "no such unit".
    static let notFoundExitCode: Int32 = 4
    /// No host runs there (nothing listens on the control socket, no answer at `--url`): as
    /// systemctl's 3, "not running".
    static let notRunningExitCode: Int32 = 3

    /// The host's refusal, with the exit status its code calls for: 64 invalid, 4 not-found, 1
    /// for a refusal in the host's present state (conflict), and for any other.
    init(refusal message: String, code: ControlErrorCode?) {
        let status: Int32 =
            switch code {
            case .invalid?: Self.invalidExitCode
            case .notFound?: Self.notFoundExitCode
            default: 1
            }
        self.init(message, exitCode: status, code: code)
    }

    /// The failure as `ctl --json` prints it: the reply line a host sends for a refusal.
    var jsonLine: String { ControlReply.failure(message, code: code).line }
}

extension ControlErrorCode {
    /// The CLI's own, never a host's: no host runs where `ctl` looked (exit 3).
    static let notRunning = ControlErrorCode(rawValue: "not-running")
}
