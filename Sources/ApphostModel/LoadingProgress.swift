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

    /// In JSON a fraction is a number, the others their names: 0.42, "indeterminate", "none".
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let fraction = try? container.decode(Double.self), (0...1).contains(fraction) {
            self = .fraction(fraction)
            return
        }
        switch try container.decode(String.self) {
        case "none": self = .none
        case "indeterminate": self = .indeterminate
        case let other:
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "unknown progress \(other)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .none: try container.encode("none")
        case .indeterminate: try container.encode("indeterminate")
        case .fraction(let fraction): try container.encode(fraction)
        }
    }

    /// "42%", "indeterminate" or "-", as `ctl ps` and the event stream show it.
    public var description: String {
        switch self {
        case .none: "-"
        case .indeterminate: "indeterminate"
        case .fraction(let value): "\(Int((value * 100).rounded(.down)))%"
        }
    }
}
