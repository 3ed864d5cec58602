import ApphostLimits
import ApphostVocabulary
import ApphostWire
import Dispatch
import Foundation
import Glibc
import Synchronization

/// A spawned `apphost-worker`, connected to the host by a socketpair whose worker end is its
/// descriptor 3 (`APPHOST_WIRE_WORKER_FD`). Every worker is reaped exactly once, by the first
/// `waitForExit`; a signal is never sent once it has been reaped, when its pid may name another
/// process.
final class WorkerProcess: Sendable {
    struct SpawnFailure: Error, CustomStringConvertible {
        let description: String

        init(description: String) { self.description = description }

        /// What failed to make a descriptor; at the host's descriptor limit, which limit and what
        /// it allows.
        init(operation: String, errno: Int32) {
            description =
                errno == EMFILE
                ? HostDescriptorLimit.exhausted(operation) : "\(operation): \(String(cString: strerror(errno)))"
        }

        /// posix_spawn's, clone's or exec's `errno` for `executable`; out of processes, which
        /// limits count them.
        init(executable: String, errno: Int32) {
            description =
                errno == EAGAIN
                ? "cannot start \(executable): the limit of processes is reached (ulimit -u, kernel.pid_max, "
                    + "kernel.threads-max, or the pids cgroup of the host's service)"
                : "cannot run \(executable): \(String(cString: strerror(errno)))"
        }
    }

    let pid: pid_t
    /// The exit, once reaped. Held while reaping and while signalling, so that the two exclude
    /// each other.
    private let reaped = Mutex<WorkerExit?>(nil)
    private let cpuAtExit = Mutex<Double?>(nil)

    private init(pid: pid_t) { self.pid = pid }

    /// Starts `executable` with the worker end of a new socketpair as descriptor 3, stdin from
    /// /dev/null, and no other descriptor of the host (they are all close-on-exec, and the rest are
    /// closed in the child too). Its stdout and stderr are the host's, or with `capturingOutput`
    /// the write ends of two new pipes, whose read ends come back in `output` (CONTRACT X2). With
    /// `user`, the worker takes that user at LOAD; it enforces its `container` then. Returns the host end of the socket,
    /// close-on-exec and blocking, and the read ends, close-on-exec.
    static func spawn(
        executable: String, capturingOutput: Bool = false, user: WorkerUser? = nil,
        container: WorkerContainer = WorkerContainer(parts: [])
    ) throws(SpawnFailure)
        -> (
            process: WorkerProcess, socket: Int32, output: (standardOutput: Int32, standardError: Int32)?
        )
    {
        var ends: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0 else {
            throw SpawnFailure(operation: "socketpair", errno: errno)
        }
        let (hostEnd, workerEnd) = (ends[0], ends[1])
        defer { close(workerEnd) }
        guard HostDescriptorLimit.leavesReserve(max(hostEnd, workerEnd)) else {
            close(hostEnd)
            throw SpawnFailure(description: HostDescriptorLimit.exhausted("cannot start another worker"))
        }
        var output: (standardOutput: OutputPipe, standardError: OutputPipe)?
        if capturingOutput {
            do throws(SpawnFailure) {
                let standardOutput = try OutputPipe()
                do throws(SpawnFailure) {
                    output = (standardOutput, try OutputPipe())
                } catch {
                    standardOutput.close()
                    throw error
                }
            } catch {
                close(hostEnd)
                throw error
            }
        }
        // The worker's ends are the child's now; the host keeps the read ends (or none, on failure).
        defer {
            output?.standardOutput.closeWriteEnd()
            output?.standardError.closeWriteEnd()
        }
        let environment = workerEnvironment(user: user, container: container)
        let outputEnds = output.map {
            (standardOutput: $0.standardOutput.writeEnd, standardError: $0.standardError.writeEnd)
        }
        let spawned =
            WorkerSpawner.shared.spawn(
                executable: executable, environment: environment, socket: workerEnd, output: outputEnds)
            ?? start(
                executable: executable, arguments: [executable], environment: environment, socket: workerEnd,
                onto: Int32(APPHOST_WIRE_WORKER_FD), output: outputEnds)
        let pid: pid_t
        switch spawned {
        case .success(let spawnedPID):
            pid = spawnedPID
        case .failure(let failure):
            close(hostEnd)
            output?.standardOutput.closeReadEnd()
            output?.standardError.closeReadEnd()
            throw failure
        }
        return (
            WorkerProcess(pid: pid), hostEnd,
            output.map { (standardOutput: $0.standardOutput.readEnd, standardError: $0.standardError.readEnd) }
        )
    }

    /// Starts `executable` from this process with posix_spawn: `socket` as descriptor `onto`, stdin
    /// from /dev/null, stdout and stderr the host's or `output`'s, no other descriptor of the host
    /// (they are all close-on-exec, and the rest are closed in the child too), default signal
    /// actions, in a process group of its own. Each spawn copies and closes the host's whole
    /// descriptor table: workers come from `WorkerSpawner` where it runs, and this starts it.
    static func start(
        executable: String, arguments: [String], environment: [String], socket: Int32, onto target: Int32,
        output: (standardOutput: Int32, standardError: Int32)?
    ) -> Result<pid_t, SpawnFailure> {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // dup2 first: the socket may itself be descriptor 0. dup2 clears close-on-exec on the
        // copy, even when the socket already is the target.
        posix_spawn_file_actions_adddup2(&actions, socket, target)
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        if let output {
            posix_spawn_file_actions_adddup2(&actions, output.standardOutput, STDOUT_FILENO)
            posix_spawn_file_actions_adddup2(&actions, output.standardError, STDERR_FILENO)
        }
        // Also what was opened without close-on-exec, by a library the host does not control.
        _ = addCloseFrom?(&actions, target + 1)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        // The host ignores SIGINT, SIGTERM and SIGPIPE; a guest starts with the default actions.
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        // A process group of its own: the terminal's Ctrl-C is the host's to handle, by
        // terminating its guests gracefully, not a signal that kills every worker at once; and
        // what the guest starts, unless it leaves the group, is killed with it (`waitForExit`).
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(
            &attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))

        let argv = arguments.map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        let environment = environment.map { strdup($0) } + [nil]
        defer { for variable in environment { free(variable) } }
        // From a thread that outlives the worker: the worker dies with the thread that spawned it.
        let (status, pid) = withUnsafeMutablePointer(to: &actions) { actions in
            withUnsafeMutablePointer(to: &attributes) { attributes in
                SpawnRequest(
                    executable: executable, actions: actions, attributes: attributes, argv: argv,
                    environment: environment
                ).run()
            }
        }
        guard status == 0 else { return .failure(SpawnFailure(executable: executable, errno: status)) }
        return .success(pid)
    }

    /// The host's environment, without the Swift runtime's crash backtraces (the worker links
    /// libswiftCore): the host reports a guest's death in one line with its cause, and a page of
    /// backtrace on the shared stderr would bury it. An operator who sets SWIFT_BACKTRACE gets
    /// what they asked for. Which user the worker takes, and its container, are the host's choice
    /// alone: only `user` and `container` set them, never an inherited variable. Nor does a worker get the service manager's
    /// variables (`serviceVariables`): the host alone speaks to it (CONTRACT O3), and a guest that
    /// found `NOTIFY_SOCKET` could say READY=1 or feed the watchdog of a stuck host.
    private static func workerEnvironment(user: WorkerUser?, container: WorkerContainer) -> [String] {
        var variables: [String] = []
        var sawBacktrace = false
        let withheld =
            ([APPHOST_WORKER_USER_VARIABLE] + WorkerContainer.variableNames + serviceVariables).map {
                Array(($0 + "=").utf8CString.dropLast())
            }
        var cursor = environ
        while let variable = cursor.pointee {
            if strncmp(variable, "SWIFT_BACKTRACE=", 16) == 0 { sawBacktrace = true }
            let kept = withheld.allSatisfy { prefix in strncmp(variable, prefix, prefix.count) != 0 }
            if kept { variables.append(String(cString: variable)) }
            cursor += 1
        }
        if !sawBacktrace { variables.append("SWIFT_BACKTRACE=enable=no") }
        if let user { variables.append(user.environment) }
        return variables + container.environment
    }

    /// What systemd gives the host for its notify protocol and its watchdog, which the host's
    /// workers do not inherit.
    static let serviceVariables = ["NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID"]

    /// A descriptor that becomes readable when the worker exits (a pidfd, Linux 5.3), or nil
    /// where there is none. Open it before anyone may reap the worker; the caller closes it.
    func openExitDescriptor() -> Int32? {
        guard let pidfdOpen, !hasExited else { return nil }
        let descriptor = pidfdOpen(pid, 0)
        return descriptor >= 0 ? descriptor : nil
    }

    /// Sends SIGKILL unless the worker has been reaped.
    func kill() {
        reaped.withLock { exit in
            if exit == nil { _ = Glibc.kill(pid, SIGKILL) }
        }
    }

    /// Whether the worker has been reaped.
    var hasExited: Bool { reaped.withLock { $0 != nil } }

    /// The CPU time (user and system) the worker used in all, read from /proc before
    /// ``waitForExit(killAfter:)`` reaped it; nil before, or when it could not be read.
    var cpuSecondsAtExit: Double? { cpuAtExit.withLock { $0 } }

    /// utime + stime of /proc/<pid>/stat (fields 14 and 15, counted from the last ")", after
    /// which field 3 comes first), in seconds.
    static func cpuSeconds(pid: pid_t) -> Double? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = UInt64(fields[11]), let system = UInt64(fields[12]) else { return nil }
        return Double(user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// Blocks until the worker has exited and returns how; reaps it if nobody has, after killing
    /// what is left in its process group (the processes its guest started). With
    /// `killAfter`, a worker still running after that long is killed: one that closed its socket
    /// without exiting must not hold the caller forever. Never call it on the host queue.
    func waitForExit(killAfter grace: Duration? = nil) -> WorkerExit {
        // A timer source, cancelled on return, rather than a work item after a delay, which
        // Dispatch would keep (with this process) until the delay is up, cancelled or not.
        var killer: (any DispatchSourceTimer)?
        if let grace {
            let timer = DispatchSource.makeTimerSource(queue: DispatchQueue.global())
            timer.setEventHandler { [weak self] in self?.kill() }
            timer.schedule(deadline: .now() + grace.timeInterval)
            timer.activate()
            killer = timer
        }
        defer { killer?.cancel() }
        // Waits without reaping, so that the pid stays this worker's until `reaped` is set.
        var info = siginfo_t()
        var waited: Int32
        repeat { waited = waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) } while waited != 0 && errno == EINTR
        return reaped.withLock { exit in
            if let exit { return exit }
            // The processes the guest started and left in the worker's process group end with it
            // (CONTRACT X2). Until it is reaped, the worker's pid, and so the group's id, is
            // still ours. Those that left the group die with the worker's cgroup, where it has one.
            if waited == 0 { _ = Glibc.kill(-pid, SIGKILL) }
            // What it used in all, from its stat while it is a zombie: gone once it is reaped.
            if waited == 0 { cpuAtExit.withLock { $0 = Self.cpuSeconds(pid: pid) } }
            var status: Int32 = 0
            var result: pid_t
            repeat { result = waitpid(pid, &status, 0) } while result < 0 && errno == EINTR
            let ended = result == pid ? WorkerExit(waitStatus: status) : .unknown
            exit = ended
            return ended
        }
    }
}

/// `posix_spawn_file_actions_addclosefrom_np` (glibc 2.34), looked up at run time: Swift's Glibc
/// module does not declare it (it needs _GNU_SOURCE), and an older glibc lacks it.
private let addCloseFrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else {
        return nil
    }
    return unsafeBitCast(
        symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
}()

/// A pipe for a worker's standard output or standard error, both ends close-on-exec. The write
/// end is above descriptor 3, so that the spawn's dup2 onto 1, 2 and 3 cannot overwrite it before
/// it has been copied.
private struct OutputPipe {
    let readEnd: Int32
    let writeEnd: Int32

    init() throws(WorkerProcess.SpawnFailure) {
        var ends: [Int32] = [-1, -1]
        guard let pipe2, pipe2(&ends, O_CLOEXEC) == 0 else {
            throw WorkerProcess.SpawnFailure(operation: "pipe2", errno: errno)
        }
        let writeEnd = fcntl(ends[1], F_DUPFD_CLOEXEC, 4)
        Glibc.close(ends[1])
        guard writeEnd >= 0 else {
            Glibc.close(ends[0])
            throw WorkerProcess.SpawnFailure(operation: "fcntl", errno: errno)
        }
        (readEnd, self.writeEnd) = (ends[0], writeEnd)
    }

    func closeWriteEnd() { Glibc.close(writeEnd) }
    func closeReadEnd() { Glibc.close(readEnd) }

    func close() {
        Glibc.close(readEnd)
        Glibc.close(writeEnd)
    }
}

/// `pipe2` (glibc 2.9), looked up at run time: Swift's Glibc module does not declare it (it needs
/// _GNU_SOURCE).
private let pipe2: (@convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32)? = {
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "pipe2") else { return nil }
    return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32).self)
}()

/// `pidfd_open` (glibc 2.36), looked up at run time for the same reasons.
private let pidfdOpen: (@convention(c) (pid_t, UInt32) -> Int32)? = {
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "pidfd_open") else { return nil }
    return unsafeBitCast(symbol, to: (@convention(c) (pid_t, UInt32) -> Int32).self)
}()

/// posix_spawn's arguments, handed to the spawning thread while the caller waits for it.
private struct SpawnRequest: @unchecked Sendable {
    // The pointers stay valid throughout: the caller is blocked in `run` until the spawn is done.
    let executable: String
    let actions: UnsafeMutablePointer<posix_spawn_file_actions_t>
    let attributes: UnsafeMutablePointer<posix_spawnattr_t>
    let argv: [UnsafeMutablePointer<CChar>?]
    let environment: [UnsafeMutablePointer<CChar>?]

    /// posix_spawn's status and the worker's pid.
    func run() -> (Int32, pid_t) {
        DedicatedThreads.spawning.sync { [self] in
            var pid: pid_t = 0
            let status = posix_spawn(&pid, executable, actions, attributes, argv, environment)
            return (status, pid)
        }
    }
}
