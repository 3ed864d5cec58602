import ApphostHost
import ArgumentParser
import Dispatch
import Foundation
import Logging

struct Launch: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Load and launch guests, print their events, and run until SIGINT or SIGTERM.",
        discussion: """
            The first guest that launches goes to the foreground, the others connect into \
            background. A file that is not a loadable guest is reported and skipped. On SIGINT or \
            SIGTERM every guest is terminated gracefully; a second SIGINT exits at once (130).
            """)

    @Argument(help: ArgumentHelp("Guest libraries to launch.", valueName: "guest.so"))
    var guests: [String]

    @OptionGroup var dataDirectory: DataDirectoryOption

    @Option(help: "What the host logs to stderr.")
    var logLevel: LogLevelOption = .info

    @Flag(help: "Print events as JSON, one object a line.")
    var json = false

    func validate() throws {
        guard !guests.isEmpty else { throw ValidationError("Name at least one guest library.") }
    }

    func run() throws {
        let level = logLevel.level
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let service = HostService(
            dataDirectory: try dataDirectory.resolve(), opener: InProcessOpener(), logger: Logger(label: "apphost"))
        let printer = EventPrinter(json: json)
        let subscription = service.subscribe { printer.print($0) }
        do {
            try service.start()
        } catch {
            throw CLIFailure(error)
        }

        let stopper = HostStopper(service: service)
        let trap = SignalTrap { stopper.signalled($0) }
        // dlopen searches the library path for a bare file name; the operator means this directory.
        let paths = guests.map { $0.hasPrefix("/") ? $0 : FileManager.default.currentDirectoryPath + "/" + $0 }
        service.launch(
            paths: paths,
            onOutcome: { _, result in
                if case .failure(let error) = result { Output.error(error.message) }
            },
            completion: { launched in
                if launched == 0 { DispatchQueue.main.async { stopper.stop(exitCode: 1) } }
            })
        withExtendedLifetime((subscription, trap)) { dispatchMain() }
    }
}

/// Shuts the host down once: on the first signal, or when no guest could launch. Confined to the
/// main queue, where the signal handlers and the launch completion run.
final class HostStopper: @unchecked Sendable {
    private let service: HostService
    private var stopping = false

    init(service: HostService) { self.service = service }

    func signalled(_ number: Int32) {
        // A second signal means the operator will not wait for the guests: leave now, as a shell
        // expects of a process interrupted by that signal.
        guard !stopping else { _exit(128 + number) }
        stop(exitCode: 0)
    }

    func stop(exitCode: Int32) {
        guard !stopping else { return }
        stopping = true
        service.shutdown {
            DispatchQueue.main.async { exit(exitCode) }
        }
    }
}
