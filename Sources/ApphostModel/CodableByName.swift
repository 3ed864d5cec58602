/// Enums that travel as their names ("foregroundActive"), not their C raw values, so that
/// `ctl ps --json` and the event stream read well and stay stable if raw values ever grow.
///
/// Swift synthesizes Codable for an enum that declares it, ahead of any default a protocol
/// extension offers, and the synthesized form is `{"active":{}}`. So each enum implements the
/// two requirements itself, in one line each, with `init(byName:)` and `encodeByName(to:)`.
public protocol CodableByName: CaseIterable, CustomStringConvertible, Codable {}

extension CodableByName {
    public init(byName decoder: any Decoder) throws {
        let name = try decoder.singleValueContainer().decode(String.self)
        guard let value = Self.allCases.first(where: { $0.description == name }) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "unknown \(Self.self) \(name)"))
        }
        self = value
    }

    public func encodeByName(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
