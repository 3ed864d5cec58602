import ApphostControl
import ArgumentParser

struct MemoryWarning: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "memory-warning",
        abstract: "Simulate memory pressure: warn the running guests (suspended ones hear of it on resume).",
        discussion: """
            With --critical the host then terminates every suspended guest, least recently used \
            first, as it does when it runs over --host-memory-limit. Their saved state survives: \
            they restore it when they are launched again.
            """)

    @Flag(help: "Also terminate the suspended guests.")
    var critical = false

    @OptionGroup var options: CtlOptions

    func run() throws {
        try ActionOutput.print(
            options.connect().send(MemoryWarningCommand(level: critical ? .critical : .warning)),
            json: options.json)
    }
}
