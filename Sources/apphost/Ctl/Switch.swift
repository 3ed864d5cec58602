import ApphostControl
import ArgumentParser

struct Switch: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Bring a guest to the foreground, relaunching it if it is not running.")

    @Argument(help: "The guest's id, or its name in any case.")
    var guest: String

    @OptionGroup var options: CtlOptions

    func run() throws {
        try ActionOutput.print(
            options.connect().send(SwitchCommand(guest: guest)), json: options.json)
    }
}
