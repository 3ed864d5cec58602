import ApphostLimits
import ApphostPolicy
import ArgumentParser

/// How the host runs guests in background (CONTRACT B2 to B6), how many background scenes it
/// keeps connected (S6), and how it answers memory pressure (A4).
struct BackgroundOptions: ParsableArguments {
    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Background time a guest's tasks share after it leaves the foreground, in seconds.",
            valueName: "seconds"))
    var backgroundBudget: Double = 30

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Run the expiration handlers of open tasks this long before the budget ends, in seconds.",
            valueName: "seconds"))
    var expirationGrace: Double = 5

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Suspend a background guest with no open task this long after it went idle, in seconds.",
            valueName: "seconds"))
    var suspendDelay: Double = 1

    @Option(help: "What happens to a guest still holding tasks when its budget ends: suspend or terminate it.")
    var overrun: BackgroundPolicy.OverrunAction = .suspend

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Scenes that may stay connected in background, over all guests; the host disconnects the one in background longest beyond it (its state is kept).",
            valueName: "count"))
    var backgroundSceneLimit: Int?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Memory for the host and all its workers (PSS): bytes, or a number with K, M or G. Over it, guests are warned, then terminated one at a time, suspended ones first.",
            valueName: "size"))
    var hostMemoryLimit: String?

    func validate() throws {
        try Seconds.checkPositive(backgroundBudget, "--background-budget")
        try Seconds.checkNotNegative(expirationGrace, "--expiration-grace")
        guard expirationGrace <= backgroundBudget else {
            throw ValidationError("--expiration-grace must be between 0 and --background-budget.")
        }
        try Seconds.checkNotNegative(suspendDelay, "--suspend-delay")
        if let limit = backgroundSceneLimit, limit < 0 {
            throw ValidationError("--background-scene-limit must be 0 or more, not \(limit)")
        }
        _ = try memoryLimitBytes()
    }

    var policy: BackgroundPolicy {
        BackgroundPolicy(
            budget: .seconds(backgroundBudget), expirationGrace: .seconds(expirationGrace),
            suspendDelay: .seconds(suspendDelay), overrun: overrun)
    }

    func memoryLimitBytes() throws -> UInt64? {
        do throws(LimitError) {
            return try hostMemoryLimit.map { text throws(LimitError) in
                try GuestLimits.parseMemory(text, option: "--host-memory-limit")
            }
        } catch {
            throw ValidationError(error.description)
        }
    }
}

extension BackgroundPolicy.OverrunAction: ExpressibleByArgument {}
