import ApphostControl
import ApphostModel
import ArgumentParser
import Foundation

struct Call: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Call a guest's typed action (F2) and print its result.",
        discussion: """
            The arguments are read as the action's signature types them: true or false for b, a \
            decimal integer for y n q i u x t, a number for d, the text itself for s, base64 for \
            ay. Or give them all as one JSON array with --arguments, such as '["milk", 2]' (bytes \
            as base64 strings there too). The result prints as it is: a string as its text, bytes \
            as base64, nothing for an action that returns nothing; --json prints the whole answer. \
            `apphost ctl ps --json` and `apphost inspect` list each guest's actions. An action on a \
            suspended guest is refused (resume it first), and so is a foreground-only action on a \
            guest in background.
            """)

    @Argument(help: "The guest: its id, or its name.")
    var guest: String

    @Argument(help: "The action's name.")
    var action: String

    @Argument(parsing: .allUnrecognized, help: ArgumentHelp("The action's arguments, in order.", valueName: "argument"))
    var words: [String] = []

    @Option(help: ArgumentHelp("The arguments as one JSON array instead.", valueName: "json-array"))
    var arguments: String?

    @OptionGroup var options: CtlOptions

    func validate() throws {
        if arguments != nil, !words.isEmpty {
            throw ValidationError("give the arguments as words or as --arguments, not both")
        }
        _ = try argumentValues()
    }

    /// `--arguments` read as a JSON array; a usage error when it is not one.
    private func argumentValues() throws -> [JSONValue]? {
        guard let arguments else { return nil }
        guard let values = try? JSONDecoder().decode([JSONValue].self, from: Data(arguments.utf8)) else {
            throw ValidationError("--arguments takes one JSON array, such as '[\"milk\", 2]'")
        }
        return values
    }

    func run() throws {
        var command = CallCommand(guest: guest, action: action, words: words)
        if let values = try argumentValues() {
            command = CallCommand(guest: guest, action: action, arguments: values)
        }
        let answer = try options.connect().send(command)
        options.print(answer) {
            if let text = answer.text { Output.line(text) }
        }
    }
}
