/// A part of a guest's container (CONTRACT X6) that a worker enforces before the guest's library
/// loads. Its raw value is its name in `APPHOST_WORKER_SANDBOX` (apphost_wire.h), in `ctl ps` and
/// in the status.
public enum SandboxPart: String, Sendable, Codable, CaseIterable {
    /// Landlock: the system's libraries and the guest's to read, its data directory to write,
    /// nothing else; no signal or abstract socket outside its process.
    case filesystem
    /// A seccomp filter: no tracing, mounts, namespaces, keys, BPF and the like.
    case calls
    /// No network: a network namespace with no interface up and, with `calls`, no socket of a
    /// network family. Left out for a guest with the network entitlement (CONTRACT A6).
    case network
}

/// A running guest's container, for operators: the parts in force and the system calls it
/// refused so far.
public struct SandboxStatus: Sendable, Codable, Equatable {
    /// Empty when the guest runs in a worker without a container (`--sandbox off`, or a kernel that
    /// has none of its parts).
    public var parts: [SandboxPart]
    /// Each call the container refused, by name, once, in the order they came.
    public var refused: [String]

    public init(parts: [SandboxPart], refused: [String] = []) {
        self.parts = parts
        self.refused = refused
    }

    /// "filesystem,calls", or "none".
    public var partsLine: String { parts.isEmpty ? "none" : parts.map(\.rawValue).joined(separator: ",") }
}
