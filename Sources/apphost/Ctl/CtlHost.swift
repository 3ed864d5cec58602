import ApphostControl
import ApphostVocabulary
import ArgumentParser
import Foundation

/// `ctl host`: who the host is (CONTRACT O4), as `GET /v1/host` answers.
struct CtlHost: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "host", abstract: "Print who the host is: its id, machine, release and start time (O4).")

    @OptionGroup var options: CtlOptions

    func run() throws {
        let identity = try options.connect().send(HostCommand())
        options.print(identity) {
            Output.line(TerminalText.escaped("id: \(identity.id)"))
            Output.line(TerminalText.escaped("hostname: \(identity.hostname)"))
            Output.line(TerminalText.escaped("version: \(identity.version)"))
            Output.line("started: \(ISO8601Timestamps.string(from: identity.started))")
        }
    }
}
