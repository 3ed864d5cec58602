import Foundation

/// The one JSON dialect of the control protocol, shared by server, client and CLI so that dates
/// and key order match on both ends.
public enum ControlCoding {
    public static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601withFractionalSeconds
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: nonConformingFloats.positiveInfinity,
            negativeInfinity: nonConformingFloats.negativeInfinity, nan: nonConformingFloats.nan)
        return encoder
    }

    public static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601withFractionalSeconds
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(
            positiveInfinity: nonConformingFloats.positiveInfinity,
            negativeInfinity: nonConformingFloats.negativeInfinity, nan: nonConformingFloats.nan)
        return decoder
    }

    /// A number JSON cannot carry (NaN, an infinity) as the string JavaScript prints for it, and
    /// back: the host keeps what it reports finite (a guest's sound, CONTRACT X7, is measured
    /// after the mixer silenced what was not a number), and should one slip through all the same,
    /// one field reads "Infinity" rather than the whole reply failing for it.
    private static let nonConformingFloats = (positiveInfinity: "Infinity", negativeInfinity: "-Infinity", nan: "NaN")

    /// `value` as one line of JSON. Encoding these plain types cannot fail (see
    /// `nonConformingFloats`); if it ever did, the peer gets an error reply instead of a broken
    /// line.
    public static func line(_ value: some Encodable) -> String {
        guard let data = try? encoder().encode(value) else {
            return #"{"code":"conflict","error":"the host could not encode its reply","ok":false}"#
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// Decodes one line of the protocol.
    public static func decode<Value: Decodable>(_ type: Value.Type, from line: String) throws -> Value {
        try decoder().decode(type, from: Data(line.utf8))
    }
}
