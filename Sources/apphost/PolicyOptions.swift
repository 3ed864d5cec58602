import ApphostHost
import ArgumentParser

/// How the host treats guests that crash or hang (CONTRACT X2, B5).
struct PolicyOptions: ParsableArguments {
    @Option(help: "Restart a guest that crashes or is killed by the watchdog: never or on-failure.")
    var restart: RestartPolicy.Mode = .never

    @Option(help: "With on-failure, stop restarting a guest after this many restarts within --restart-interval.")
    var restartBurst = 5

    @Option(help: ArgumentHelp("The window of --restart-burst, in seconds.", valueName: "seconds"))
    var restartInterval: Double = 10

    @Option(
        help: ArgumentHelp("Flag a lifecycle callback that runs longer than this, in seconds.", valueName: "seconds"))
    var watchdog: Double = 5

    @Option(
        help: ArgumentHelp(
            "Stop a guest whose callback runs longer than this, in seconds (see --hang-action).", valueName: "seconds"))
    var watchdogHardLimit: Double = 10

    @Option(help: "What stops a hung guest: kill it, or freeze it for inspection (process isolation only).")
    var hangAction: WatchdogPolicy.Action = .kill

    func validate() throws {
        guard restartBurst >= 1 else { throw ValidationError("--restart-burst must be at least 1.") }
        guard restartInterval > 0 else { throw ValidationError("--restart-interval must be more than 0 seconds.") }
        guard watchdog > 0 else { throw ValidationError("--watchdog must be more than 0 seconds.") }
        guard watchdogHardLimit >= watchdog else {
            throw ValidationError("--watchdog-hard-limit must be at least --watchdog.")
        }
        try Seconds.checkBounded(restartInterval, "--restart-interval")
        try Seconds.checkBounded(watchdogHardLimit, "--watchdog-hard-limit")
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
