import ApphostControl
import ApphostCore
import ArgumentParser
import Foundation

struct Ps: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List the guests, their states and their scenes.")

    @OptionGroup var options: CtlOptions

    func run() throws {
        let status = try options.connect().send(StatusCommand())
        if options.json {
            Output.line(ControlCoding.line(status))
        } else {
            for line in StatusTable(status: status, now: Date()).lines { Output.line(TerminalText.escaped(line)) }
        }
    }
}
