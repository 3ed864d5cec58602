import ApphostJournal
import Foundation

/// journald's native socket (https://systemd.io/JOURNAL_NATIVE_PROTOCOL/), where the host sends
/// its log and its events as entries with fields of their own (`GUEST_ID`, `EVENT`, ...) when it
/// runs under journald, without libsystemd: `sd_journal_sendv` sends only to
/// `/run/systemd/journal/socket`, and the tests need a socket of their own
/// (`$APPHOST_JOURNAL_SOCKET`). A send waits while journald's queue is full, as libsystemd's
/// does, so the host sends from a writer thread (`LineWriter(sendingEach:)`), never from its queue.
public final class JournalSocket: Sendable {
    /// Where journald listens.
    public static let standardPath = "/run/systemd/journal/socket"
    /// The environment variable that names another socket, for tests.
    public static let environmentVariable = "APPHOST_JOURNAL_SOCKET"

    public let path: String
    private let descriptor: Int32

    /// The socket the environment names, or journald's; nil when no socket can be made.
    public convenience init?(environment: [String: String] = ProcessInfo.processInfo.environment) {
        let named = environment[Self.environmentVariable].flatMap { $0.isEmpty ? nil : $0 }
        self.init(path: named ?? Self.standardPath)
    }

    public init?(path: String) {
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        self.path = path
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    /// Whether journald (or whatever plays it) listens there now.
    public var isListening: Bool { apphost_journal_listening(path) != 0 }

    /// Sends one entry; returns 0, or the errno that says why it was not sent.
    @discardableResult
    public func send(_ entry: JournalEntry) -> Int32 { send(datagram: entry.datagram) }

    /// Sends an entry already in the native format (`JournalEntry.datagram`).
    public func send(datagram: [UInt8]) -> Int32 {
        datagram.withUnsafeBufferPointer { bytes in
            apphost_journal_send(descriptor, path, bytes.baseAddress, bytes.count)
        }
    }
}
