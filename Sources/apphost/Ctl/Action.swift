import ApphostControl
import ArgumentParser

struct Action: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Perform a user action on a shown scene; while its guest handles it, it may open one scene (S9).")

    @Argument(help: "The scene: its session id, a unique prefix of one (4 characters or more), or its handle.")
    var scene: String

    @Argument(help: "The action's name, as the guest knows it.")
    var name: String

    @Argument(help: "Text handed to the guest with the action.")
    var payload: String = ""

    @OptionGroup var options: CtlOptions

    func run() throws {
        try ActionOutput.print(
            options.connect().send(ActionCommand(scene: scene, name: name, payload: payload)),
            json: options.json)
    }
}
