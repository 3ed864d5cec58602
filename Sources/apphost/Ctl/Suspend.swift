import ApphostControl
import ArgumentParser

struct Suspend: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Suspend a guest: its scenes go to background, then it stops running until resumed.")

    @Argument(help: "The guest's id, or its name in any case.")
    var guest: String

    @OptionGroup var options: CtlOptions

    func run() throws {
        try ActionOutput.print(
            options.connect().send(SuspendCommand(guest: guest)), json: options.json)
    }
}
