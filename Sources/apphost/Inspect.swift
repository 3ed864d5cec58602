import ApphostChannels
import ApphostControl
import ApphostFreezing
import ApphostLoading
import ApphostModel
import ApphostVocabulary
import ArgumentParser
import Logging

struct Inspect: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check a guest library and print its descriptor; with --launch, check its launch too.",
        discussion: """
            Without --launch, inspect loads the library (its constructors run), reads \
            apphost_entry and checks the descriptor, and runs nothing else of the guest: not init, \
            query nor did_finish_launching, which launch runs and which can still refuse the guest; \
            the "launch" line says "not checked". With --launch it runs them too, as launch does, \
            then deinit, with a temporary data directory, and fails with the line launch would print. \
            The "exports" line says what the file exports besides apphost_entry: a warning, never an \
            error, when that includes plain (not Swift) names, which the guest's own calls may then \
            resolve to the host's or a system library's.
            """)

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

    @Option(
        help:
            "With process isolation, load the library in a guest's container with every part this machine has (auto), only with all of them (require), or in none (off)."
    )
    var sandbox: SandboxOption = .auto

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "With process isolation, how many seconds loading and init may take, and then did_finish_launching (10).",
            valueName: "seconds"))
    var timeout: Double?

    @Flag(help: "Also run init, query and did_finish_launching, then deinit, and fail as launch would.")
    var launch = false

    /// README: inspect runs no host and takes no --data-dir. Declared (and hidden) only to say so.
    @Option(name: .customLong("data-dir"), help: .hidden)
    var dataDirectory: String?

    func validate() throws {
        guard dataDirectory == nil else {
            throw ValidationError("inspect takes no --data-dir: it runs no host and keeps no state")
        }
        if let timeout {
            // A library that hangs in this process hangs inspect with it: nothing could stop it.
            guard isolation == .process else {
                throw ValidationError(
                    "--timeout needs --isolation process: nothing stops a guest that hangs in this process")
            }
            // Also bounded: whole milliseconds past Int64 (1e16 s) trapped with a 49-line backtrace.
            try Seconds.checkPositive(timeout, "--timeout")
        }
        if isolation == .none, sandbox == .require {
            throw ValidationError(
                "--sandbox require needs --isolation process: a guest in this process has no container.")
        }
    }

    /// How long loading may take, and did_finish_launching after it; bounded by `validate`.
    var limit: Duration { .milliseconds(Int64((timeout ?? 10) * 1000)) }

    func run() throws {
        // What the library prints while it loads (its constructors, in this process or in the
        // worker, which inherits descriptor 1) goes to standard error, never into the report.
        Output.divertStandardOutput()
        let descriptor: GuestDescriptor
        do {
            if launch {
                descriptor = try LaunchCheck.run(path: guest, isolation: isolation, timeout: limit, sandbox: sandbox)
            } else {
                switch isolation {
                case .process:
                    let worker = try WorkerExecutable.locateForCLI()
                    // Errors only, on stderr: stdout is the report's, and the error line the CLI's.
                    var logger = Logger(label: "apphost.inspect") { StreamLogHandler.standardError(label: $0) }
                    logger.logLevel = .error
                    descriptor = try WorkerInspector.inspect(
                        path: guest, workerPath: worker, timeout: limit, freezer: Freezers.best(logger: logger),
                        users: WorkerUsers.forThisHostForCLI(logger: logger),
                        sandbox: sandbox.parts(workerPath: worker, logger: logger))
                case .none:
                    descriptor = try GuestLibrary.inspect(path: guest)
                }
            }
        } catch let error as LoadError {
            throw CLIFailure(error)
        }
        // Read from the file in this process, whatever the isolation: the worker sends the
        // descriptor only, and the file says the same to any reader.
        let report = InspectReport(descriptor, launched: launch, exports: GuestExports.read(path: guest))
        if json {
            Output.line(ControlCoding.line(report))
        } else {
            for line in report.lines { Output.line(TerminalText.escaped(line)) }
        }
    }
}

/// What `inspect` prints: the descriptor with names instead of bit masks, and what the library
/// exports besides `apphost_entry`.
struct InspectReport: Encodable {
    var id: String
    var name: String
    var version: String
    var vendor: String?
    var description: String?
    /// The entitlements the descriptor's `capabilities` declare (CONTRACT A6).
    var capabilities: [String]
    var abiVersion: String
    /// "ok" after `--launch`, else "not checked": init, query and did_finish_launching did not run.
    var launch: String
    /// `null` in JSON when the file does not tell (no section headers or dynamic symbol table).
    var exports: Exports
    /// What `apphost ctl call` may call (CONTRACT F1).
    var actions: [GuestAction]

    init(_ descriptor: GuestDescriptor, launched: Bool, exports: GuestExports?) {
        id = descriptor.id
        name = descriptor.name
        version = descriptor.version
        vendor = descriptor.vendor
        description = descriptor.summary
        capabilities = descriptor.capabilities.names
        abiVersion = descriptor.abiVersion.description
        launch = launched ? "ok" : "not checked"
        self.exports = Exports(known: exports)
        actions = descriptor.actions
    }

    var lines: [String] {
        let fields = [
            ("id", id), ("name", name), ("version", version), ("vendor", vendor ?? "-"),
            ("description", description ?? "-"),
            // CONTRACT A6: what it gets beyond its container; JSON keeps the descriptor's word.
            ("entitlements", capabilities.isEmpty ? "none" : capabilities.joined(separator: ", ")),
            ("abi version", abiVersion),
            (
                "launch",
                launch == "ok"
                    ? "init, query, did_finish_launching and deinit: ok"
                    : "not checked (init, query and did_finish_launching did not run; see --launch)"
            ),
        ]
        // One line per action, its signature then its description, under one label.
        let width = actions.map(\.signature.count).max() ?? 0
        let actionLines = actions.enumerated().map { index, action in
            (
                index == 0 ? "actions" : "",
                action.signature.padding(toLength: width + 2, withPad: " ", startingAt: 0) + action.summary
                    + (action.foreground ? " (foreground only)" : "")
            )
        }
        let lines =
            fields + (actionLines.isEmpty ? [("actions", "none")] : actionLines) + [("exports", exports.summary)]
        return lines.map { label, value in
            label.padding(toLength: 14, withPad: " ", startingAt: 0) + value
        }
    }
}

extension InspectReport {
    /// The guest's exports, encoded as `GuestExports` or as `null`, not left out, when unknown.
    struct Exports: Encodable {
        var known: GuestExports?

        /// The plain names listed before "and N more".
        static let namesShown = 8

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            if let known { try container.encode(known) } else { try container.encodeNil() }
        }

        /// The value of the `exports` line. A warning, never an error: the guest loads all the same.
        var summary: String {
            guard let known else { return "unknown (the file has no section headers or dynamic symbol table to read)" }
            let swift =
                known.swiftSymbols == 0
                ? nil
                : "\(count(known.swiftSymbols, "Swift symbol")) (harmless: Swift names are unique to their module)"
            guard !known.otherSymbols.isEmpty else {
                return swift.map { "apphost_entry and \($0)" } ?? "apphost_entry only"
            }

            var names = known.otherSymbols.prefix(Self.namesShown).map(Self.printable).joined(separator: ", ")
            if known.otherSymbols.count > Self.namesShown {
                names += " and \(known.otherSymbols.count - Self.namesShown) more"
            }
            let other = "\(count(known.otherSymbols.count, "other symbol")): \(names)"
            return (swift.map { "apphost_entry, \($0) and " } ?? "apphost_entry and ") + other
                + "; the guest's own references to them may bind to same-named symbols of the host or a system"
                + " library: link with sdk/apphost.map (sdk/README.md, \"One exported symbol\")"
        }

        private func count(_ number: Int, _ noun: String) -> String { "\(number) \(noun)\(number == 1 ? "" : "s")" }

        /// A name as the terminal may show it: a control character, which a file can hold in its
        /// symbol names, becomes "?".
        private static func printable(_ name: String) -> String {
            String(
                String.UnicodeScalarView(
                    name.unicodeScalars.map { $0.properties.generalCategory == .control ? "?" : $0 }))
        }
    }
}
