import ApphostControl
import ArgumentParser

struct Resume: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Let a suspended guest run again; it stays in background (switch brings it forward).")

    @Argument(help: "The guest's id, or its name in any case.")
    var guest: String

    @OptionGroup var options: CtlOptions

    func run() throws {
        try ActionOutput.print(
            options.connect().send(ResumeCommand(guest: guest)), json: options.json)
    }
}
