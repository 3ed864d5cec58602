import Glibc

/// How a worker process ended, as the cause that events and errors show (CONTRACT X2):
/// "killed by SIGSEGV", "exited with status 3", "exited normally".
enum WorkerExit: Sendable, Equatable, CustomStringConvertible {
    case exited(status: Int32)
    case killed(signal: Int32)
    /// Someone else reaped the process (it should never happen): nothing is known of its end.
    case unknown

    /// Decodes a `waitpid` status (the WIFEXITED and WTERMSIG macros, which Swift does not import).
    init(waitStatus: Int32) {
        let signal = waitStatus & 0x7F
        self = signal == 0 ? .exited(status: (waitStatus >> 8) & 0xFF) : .killed(signal: signal)
    }

    var description: String {
        switch self {
        case .exited(status: 0): "exited normally"
        case .exited(let status): "exited with status \(status)"
        // The worker demotes a thread at RLIMIT_RTTIME's soft limit (realtime_limit.c): a guest
        // that took SIGXCPU's handler for its own dies of it, and the line says what it was.
        case .killed(SIGXCPU):
            "killed by SIGXCPU: a real-time thread (its audio render) ran past the real-time limit "
                + "(RLIMIT_RTTIME) without sleeping"
        case .killed(let signal): Self.signalName(signal).map { "killed by \($0)" } ?? "killed by signal \(signal)"
        case .unknown: "ended (its exit status was lost)"
        }
    }

    /// The usual names: those a crashing, aborting or killed guest dies of, and the other
    /// standard signals whose default action ends a process.
    static func signalName(_ signal: Int32) -> String? {
        let names: [Int32: String] = [
            SIGHUP: "SIGHUP", SIGINT: "SIGINT", SIGQUIT: "SIGQUIT", SIGILL: "SIGILL", SIGTRAP: "SIGTRAP",
            SIGABRT: "SIGABRT", SIGBUS: "SIGBUS", SIGFPE: "SIGFPE", SIGKILL: "SIGKILL", SIGUSR1: "SIGUSR1",
            SIGSEGV: "SIGSEGV", SIGUSR2: "SIGUSR2", SIGPIPE: "SIGPIPE", SIGALRM: "SIGALRM", SIGTERM: "SIGTERM",
            SIGSTKFLT: "SIGSTKFLT", SIGXCPU: "SIGXCPU", SIGXFSZ: "SIGXFSZ", SIGVTALRM: "SIGVTALRM",
            SIGPROF: "SIGPROF", SIGIO: "SIGIO", SIGPWR: "SIGPWR", SIGSYS: "SIGSYS",
        ]
        return names[signal]
    }
}
