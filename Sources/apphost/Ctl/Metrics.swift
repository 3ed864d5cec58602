import ApphostControl
import ArgumentParser

/// `ctl metrics`: the host's metrics in Prometheus' text format (CONTRACT O2), printed as is so
/// that `apphost ctl metrics | grep apphost_` works; `--json` prints the reply's result.
struct CtlMetrics: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "metrics",
        abstract: "Print the host's metrics in Prometheus' text format: guests by state, each guest's cost (O2).")

    @OptionGroup var options: CtlOptions

    func run() throws {
        let exposition = try options.connect().send(MetricsCommand())
        options.print(exposition) { Output.text(exposition.text) }
    }
}
