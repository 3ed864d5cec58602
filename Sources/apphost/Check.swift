import ApphostChannels
import ApphostCheck
import ApphostControl
import ApphostFreezing
import ApphostVocabulary
import ArgumentParser
import Foundation
import Logging

/// `apphost check guest.so ...`: runs the tests of `CheckCatalogue`, each in a throwaway host
/// of its own, against each guest and gives a verdict per test and in all (exit 0 when all
/// pass, 1 when any fails, 64 on a usage error).
struct Check: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Test whether guests keep the contract, a test per rule, each in a throwaway host.",
        discussion: """
            Each test starts a host of its own, with a temporary data directory and the guest in a \
            contained worker, launches the guest into the foreground, drives it as an operator \
            and the system would, and judges only what the guest does. --list says which tests \
            there are and the contract rules each checks (sdk/CONTRACT.md).
            """)

    @Argument(help: ArgumentHelp("The guest libraries.", valueName: "guest.so"))
    var guests: [String] = []

    @Flag(help: "Print the report as one JSON object.")
    var json = false

    @Option(help: ArgumentHelp("Also write the report as JUnit XML to this file.", valueName: "file"))
    var junit: String?

    @Flag(help: "List the tests and their rules, and run none.")
    var list = false

    @Option(
        help: ArgumentHelp(
            "Run only this test, or the tests of this rule (A3); repeatable.", valueName: "test-or-rule"))
    var filter: [String] = []

    @Flag(help: "Report only the tests that failed (the totals count all).")
    var onlyFailed = false

    @Option(help: ArgumentHelp("The random walk's seed, to repeat a walk (random unless given).", valueName: "n"))
    var seed: UInt64?

    @Option(help: ArgumentHelp("Write each test's commands and events here, a JSON line each.", valueName: "file"))
    var trace: String?

    @Flag(help: "Run the guests in this process, to debug a test (a guest that crashes takes check with it).")
    var inProcess = false

    func validate() throws {
        if !list, guests.isEmpty { throw ValidationError("check needs at least one guest library, or --list") }
        for pattern in filter where !CheckCatalogue.all.contains(where: { $0.matches(pattern) }) {
            throw ValidationError("--filter \(pattern): no test has that name or rule (see --list)")
        }
    }

    /// A new opener for each test's host: in this process with `--in-process`, else in workers
    /// contained as `launch`'s are, each under a throwaway user.
    private func makeOpener(logger: Logger) throws -> @Sendable () throws -> any GuestOpener {
        if inProcess { return { InProcessOpener(hostName: "apphost check") } }
        let worker = try WorkerExecutable.locateForCLI()
        let containers = try SandboxOption.auto.containers(workerPath: worker, logger: logger)
        let users = try WorkerUsers.forThisHostForCLI(logger: logger)
        return {
            var opener = WorkerOpener(
                workerPath: worker, freezer: Freezers.best(logger: logger), hostName: "apphost check",
                stopTimeout: .seconds(5), users: users)
            // Each test's guest gets a user of its own, freed once its worker is gone.
            opener.throwawayUsers = true
            opener.containers = containers
            return opener
        }
    }

    /// The tests `--filter` selects, all without it.
    var selected: [CheckTest] {
        filter.isEmpty ? CheckCatalogue.all : CheckCatalogue.all.filter { test in filter.contains(where: test.matches) }
    }

    func run() throws {
        if list {
            let width = selected.map(\.id.count).max() ?? 0
            let rulesWidth = selected.map { $0.rules.joined(separator: " ").count }.max() ?? 0
            for test in selected {
                let name = test.id.padding(toLength: width, withPad: " ", startingAt: 0)
                let rules = test.rules.joined(separator: " ").padding(toLength: rulesWidth, withPad: " ", startingAt: 0)
                Output.line("\(name)  \(rules)  \(test.summary)")
            }
            return
        }
        // What the guests print goes to their logs, never into the report.
        Output.divertStandardOutput()
        signal(SIGPIPE, SIG_IGN)
        var logger = Logger(label: "apphost.check") { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = .critical
        var policy = CheckPolicy()
        policy.seed = seed ?? UInt64.random(in: 1...999_999)
        var runner = CheckRunner(policy: policy, logger: logger, makeOpener: try makeOpener(logger: logger))
        if let trace {
            guard FileManager.default.createFile(atPath: trace, contents: nil),
                let handle = FileHandle(forWritingAtPath: trace)
            else {
                throw CLIFailure("--trace \(trace): cannot write it")
            }
            runner.trace = CheckTrace(handle: handle)
        }
        let walks = selected.contains { $0.id == "random-walk" }
        let report = CheckReport(
            guests: guests.map { runner.check(path: $0, tests: selected) }, seed: walks ? policy.seed : nil)
        if let junit {
            do {
                try report.junit.write(toFile: junit, atomically: true, encoding: .utf8)
            } catch {
                throw CLIFailure("--junit \(junit): cannot write it: \(error.localizedDescription)")
            }
        }
        let shown = report.keeping(onlyFailed: onlyFailed)
        if json {
            Output.line(ControlCoding.line(shown))
        } else {
            for line in shown.lines { Output.line(TerminalText.escaped(line)) }
        }
        if report.failed > 0 { throw ExitCode(1) }
    }
}
