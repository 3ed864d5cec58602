import ArgumentParser

struct Events: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the host's events as they happen, until interrupted or the host stops.")

    @OptionGroup var options: CtlOptions

    @Option(
        help: ArgumentHelp(
            "Begin with the events the host still holds after this position (each --json line has its position).",
            valueName: "position"))
    var after: UInt64?

    func run() throws {
        try options.connect().follow(after: after, with: EventPrinter(json: options.json))
    }
}
