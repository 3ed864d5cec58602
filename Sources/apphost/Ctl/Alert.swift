import ApphostControl
import ArgumentParser

struct Alert: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show a host alert over the foreground (its scenes resign active), or dismiss it.")

    @Flag(help: "Dismiss the alert instead.")
    var dismiss = false

    @OptionGroup var options: CtlOptions

    func run() throws {
        try ActionOutput.print(options.connect().send(AlertCommand(dismiss: dismiss)), json: options.json)
    }
}
