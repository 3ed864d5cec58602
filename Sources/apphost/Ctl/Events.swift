import ArgumentParser

struct Events: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the host's events as they happen, until interrupted or the host stops.")

    @OptionGroup var options: CtlOptions

    func run() throws {
        try options.connect().follow(with: EventPrinter(json: options.json))
    }
}
