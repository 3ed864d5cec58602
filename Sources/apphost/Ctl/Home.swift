import ApphostControl
import ArgumentParser

struct Home: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Send the foreground guest to background.")

    @OptionGroup var options: CtlOptions

    func run() throws {
        try ActionOutput.print(options.connect().send(HomeCommand()), json: options.json)
    }
}
