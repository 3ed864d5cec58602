import ApphostPolicy
import ApphostVocabulary
import ArgumentParser

/// How the host treats guests that crash or hang (CONTRACT X2, B5).
struct PolicyOptions: ParsableArguments {
    @Option(help: "Restart a guest that crashes or is killed by the watchdog: never or on-failure.")
    var restart: RestartPolicy.Mode = .never

    // Numbers are parsed `.unconditional`ly: `--restart-burst -1` is a value the checks refuse,
    // not an option of its own that leaves --restart-burst without one.
    @Option(
        parsing: .unconditional,
        help: "With on-failure, stop restarting a guest after this many restarts within --restart-interval.")
    var restartBurst = 5

    @Option(
        parsing: .unconditional, help: ArgumentHelp("The window of --restart-burst, in seconds.", valueName: "seconds"))
    var restartInterval: Double = 10

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Flag a lifecycle callback that runs longer than this, in seconds.", valueName: "seconds"))
    var watchdog: Double = 5

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Stop a guest whose callback runs longer than this, in seconds (see --hang-action).", valueName: "seconds"))
    var watchdogHardLimit: Double = 10

    @Option(help: "What stops a hung guest: kill it, or freeze it for inspection (process isolation only).")
    var hangAction: WatchdogPolicy.Action = .kill

    func validate() throws {
        guard restartBurst >= 1 else {
            throw ValidationError("--restart-burst must be at least 1, not \(restartBurst)")
        }
        try Seconds.checkPositive(restartInterval, "--restart-interval")
        try Seconds.checkPositive(watchdog, "--watchdog")
        try Seconds.checkPositive(watchdogHardLimit, "--watchdog-hard-limit")
        guard watchdogHardLimit >= watchdog else {
            throw ValidationError("--watchdog-hard-limit must be at least --watchdog.")
        }
    }

    var restartPolicy: RestartPolicy {
        RestartPolicy(mode: restart, burst: restartBurst, interval: .seconds(restartInterval))
    }

    var watchdogPolicy: WatchdogPolicy {
        WatchdogPolicy(limit: .seconds(watchdog), hardLimit: .seconds(watchdogHardLimit), action: hangAction)
    }
}

extension RestartPolicy.Mode: ExpressibleByArgument {}
extension WatchdogPolicy.Action: ExpressibleByArgument {}
