import ApphostControl
import ApphostModel
import ApphostVocabulary
import ArgumentParser
import Foundation

struct Ps: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List the guests, their states and their scenes.")

    @OptionGroup var options: CtlOptions

    @Option(
        name: .customLong("state"),
        help: ArgumentHelp(
            "Only the guests in this app state: \(AppState.allCases.map(\.description).joined(separator: ", ")) (repeat the option, or give a comma-separated list).",
            valueName: "state"))
    var states: [String] = []

    /// The states asked for; empty for every guest.
    private func chosenStates() throws -> Set<AppState> {
        var chosen: Set<AppState> = []
        for name in states.flatMap({ $0.split(separator: ",", omittingEmptySubsequences: false) }) {
            guard let state = AppState.allCases.first(where: { $0.description == name }) else {
                let known = AppState.allCases.map(\.description).joined(separator: ", ")
                throw ValidationError("unknown app state \"\(name)\" (known: \(known))")
            }
            chosen.insert(state)
        }
        return chosen
    }

    func validate() throws { _ = try chosenStates() }

    func run() throws {
        var status = try options.connect().send(StatusCommand())
        let chosen = try chosenStates()
        if !chosen.isEmpty { status.guests.removeAll { !chosen.contains($0.appState) } }
        options.print(status) {
            for line in StatusTable(status: status, now: Date()).lines { Output.line(TerminalText.escaped(line)) }
        }
    }
}
