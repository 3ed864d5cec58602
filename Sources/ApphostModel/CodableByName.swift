/// Enums that travel as their names ("foregroundActive"), not their C raw values, so that
/// `ctl ps --json` and the event stream read well and stay stable if raw values ever grow.
///
/// A case's name is its Swift name, as Swift's own Codable synthesis names cases: the enum
/// declares its cases and nothing else, and prints, encodes and decodes as their names. It does
/// not declare `CustomStringConvertible`, so that `"\(state)"` prints the case's name.
///
/// The requirements are met here, not synthesized: `RawRepresentable` with `Int32` raw values
/// makes these defaults more specific than the standard library's raw-value `Codable`, which
/// would encode the C value.
public protocol CodableByName: RawRepresentable<Int32>, CaseIterable, Codable {}

extension CodableByName {
    /// The case's name, such as "foregroundActive".
    public var description: String { String(describing: self) }

    public init(from decoder: any Decoder) throws {
        let name = try decoder.singleValueContainer().decode(String.self)
        guard let value = Self.allCases.first(where: { $0.description == name }) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "unknown \(Self.self) \(name)"))
        }
        self = value
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
