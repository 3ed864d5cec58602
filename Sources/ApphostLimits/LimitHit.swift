/// A limit a worker ran into, with the number it had: the reason a dying worker is reported
/// with (CONTRACT X2, A5), such as "memory limit of 64 MB reached".
public enum LimitHit: Sendable, Equatable, CustomStringConvertible {
    case memory(bytes: UInt64)
    case files(Int)
    case processes(Int)

    /// The reason's one word: memory, files or processes.
    public var reason: String {
        switch self {
        case .memory: "memory"
        case .files: "files"
        case .processes: "processes"
        }
    }

    public var description: String {
        switch self {
        case .memory(let bytes): "memory limit of \(GuestLimits.describe(bytes: bytes)) reached"
        case .files(let count): "open-file limit of \(count) reached"
        case .processes(let count): "process limit of \(count) reached"
        }
    }
}
