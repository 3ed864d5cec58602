import ApphostLimits
import ArgumentParser
import Logging

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

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "How much nicer than the host each worker runs, 0 (not at all) to 19; the workers' cgroup, where a cpu controller is usable, weighs as one task at that nice (cpu.weight or cpu.shares), so that busy guests leave the host its share of the CPU.",
            valueName: "offset"))
    var workerNice = "10"

    func validate() throws {
        _ = try guestLimits()
        _ = try workerPriority(logger: Logger(label: "apphost"))
    }

    /// The workers' priority, nil with an offset of 0, or a one-line error naming the option.
    func workerPriority(logger: Logger) throws -> WorkerPriority? {
        do throws(LimitError) {
            let offset = try WorkerPriority.parseOffset(workerNice)
            return offset == 0 ? nil : WorkerPriority(niceOffset: offset, logger: logger)
        } catch {
            throw ValidationError(error.description)
        }
    }

    /// The limits, or a one-line error naming the option.
    func guestLimits() throws -> GuestLimits {
        do throws(LimitError) {
            return GuestLimits(
                memoryBytes: try memoryLimit.map { text throws(LimitError) in try GuestLimits.parseMemory(text) },
                openFiles: try filesLimit.map { text throws(LimitError) in
                    try GuestLimits.parseCount(
                        text, option: "--files-limit", maximum: GuestLimits.maximumOpenFiles,
                        why: "the kernel's fs.nr_open")
                },
                processes: try processesLimit.map { text throws(LimitError) in
                    try GuestLimits.parseCount(
                        text, option: "--processes-limit", maximum: GuestLimits.maximumProcesses,
                        why: "the kernel's kernel.pid_max")
                })
        } catch {
            throw ValidationError(error.description)
        }
    }
}
