import ApphostChannels
import ApphostVocabulary
import Dispatch
import Foundation

/// What a process costs in memory, from /proc: resident (RSS, shared pages counted in full),
/// proportional (PSS, shared pages divided among their users) and private (its own alone).
struct ProcessMemory {
    var rssKiB = 0
    var pssKiB = 0
    var privateKiB = 0

    init(pid: pid_t) {
        if let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) {
            rssKiB = Self.field("VmRSS:", in: status)
        }
        if let rollup = try? String(contentsOfFile: "/proc/\(pid)/smaps_rollup", encoding: .utf8) {
            pssKiB = Self.field("Pss:", in: rollup)
            privateKiB = Self.field("Private_Clean:", in: rollup) + Self.field("Private_Dirty:", in: rollup)
        }
    }

    init() {}

    static func + (left: ProcessMemory, right: ProcessMemory) -> ProcessMemory {
        var sum = ProcessMemory()
        sum.rssKiB = left.rssKiB + right.rssKiB
        sum.pssKiB = left.pssKiB + right.pssKiB
        sum.privateKiB = left.privateKiB + right.privateKiB
        return sum
    }

    /// The machine's MemAvailable, in KiB.
    static func available() -> Int {
        guard let info = try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8) else { return 0 }
        return field("MemAvailable:", in: info)
    }

    private static func field(_ name: String, in text: String) -> Int {
        for line in text.split(separator: "\n") where line.hasPrefix(name) {
            return Int(line.dropFirst(name.count).split(whereSeparator: \.isWhitespace).first ?? "") ?? 0
        }
        return 0
    }

    var summary: String {
        String(
            format: "RSS %.1f MB, PSS %.1f MB, private %.2f MB", Double(rssKiB) / 1024, Double(pssKiB) / 1024,
            Double(privateKiB) / 1024)
    }
}

/// Wraps an opener and remembers the worker process of every guest it opened.
final class RecordingOpener: GuestOpener, @unchecked Sendable {
    // `pids` is appended to on the host queue and read by the benchmark once it is idle.
    private let opener: any GuestOpener
    private(set) var pids: [pid_t] = []

    init(_ opener: any GuestOpener) { self.opener = opener }

    func open(
        path: String, guestsDirectory: String, hostQueue: any HostExecutor,
        onEvent: @escaping @Sendable (GuestEvent) -> Void,
        completion: @escaping @Sendable (Result<OpenedGuest, LoadError>) -> Void
    ) {
        opener.open(path: path, guestsDirectory: guestsDirectory, hostQueue: hostQueue, onEvent: onEvent) { result in
            if case .success(let opened) = result, let worker = opened.channel as? WorkerChannel {
                self.pids.append(worker.pid)
            }
            completion(result)
        }
    }
}
