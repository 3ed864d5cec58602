import Foundation

/// Who a host is (CONTRACT O4): an id that lasts as long as its data directory, the machine's
/// name, apphost's version and when this run started. `ctl ps`, `ctl host` (GET /v1/host), the
/// metrics and the `host-started` event carry it, so that an operator who watches many hosts
/// tells them apart, and sees a restart.
public struct HostIdentity: Sendable, Codable, Equatable {
    /// 32 lowercase hexadecimal digits, made at random the first time a host uses its data
    /// directory and kept there (`host-id`).
    public var id: String
    public var hostname: String
    public var version: String
    public var started: Date

    public init(id: String, hostname: String, version: String, started: Date) {
        self.id = id
        self.hostname = hostname
        self.version = version
        self.started = started
    }

    /// One line for people: "host 3f2a9c01 on build-7, apphost 0.9.0".
    public var summary: String { "host \(id.prefix(8)) on \(hostname), apphost \(version)" }

    /// A new id: 128 random bits as 32 hexadecimal digits.
    public static func makeID() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<4).map { _ in
            let word = String(generator.next() as UInt32, radix: 16)
            return String(repeating: "0", count: 8 - word.count) + word
        }.joined()
    }

    /// Whether `text` is an id as ``makeID()`` makes them.
    public static func isID(_ text: some StringProtocol) -> Bool {
        text.utf8.count == 32 && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }
}
