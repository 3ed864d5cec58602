import ApphostControl
import ArgumentParser

/// A `ctl` verb on one guest (`ctl suspend org.example.notes`): one subcommand type for every
/// `GuestCommand`, whose help line is the verb's `abstract` below.
struct GuestVerb<Command: GuestCommand & CtlAbstract>: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: Command.name, abstract: Command.abstract)
    }

    @Argument(help: "The guest's id, or its name in any case.")
    var guest: String

    @OptionGroup var options: CtlOptions

    func run() throws {
        try ActionOutput.print(options.connect().send(Command(guest: guest)), json: options.json)
    }
}

/// A `ctl` verb on one scene (`ctl close 3`), as `GuestVerb` is on one guest.
struct SceneVerb<Command: SceneCommand & CtlAbstract>: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: Command.name, abstract: Command.abstract, discussion: Command.discussion)
    }

    @Argument(help: "The scene: its session id, a unique prefix of one (4 characters or more), or its handle.")
    var scene: String

    @OptionGroup var options: CtlOptions

    func run() throws {
        try ActionOutput.print(options.connect().send(Command(scene: scene)), json: options.json)
    }
}

/// What `ctl --help` says of a verb.
protocol CtlAbstract {
    static var abstract: String { get }
    static var discussion: String { get }
}

extension CtlAbstract {
    static var discussion: String { "" }
}

extension SwitchCommand: CtlAbstract {
    static let abstract = "Bring a guest to the foreground, relaunching it if it is not running."
}

extension OpenCommand: CtlAbstract {
    static let abstract =
        "Open a new window of a running guest, as a user would: a new scene session, in the foreground."
}

extension SuspendCommand: CtlAbstract {
    static let abstract = "Suspend a guest: its scenes go to background, then it stops running until resumed."
}

extension ResumeCommand: CtlAbstract {
    static let abstract = "Let a suspended guest run again; it stays in background (switch brings it forward)."
}

extension TerminateCommand: CtlAbstract {
    static let abstract = "Terminate a guest gracefully; its scenes keep their saved state."
}

extension CloseCommand: CtlAbstract {
    static let abstract =
        "Close a scene for good, as the switcher's close does: its session and saved state are discarded (S7)."
}

extension DismissCommand: CtlAbstract {
    static let abstract =
        "Ask to dismiss the top modal of a scene; the guest may keep it to confirm unsaved changes (N3)."
    static let discussion = "A modal the guest keeps is an answer, not an error: the command says so and exits 0."
}
