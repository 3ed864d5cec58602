import ApphostLimits
import ArgumentParser

/// What each guest's worker may use (CONTRACT X2): none of the limits is set unless asked for.
struct LimitsOptions: ParsableArguments {
    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Memory per guest: bytes, or a number with K, M or G (256M). A memory cgroup where the machine has one, else the address space (RLIMIT_AS, which counts reservations too).",
            valueName: "size"))
    var memoryLimit: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Open files per guest (RLIMIT_NOFILE).", valueName: "count"))
    var filesLimit: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Processes and threads per guest: a pids cgroup where the machine has one, else RLIMIT_NPROC (per user, and not enforced for root).",
            valueName: "count"))
    var processesLimit: String?

    func validate() throws {
        _ = try guestLimits()
    }

    /// The limits, or a one-line error naming the option.
    func guestLimits() throws -> GuestLimits {
        do throws(LimitError) {
            return GuestLimits(
                memoryBytes: try memoryLimit.map { text throws(LimitError) in try GuestLimits.parseMemory(text) },
                openFiles: try filesLimit.map { text throws(LimitError) in
                    try GuestLimits.parseCount(text, option: "--files-limit")
                },
                processes: try processesLimit.map { text throws(LimitError) in
                    try GuestLimits.parseCount(text, option: "--processes-limit")
                })
        } catch {
            throw ValidationError(error.description)
        }
    }
}
