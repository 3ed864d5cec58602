import ApphostControl
import ArgumentParser

struct Terminate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Terminate a guest gracefully; its scenes keep their saved state.")

    @Argument(help: "The guest's id, or its name in any case.")
    var guest: String

    @OptionGroup var options: CtlOptions

    func run() throws {
        try ActionOutput.print(
            options.connect().send(TerminateCommand(guest: guest)), json: options.json)
    }
}
