/// The members a command type reads from its request object, found while it decodes: so that
/// ``ControlCommands/decode(line:)`` refuses the others for every verb, whatever its
/// `init(from:)` does (a synthesized one, or one of its own that reads some members only as
/// present or absent). Only the object's own members are watched; what a member holds is decoded
/// as it would be.
final class MemberRecorder {
    private(set) var read: Set<String> = []

    func note(_ key: some CodingKey) { read.insert(key.stringValue) }
}

/// A decoder that hands out the object's container through a ``MemberRecorder``.
struct RecordingDecoder: Decoder {
    let base: any Decoder
    let recorder: MemberRecorder

    var codingPath: [any CodingKey] { base.codingPath }
    var userInfo: [CodingUserInfoKey: Any] { base.userInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(RecordingContainer(base: try base.container(keyedBy: type), recorder: recorder))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { try base.unkeyedContainer() }
    func singleValueContainer() throws -> any SingleValueDecodingContainer { try base.singleValueContainer() }
}

/// The object's container, noting each member asked for.
private struct RecordingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let base: KeyedDecodingContainer<Key>
    let recorder: MemberRecorder

    var codingPath: [any CodingKey] { base.codingPath }
    var allKeys: [Key] { base.allKeys }

    private func noting<T>(_ key: Key, _ body: () throws -> T) rethrows -> T {
        recorder.note(key)
        return try body()
    }

    func contains(_ key: Key) -> Bool { noting(key) { base.contains(key) } }
    func decodeNil(forKey key: Key) throws -> Bool { try noting(key) { try base.decodeNil(forKey: key) } }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
        try noting(key) { try base.decode(type, forKey: key) }
    }
    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        try noting(key) { try base.decode(type, forKey: key) }
    }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
        try noting(key) { try base.decode(type, forKey: key) }
    }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float {
        try noting(key) { try base.decode(type, forKey: key) }
    }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int {
        try noting(key) { try base.decode(type, forKey: key) }
    }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 {
        try noting(key) { try base.decode(type, forKey: key) }
    }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 {
        try noting(key) { try base.decode(type, forKey: key) }
    }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 {
        try noting(key) { try base.decode(type, forKey: key) }
    }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 {
        try noting(key) { try base.decode(type, forKey: key) }
    }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt {
        try noting(key) { try base.decode(type, forKey: key) }
    }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 {
        try noting(key) { try base.decode(type, forKey: key) }
    }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 {
        try noting(key) { try base.decode(type, forKey: key) }
    }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 {
        try noting(key) { try base.decode(type, forKey: key) }
    }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 {
        try noting(key) { try base.decode(type, forKey: key) }
    }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try noting(key) { try base.decode(type, forKey: key) }
    }
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        try noting(key) { try base.decodeIfPresent(type, forKey: key) }
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        try noting(key) { try base.nestedContainer(keyedBy: type, forKey: key) }
    }
    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try noting(key) { try base.nestedUnkeyedContainer(forKey: key) }
    }
    func superDecoder() throws -> any Decoder { try base.superDecoder() }
    func superDecoder(forKey key: Key) throws -> any Decoder { try noting(key) { try base.superDecoder(forKey: key) } }
}
