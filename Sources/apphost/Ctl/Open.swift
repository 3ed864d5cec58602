import ApphostControl
import ArgumentParser

struct Open: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Open a new window of a running guest, as a user would: a new scene session, in the foreground.")

    @Argument(help: "The guest's id, or its name in any case.")
    var guest: String

    @OptionGroup var options: CtlOptions

    func run() throws {
        try ActionOutput.print(
            options.connect().send(OpenCommand(guest: guest)), json: options.json)
    }
}
