import Foundation

/// `apphost launch` of the built binary, as an operator runs it, for the benchmarks that measure a
/// whole host: its data directory made, its events to /dev/null, its log to `log`.
final class BuiltHost {
    let process = Process()
    /// `<data directory>/host.log`, which failures point to.
    let log: URL

    /// Starts `apphost launch --data-dir <dataDirectory>` with `arguments` (options and guests);
    /// its standard output (the events, with `--json`) to `events` when given.
    init(apphost: String, dataDirectory: URL, arguments: [String], events: URL? = nil) throws {
        try FileManager.default.createDirectory(at: dataDirectory, withIntermediateDirectories: true)
        log = dataDirectory.appendingPathComponent("host.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        process.executableURL = URL(fileURLWithPath: apphost)
        process.arguments = ["launch", "--data-dir", dataDirectory.path] + arguments
        if let events {
            _ = FileManager.default.createFile(atPath: events.path, contents: nil)
            process.standardOutput = try FileHandle(forWritingTo: events)
        } else {
            process.standardOutput = FileHandle.nullDevice
        }
        process.standardError = try FileHandle(forWritingTo: log)
        try process.run()
    }

    /// SIGTERM, as an operator stops the host; SIGKILL after 10 s.
    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        let deadline = monotonicNanoseconds() + 10e9
        while process.isRunning && monotonicNanoseconds() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }
}
