import ApphostHost
import ArgumentParser
import Logging

struct Inspect: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check a guest library and print its descriptor, without running it.")

    @Argument(help: ArgumentHelp("The guest library.", valueName: "guest.so"))
    var guest: String

    @Flag(help: "Print the descriptor as one JSON object.")
    var json = false

    @Option(
        help: """
            Load the library in a throwaway worker process (process), so that a library that crashes \
            or hangs while loading costs only a one-line error, or in this process (none).
            """)
    var isolation: IsolationOption = .process

    @Option(help: "With process isolation, how many seconds the library may take to load.")
    var timeout: Double = 10

    func validate() throws {
        guard timeout > 0 else { throw ValidationError("--timeout must be a positive number of seconds.") }
    }

    func run() throws {
        let descriptor: GuestDescriptor
        do {
            switch isolation {
            case .process:
                let worker: String
                do {
                    worker = try WorkerExecutable.locate()
                } catch {
                    throw CLIFailure(error)
                }
                // Errors only, on stderr: stdout is the report's, and the error line the CLI's.
                var logger = Logger(label: "apphost.inspect") { StreamLogHandler.standardError(label: $0) }
                logger.logLevel = .error
                descriptor = try WorkerInspector.inspect(
                    path: guest, workerPath: worker, timeout: .milliseconds(Int64(timeout * 1000)),
                    freezer: Freezers.best(logger: logger), users: WorkerUsers.forThisHost(logger: logger))
            case .none:
                descriptor = try GuestLibrary.inspect(path: guest)
            }
        } catch let error as LoadError {
            throw CLIFailure(error)
        }
        let report = InspectReport(descriptor)
        if json {
            Output.line(ControlCoding.line(report))
        } else {
            for line in report.lines { Output.line(line) }
        }
    }
}

/// What `inspect` prints: the descriptor with names instead of bit masks.
struct InspectReport: Encodable {
    var id: String
    var name: String
    var version: String
    var vendor: String?
    var description: String?
    var capabilities: [String]
    var abiVersion: String

    init(_ descriptor: GuestDescriptor) {
        id = descriptor.id
        name = descriptor.name
        version = descriptor.version
        vendor = descriptor.vendor
        description = descriptor.summary
        capabilities = descriptor.capabilities.names
        abiVersion = descriptor.abiVersion.description
    }

    var lines: [String] {
        let fields = [
            ("id", id), ("name", name), ("version", version), ("vendor", vendor ?? "-"),
            ("description", description ?? "-"),
            ("capabilities", capabilities.isEmpty ? "none" : capabilities.joined(separator: ", ")),
            ("abi version", abiVersion),
        ]
        return fields.map { label, value in label.padding(toLength: 14, withPad: " ", startingAt: 0) + value }
    }
}
