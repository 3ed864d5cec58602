import ApphostVersion
import ArgumentParser

struct Apphost: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Runs guest apps (shared libraries) with an app and scene lifecycle.",
        version: APPHOST_VERSION,
        subcommands: [Launch.self, Inspect.self, Check.self, Ctl.self])
}
