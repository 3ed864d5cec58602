import ApphostControl
import ArgumentParser

struct Close: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Close a scene for good, as the switcher's close does: its session and saved state are discarded (S7).")

    @Argument(help: "The scene: its session id, a unique prefix of one (4 characters or more), or its handle.")
    var scene: String

    @OptionGroup var options: CtlOptions

    func run() throws {
        try ActionOutput.print(
            options.connect().send(CloseCommand(scene: scene)), json: options.json)
    }
}
