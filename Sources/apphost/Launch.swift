import ApphostHTTP
import ApphostLimits
import ApphostPolicy
import ApphostService
import ApphostSound
import ApphostVocabulary
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
            SIGTERM every guest is terminated gracefully; a second SIGINT exits at once (130). \
            SIGQUIT stops as SIGTERM does. SIGHUP reads the token files and the log level file again; \
            the guests go on. SIGUSR1 and SIGUSR2 are logged and ignored.
            """)

    @Argument(help: ArgumentHelp("Guest libraries to launch.", valueName: "guest.so"))
    var guests: [String]

    @OptionGroup var dataDirectory: DataDirectoryOption

    @Option(help: "What the host logs to stderr (default: info).")
    var logLevel: LogLevelOption?

    @Option(
        help: ArgumentHelp(
            "A file whose first line is the log level (trace, debug, info, notice, warning, error, critical), read again on SIGHUP. Not with --log-level.",
            valueName: "path"))
    var logLevelFile: String?

    @Option(help: "Run each guest in a worker process of its own (process) or inside the host (none).")
    var isolation: IsolationOption = .process

    @Option(
        help: ArgumentHelp(
            "Contain each worker's guest with every part this machine has, saying which it lacks (auto); refuse to start without them all (require); or not at all (off).",
            discussion:
                "The container: the system's libraries and the guest's to read, its data directory to write, and a filter of system calls (CONTRACT X6)."
        ))
    var sandbox: SandboxOption = .auto

    @Option(help: ArgumentHelp("Let guest <id> read <path> from its container; repeatable.", valueName: "id:path:ro"))
    var grant: [String] = []

    @OptionGroup(title: "Crashes and hangs") var policies: PolicyOptions

    @OptionGroup(title: "Background work and memory") var background: BackgroundOptions
    @OptionGroup(title: "Scenes and the virtual display") var scenes: SceneOptions

    @OptionGroup(title: "Limits per guest") var limits: LimitsOptions

    @OptionGroup(title: "Sound") var audio: AudioOptions

    @OptionGroup(title: "HTTP API") var http: HTTPOptions

    @Flag(help: "Print events as JSON, one object a line.")
    var json = false

    @Option(
        help: ArgumentHelp(
            "Send each event and log record to journald's socket as an entry with fields (GUEST_ID, EVENT, ...), or, where it does not listen, mark each line with its syslog priority (journal); or not (plain).",
            discussion:
                "auto: journal for standard output or standard error when $JOURNAL_STREAM names it. $APPHOST_JOURNAL_SOCKET names another socket than /run/systemd/journal/socket."
        ))
    var logFormat: LogFormatOption = .auto

    func validate() throws {
        guard !guests.isEmpty else { throw ValidationError("Name at least one guest library.") }
        if logLevel != nil, logLevelFile != nil {
            throw ValidationError("--log-level and --log-level-file exclude each other: give one.")
        }
        guard try isolation == .process || limits.guestLimits().isEmpty else {
            throw ValidationError("--memory-limit, --files-limit and --processes-limit need --isolation process.")
        }
        if isolation == .none, sandbox == .require {
            throw ValidationError(
                "--sandbox require needs --isolation process: a guest in the host's process has no container.")
        }
    }

    func run() throws {
        // Nothing the host prints or logs may block it (CONTRACT X2): it all goes through writers
        // of its own, from here on.
        let levelFile = logLevelFile.map(LogLevelFile.init(path:))
        let level = SharedLogLevel(try levelFile?.read() ?? logLevel?.level ?? .info)
        let output = HostOutput(json: json, format: logFormat)
        LoggingSystem.bootstrap { label in
            var handler = output.logHandler(label: label)
            // The shared level decides; this handler writes what reaches it.
            handler.logLevel = .trace
            return SharedLevelLogHandler(inner: handler, shared: level)
        }
        let logger = Logger(label: "apphost")
        HostDescriptorLimit.raise()
        let service: HostService
        let mixer: HostMixer
        let httpConfiguration: HTTPOptions.Configuration?
        do {
            httpConfiguration = try http.configuration()
            let configuration = try audio.configuration()
            do throws(AudioMixerError) {
                mixer = try HostMixer(configuration)
            } catch {
                throw CLIFailure(error)
            }
            service = HostService(
                dataDirectory: try dataDirectory.resolve(),
                opener: try isolation.opener(
                    logger: logger, limits: limits.guestLimits(), priority: limits.workerPriority(logger: logger),
                    sandbox: sandbox, grants: try grant.map(FileGrant.parse)),
                restartPolicy: policies.restartPolicy, watchdog: policies.watchdogPolicy, background: background.policy,
                memoryLimit: try background.memoryLimitBytes(), backgroundSceneLimit: background.backgroundSceneLimit,
                scenes: scenes.policy, audio: AudioPolicy(format: configuration.format), audioMixer: mixer,
                droppedEventLines: { output.droppedEvents }, hostQueue: isolation.makeHostQueue(), logger: logger)
        } catch {
            // What was logged so far comes before the error line.
            output.flush()
            throw error
        }
        service.metrics.recordBuild(version: HostVersion.build.version, abi: HostVersion.build.abi)
        // Under a service manager (CONTRACT O3): READY=1 once the guests are up, STATUS= as they
        // come and go, the watchdog fed from the host queue, STOPPING=1 when shutdown begins. Nil
        // under none.
        let notifier = ServiceNotifier.fromEnvironment()
        let guestCount = notifier.map { notifier in GuestCountStatus { notifier.status($0) } }
        let printer = EventPrinter(json: json)
        let subscription = service.subscribe { event in
            output.event(event, line: printer.line(event))
            guestCount?.observe(event)
        }
        // Before start: a signal from now on shuts down gracefully (once the main queue runs).
        let readiness = HostReadiness()
        let stopper = HostStopper(
            service: service, mixer: mixer, output: output, notifier: notifier, readiness: readiness,
            guestCount: guestCount)
        let reloader = HostReloader(
            tokens: httpConfiguration?.tokens, logLevelFile: levelFile, logLevel: level, logger: logger)
        let trap = SignalTrap { number in
            switch number {
            case SIGHUP: reloader.reload()
            case SIGUSR1, SIGUSR2:
                logger.notice("ignored \(number == SIGUSR1 ? "SIGUSR1" : "SIGUSR2"): it means nothing to apphost")
            default: stopper.signalled(number)
            }
        }
        do {
            try service.start()
        } catch {
            output.flush()
            throw CLIFailure(error)
        }
        if let notifier { service.feedWatchdog(notifier) }
        if let httpConfiguration {
            do throws(HTTPSetupError) {
                let server = try HTTPServer.start(
                    binding: httpConfiguration.binding, tokens: httpConfiguration.tokens,
                    allowedHosts: httpConfiguration.allowedHosts, version: .build, readiness: readiness,
                    responder: service,
                    metrics: HTTPMetricsSink(
                        request: { [metrics = service.metrics] in metrics.httpRequest(route: $0, status: $1) },
                        followers: { [metrics = service.metrics] in metrics.eventFollowers($0) },
                        followerDropped: { [metrics = service.metrics] in metrics.eventFollowerDropped() }),
                    logger: logger)
                stopper.http = server
                logger.info("serving HTTP", metadata: ["address": "\(server.address)"])
            } catch {
                // The host has started: it stops as after a signal, with no guest launched.
                output.error(error.message)
                stopper.stop(exitCode: 1)
                withExtendedLifetime((subscription, trap)) { dispatchMain() }
            }
        }

        // dlopen searches the library path for a bare file name; the operator means this directory.
        let paths = guests.map { $0.hasPrefix("/") ? $0 : FileManager.default.currentDirectoryPath + "/" + $0 }
        service.launch(
            paths: paths,
            onOutcome: { _, result in
                // The launch-failed event says it too.
                if case .failure(let error) = result { output.error(error.message, repeatsAnEvent: true) }
            },
            completion: { [count = paths.count] launched in
                // A host with a guest up serves, even when others failed to launch; one with none
                // stops, and is never ready.
                guard launched > 0 else { return DispatchQueue.main.async { stopper.stop(exitCode: 1) } }
                readiness.markReady()
                notifier?.ready(status: "\(launched) of \(count) guest\(count == 1 ? "" : "s") launched")
                guestCount?.startReporting()
            })
        withExtendedLifetime((subscription, trap)) { dispatchMain() }
    }
}
