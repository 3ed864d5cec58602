import ApphostHost
import ArgumentParser

struct Alert: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show a host alert over the foreground (its scenes resign active), or dismiss it.")

    @Flag(help: "Dismiss the alert instead.")
    var dismiss = false

    @OptionGroup var options: CtlOptions

    func run() throws {
        let request: ControlRequest = dismiss ? .dismissAlert : .showAlert
        try ActionOutput.print(options.connect().send(request, expecting: ControlMessage.self), json: options.json)
    }
}
