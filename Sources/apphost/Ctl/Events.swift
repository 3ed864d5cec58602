import ApphostControl
import ArgumentParser

struct Events: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the host's events as they happen, until interrupted or the host stops.",
        discussion: """
            Each line begins with the event's position, RUN.NUMBER (--json: its "position"), the same as the \
            HTTP stream's ids: --after takes either. A position of an earlier run of the host begins with a \
            notice that the host restarted, then everything this run holds.
            """)

    @OptionGroup var options: CtlOptions

    @Option(
        help: ArgumentHelp(
            "Begin with the events the host still holds after this position (RUN.NUMBER, as each line shows it); 0 for all it holds.",
            valueName: "position"))
    var after: String?

    @Option(
        name: .customLong("guest"),
        help: ArgumentHelp(
            "Only this guest's events, by its id (repeat the option, or give a comma-separated list).", valueName: "id")
    )
    var guests: [String] = []

    @Option(
        name: .customLong("kind"),
        help: ArgumentHelp(
            "Only events of this kind, such as log or app-state (repeat the option, or give a comma-separated list).",
            valueName: "kind"))
    var kinds: [String] = []

    var request: EventsCommand { EventsCommand(after: after, guests: guests, kinds: kinds) }

    func validate() throws { try request.validateArguments() }

    func run() throws {
        try options.connect().follow(request, with: EventPrinter(json: options.json, style: .positioned))
    }
}

struct Logs: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print a guest's log: what the host still holds of it, then, with -f, what it logs next.")

    @OptionGroup var options: CtlOptions

    @Argument(help: "The guest's id.")
    var guest: String

    @Flag(name: .shortAndLong, help: "Go on with what the guest logs, until interrupted or the host stops.")
    var follow = false

    var request: EventsCommand { EventsCommand(after: "0", guests: [guest], kinds: ["log"], follow: follow) }

    func validate() throws {
        guard !guest.isEmpty else { throw ValidationError("the guest's id must not be empty") }
        try request.validateArguments()
    }

    func run() throws {
        try options.connect().follow(request, with: EventPrinter(json: options.json, style: .log))
    }
}

extension EventsCommand {
    /// The command's own checks, the same as the host's for any transport, as a usage error.
    fileprivate func validateArguments() throws {
        do throws(ControlProtocolError) {
            try validate()
        } catch {
            throw ValidationError(error.message)
        }
    }
}
