import Synchronization

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

/// Each type's case names by raw value, read once: `String(describing:)` reads a name from the
/// type's metadata each time (0.44 µs; 26 ns from here), and every event of a launch formats some.
private let caseNames = Mutex<[ObjectIdentifier: [Int32: String]]>([:])

extension CodableByName {
    /// The case's name, such as "foregroundActive".
    public var description: String {
        let type = ObjectIdentifier(Self.self)
        if let name = caseNames.withLock({ $0[type]?[rawValue] }) { return name }
        let names = Dictionary(uniqueKeysWithValues: Self.allCases.map { ($0.rawValue, String(describing: $0)) })
        caseNames.withLock { $0[type] = names }
        return names[rawValue] ?? String(describing: self)
    }

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
