import ApphostService
import ArgumentParser

/// `--data-dir`, shared by `launch` and `ctl` so that both find the same host; `ctl` takes it
/// before its subcommand too.
struct DataDirectoryOption: ParsableArguments {
    @Option(
        name: .customLong("data-dir"),
        help: ArgumentHelp(
            "The host's state directory (lock, control socket, guest data).",
            discussion: "Default: $APPHOST_DATA_DIR, else $XDG_STATE_HOME/apphost, else ~/.local/state/apphost.",
            valueName: "dir"))
    var path: String?

    func validate() throws {
        if path?.isEmpty == true { throw ValidationError("--data-dir must not be empty") }
    }

    func resolve() throws(CLIFailure) -> DataDirectory {
        do {
            return try DataDirectory.resolve(path)
        } catch {
            throw CLIFailure(error)
        }
    }
}
