/// A scene's loading progress as the guest reports it (CONTRACT N2).
public enum LoadingProgress: Sendable, Codable, Equatable, CustomStringConvertible {
    /// Finished loading, or never said it was loading.
    case none
    case indeterminate
    /// From 0 to 1.
    case fraction(Double)

    /// The C ABI's value: a fraction, APPHOST_PROGRESS_INDETERMINATE (-1) or APPHOST_PROGRESS_NONE
    /// (-2); nil for any other.
    public init?(abiValue value: Double) {
        switch value {
        case -2: self = .none
        case -1: self = .indeterminate
        case 0...1: self = .fraction(value)
        default: return nil
        }
    }

    public var abiValue: Double {
        switch self {
        case .none: -2
        case .indeterminate: -1
        case .fraction(let value): value
        }
    }

    /// "42%", "loading" or "-", as `ctl ps` shows it.
    public var description: String {
        switch self {
        case .none: "-"
        case .indeterminate: "loading"
        case .fraction(let value): "\(Int((value * 100).rounded(.down)))%"
        }
    }
}
