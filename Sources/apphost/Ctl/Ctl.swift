import ArgumentParser

struct Ctl: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Control a running host through its control socket.",
        subcommands: [
            Ps.self, Switch.self, Open.self, Home.self, Alert.self, Suspend.self, Resume.self, Terminate.self,
            MemoryWarning.self, Action.self, Call.self, Close.self, Dismiss.self, CtlLayout.self, CtlAudio.self,
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

    func connect() throws(CLIFailure) -> HostConnection {
        try HostConnection(dataDirectory: dataDirectory.resolve())
    }
}
