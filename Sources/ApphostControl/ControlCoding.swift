import ApphostCore
import Foundation

/// The one JSON dialect of the control protocol, shared by server, client and CLI so that dates
/// and key order match on both ends.
public enum ControlCoding {
    public static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601withFractionalSeconds
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    public static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601withFractionalSeconds
        return decoder
    }

    /// `value` as one line of JSON. Encoding these plain types cannot fail; if it ever did, the
    /// peer gets an error reply instead of a broken line.
    public static func line(_ value: some Encodable) -> String {
        guard let data = try? encoder().encode(value) else {
            return #"{"error":"the host could not encode its reply","ok":false}"#
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// Decodes one line of the protocol.
    public static func decode<Value: Decodable>(_ type: Value.Type, from line: String) throws -> Value {
        try decoder().decode(type, from: Data(line.utf8))
    }
}
