import Glibc

/// Sets a resource limit of another process with prlimit(2), soft and hard alike, so that the
/// guest cannot raise it again: raising a hard limit takes CAP_SYS_RESOURCE, which an
/// unprivileged worker lacks (a worker of a host that runs as root has it, and could).
enum ResourceLimit {
    /// Which limit, with the name errors and logs show.
    enum Kind {
        case addressSpace
        case openFiles
        case processes

        /// Glibc hides RLIMIT_NPROC from Swift (it is a BSD extension there); its value is 6 on
        /// the architectures Swift runs on (x86_64, aarch64, riscv64; not alpha, mips, sparc).
        var resource: Int32 {
            switch self {
            case .addressSpace: Int32(RLIMIT_AS.rawValue)
            case .openFiles: Int32(RLIMIT_NOFILE.rawValue)
            case .processes: 6
            }
        }

        var name: String {
            switch self {
            case .addressSpace: "RLIMIT_AS"
            case .openFiles: "RLIMIT_NOFILE"
            case .processes: "RLIMIT_NPROC"
            }
        }
    }

    /// prlimit(2) from the C library: Glibc declares it only under _GNU_SOURCE, which Swift's
    /// import does not define.
    private typealias Prlimit =
        @convention(c) (
            pid_t, Int32, UnsafePointer<rlimit>?, UnsafeMutablePointer<rlimit>?
        ) -> Int32
    private static let prlimit: Prlimit? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "prlimit").map {
        unsafeBitCast($0, to: Prlimit.self)
    }

    static func set(_ kind: Kind, to value: UInt64, pid: pid_t) throws(LimitError) {
        var limit = rlimit(rlim_cur: rlim_t(value), rlim_max: rlim_t(value))
        guard let prlimit else { throw LimitError("cannot set \(kind.name): the C library has no prlimit") }
        guard prlimit(pid, kind.resource, &limit, nil) == 0 else {
            let code = errno
            throw LimitError(
                "cannot set \(kind.name) of process \(pid) to \(value): \(String(cString: strerror(code)))")
        }
    }

    /// Sets only the soft limit of a process, at most its hard limit; best effort.
    static func setSoft(_ kind: Kind, to value: UInt64, pid: pid_t) {
        var limit = rlimit()
        guard let prlimit, prlimit(pid, kind.resource, nil, &limit) == 0 else { return }
        limit.rlim_cur = min(rlim_t(value), limit.rlim_max)
        _ = prlimit(pid, kind.resource, &limit, nil)
    }

    /// The soft limit of a process, for tests and logs; nil when it cannot be read.
    static func current(_ kind: Kind, pid: pid_t) -> UInt64? {
        var limit = rlimit()
        guard let prlimit, prlimit(pid, kind.resource, nil, &limit) == 0 else { return nil }
        return UInt64(limit.rlim_cur)
    }
}
