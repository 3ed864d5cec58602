/// Enums that travel as their names ("foregroundActive"), not their C raw values, so that
/// `ctl ps --json` and the event stream read well and stay stable if raw values ever grow.
public protocol CodableByName: CaseIterable, CustomStringConvertible, Codable {}

extension CodableByName {
    public init(from decoder: Decoder) throws {
        let name = try decoder.singleValueContainer().decode(String.self)
        guard let value = Self.allCases.first(where: { $0.description == name }) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "unknown \(Self.self) \(name)"))
        }
        self = value
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
