import Foundation

/// A sound benchmark: it drives its hosts with `apphost ctl` and reads their audio from
/// `ctl audio --json`, the way an operator's script would.
protocol AudioReadingBenchmark {
    var apphost: String { get }
}

extension AudioReadingBenchmark {
    /// `apphost ctl <arguments> --data-dir <dataDirectory>`'s standard output; throws unless it
    /// exits 0.
    @discardableResult
    func ctl(_ arguments: [String], _ dataDirectory: URL) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: apphost)
        process.arguments = ["ctl"] + arguments + ["--data-dir", dataDirectory.path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw BenchmarkFailure("apphost ctl \(arguments.joined(separator: " ")) failed")
        }
        return data
    }

    func reading(_ dataDirectory: URL) throws -> AudioReading {
        try JSONDecoder().decode(AudioReading.self, from: try ctl(["audio", "--json"], dataDirectory))
    }

    /// A reading and when it was taken: the middle of the `ctl` run (the host answers in between).
    func timedReading(_ dataDirectory: URL) throws -> (AudioReading, Double) {
        let start = monotonicNanoseconds()
        let reading = try reading(dataDirectory)
        return (reading, (start + monotonicNanoseconds()) / 2)
    }

    /// Reads every quarter of a second until `done` says the reading is what it waits for.
    func waitFor(
        seconds: Double, _ what: String, _ dataDirectory: URL, until done: (AudioReading) -> Bool
    ) throws -> AudioReading {
        let deadline = monotonicNanoseconds() + seconds * 1e9
        while true {
            if let reading = try? reading(dataDirectory), done(reading) { return reading }
            guard monotonicNanoseconds() < deadline else {
                throw BenchmarkFailure("waited \(Int(seconds)) s for \(what)")
            }
            Thread.sleep(forTimeInterval: 0.25)
        }
    }
}
