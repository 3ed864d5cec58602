import Foundation

/// sox, the real tool the tests measure rendered sound with (scripts/setup installs it). Missing,
/// it fails the test with one line saying what to do: a test that measures nothing must not pass.
public enum Sox {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String

        public init(description: String) {
            self.description = description
        }
    }

    /// What `sox FILE -n stats` says of the whole file (its "Overall" column).
    public struct Stats {
        public var peakDB: Double
        public var rmsDB: Double
        public var lengthSeconds: Double
    }

    /// The absolute path of sox on PATH.
    public static func path() throws -> String {
        let searchPath = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in searchPath.split(separator: ":") {
            let candidate = "\(directory)/sox"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        throw Failure(description: "sox is not installed (not on PATH): run scripts/setup")
    }

    /// `effects` run before `stats`: `["trim", "480s"]` measures all but the first 480 frames,
    /// `["sinc", "-t", "100", "300-600"]` a band around 440 Hz.
    public static func stats(of file: String, effects: [String] = []) throws -> Stats {
        let output = try run([file, "-n"] + effects + ["stats"])
        func overall(_ label: String) throws -> Double {
            guard let line = output.split(separator: "\n").first(where: { $0.hasPrefix(label) }),
                let value = line.dropFirst(label.count).split(separator: " ").first.flatMap({ Double($0) })
            else { throw Failure(description: "sox stats of \(file) has no \"\(label)\" value:\n\(output)") }
            return value
        }
        return Stats(
            peakDB: try overall("Pk lev dB"), rmsDB: try overall("RMS lev dB"),
            lengthSeconds: try overall("Length s"))
    }

    /// Frames in the file as sox reads it (`sox --i -s`: "samples" there are per channel).
    public static func frames(of file: String) throws -> Int {
        let output = try run(["--i", "-s", file]).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let frames = Int(output) else {
            throw Failure(description: "sox --i -s \(file) said \"\(output)\", not a count")
        }
        return frames
    }

    /// Everything `sox --i` says of the file's format.
    public static func info(of file: String) throws -> String { try run(["--i", file]) }

    /// The "Rough frequency" `sox FILE -n remix 1 stat` gives, in Hz, of the file's first channel
    /// (stat reads interleaved channels as one signal, and then is off by √2 for stereo), to a
    /// hertz or two.
    public static func roughFrequency(of file: String) throws -> Double {
        let output = try run([file, "-n", "remix", "1", "stat"])
        guard let line = output.split(separator: "\n").first(where: { $0.hasPrefix("Rough   frequency:") }),
            let value = line.split(separator: " ").last.flatMap({ Double($0) })
        else { throw Failure(description: "sox stat of \(file) has no rough frequency:\n\(output)") }
        return value
    }

    /// Makes a file with sox: `arguments` as on its command line, such as
    /// `["-n", "-r", "48000", "-c", "1", "-b", "16", path, "synth", "0.5", "sine", "440"]`.
    public static func make(_ arguments: [String]) throws { _ = try run(arguments) }

    /// Runs sox; its standard output and error together, or a failure with them unless it exits 0.
    private static func run(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try path())
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        // Ours closed, sox's copy is the only writer left: reading ends when sox exits.
        try? pipe.fileHandleForWriting.close()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        try? pipe.fileHandleForReading.close()
        process.waitUntilExit()
        let output = String(decoding: data, as: UTF8.self)
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            throw Failure(
                description: "sox \(arguments.joined(separator: " ")) exited \(process.terminationStatus):\n\(output)")
        }
        return output
    }
}
