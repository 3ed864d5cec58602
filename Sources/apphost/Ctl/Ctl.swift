import ApphostControl
import ApphostHTTP
import ArgumentParser
import Foundation

struct Ctl: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Control a running host through its control socket.",
        subcommands: [
            Ps.self, GuestVerb<SwitchCommand>.self, GuestVerb<OpenCommand>.self, Home.self, Alert.self,
            GuestVerb<SuspendCommand>.self, GuestVerb<ResumeCommand>.self, GuestVerb<TerminateCommand>.self,
            MemoryWarning.self, Action.self, Call.self, SceneVerb<CloseCommand>.self, SceneVerb<DismissCommand>.self,
            CtlLayout.self, CtlAudio.self,
            Events.self, Logs.self, CtlMetrics.self, CtlHost.self,
        ])

    /// Before the subcommand (`ctl --data-dir D ps`), as systemctl and docker take theirs;
    /// ArgumentParser hands the values to the subcommand's own `CtlOptions`.
    @OptionGroup var options: CtlOptions
}

/// The options every `ctl` subcommand takes.
struct CtlOptions: ParsableArguments {
    @OptionGroup var dataDirectory: DataDirectoryOption

    @Flag(help: "Print the result as JSON.")
    var json = false

    @Option(
        help: ArgumentHelp(
            "Drive the host whose HTTP API is at this address (default $APPHOST_URL) rather than the one on the data directory.",
            valueName: "url"))
    var url: String?

    @Option(
        help: ArgumentHelp(
            "With --url: the file whose first line is the API's token (default $APPHOST_TOKEN_FILE).",
            valueName: "path"))
    var tokenFile: String?

    /// Prints a reply: with --json as one line of JSON, else as `terminal` writes it.
    func print(_ reply: @autoclosure () -> some Encodable, else terminal: () -> Void) {
        if json { Output.line(ControlCoding.line(reply())) } else { terminal() }
    }

    func connect(environment: [String: String] = ProcessInfo.processInfo.environment) throws(CLIFailure)
        -> HostConnection
    {
        // With --json, a failure is the reply line a host sends for one, on standard error.
        Output.errorsAsJSON = json
        let url = url ?? environment["APPHOST_URL"].flatMap { $0.isEmpty ? nil : $0 }
        let tokenFile = tokenFile ?? environment["APPHOST_TOKEN_FILE"].flatMap { $0.isEmpty ? nil : $0 }
        guard let url else {
            if self.tokenFile != nil {
                throw CLIFailure("--token-file goes with --url", exitCode: CLIFailure.invalidExitCode)
            }
            return try HostConnection(dataDirectory: dataDirectory.resolve())
        }
        var token: String?
        if let tokenFile {
            do throws(HTTPSetupError) {
                token = try BearerToken(file: tokenFile).text
            } catch {
                throw CLIFailure(error.message)
            }
        }
        return HostConnection(remote: try HTTPControlClient(url: url, token: token))
    }
}
