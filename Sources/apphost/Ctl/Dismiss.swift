import ApphostControl
import ArgumentParser

struct Dismiss: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Ask to dismiss the top modal of a scene; the guest may keep it to confirm unsaved changes (N3).",
        discussion: "A modal the guest keeps is an answer, not an error: the command says so and exits 0.")

    @Argument(help: "The scene: its session id, a unique prefix of one (4 characters or more), or its handle.")
    var scene: String

    @OptionGroup var options: CtlOptions

    func run() throws {
        try ActionOutput.print(
            options.connect().send(DismissCommand(scene: scene)), json: options.json)
    }
}
