import ApphostVocabulary
import ApphostWire
import Foundation

/// Which parts of a guest's container (CONTRACT X6) this machine can enforce, as the worker
/// finds by enforcing each in a throwaway process (`apphost-worker --sandbox-support`): the
/// kernel may lack Landlock or seccomp, or a container the host runs in may forbid them.
public struct WorkerSandbox: Sendable {
    /// The parts that held.
    public var available: [SandboxPart]
    /// Each part that did not, with why, in the worker's words.
    public var missing: [(part: SandboxPart, reason: String)]
    /// The call filter's programs, with the network part and without, for every worker to load
    /// as they are (APPHOST_WORKER_CALL_FILTER); nil where the filter did not hold.
    public var callFilters: CallFilterPrograms?

    /// Asks the worker at `workerPath`; a worker that cannot say leaves every part missing.
    public static func support(workerPath: String) -> WorkerSandbox {
        let process = Process()
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: workerPath)
        process.arguments = [APPHOST_SANDBOX_SUPPORT_ARGUMENT]
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            return WorkerSandbox(lines: "", failure: "cannot run \(workerPath): \(error.localizedDescription)")
        }
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return WorkerSandbox(lines: text, failure: "\(workerPath) did not say")
    }

    /// From the worker's lines; a part it does not mention is missing for `failure`.
    init(lines: String, failure: String) {
        var available: [SandboxPart] = []
        var reasons: [SandboxPart: String] = [:]
        var programs: [Substring: String] = [:]
        for line in lines.split(separator: "\n") {
            if line.hasPrefix("program ") {
                let words = line.split(separator: " ")
                if words.count == 3 { programs[words[1]] = String(words[2]) }
                continue
            }
            let words = line.split(separator: " ", maxSplits: 1)
            guard words.count == 2, let part = SandboxPart(rawValue: String(words[0])) else { continue }
            if words[1].hasPrefix("ok:") {
                available.append(part)
            } else if words[1].hasPrefix("missing: ") {
                reasons[part] = String(words[1].dropFirst("missing: ".count))
            }
        }
        // In the order of SandboxPart's cases, whatever the worker's.
        self.available = SandboxPart.allCases.filter(available.contains)
        if available.contains(.calls), let withNetwork = programs[Substring(SandboxPart.network.rawValue)],
            let withoutNetwork = programs["-"]
        {
            callFilters = CallFilterPrograms(withNetworkPart: withNetwork, withoutNetworkPart: withoutNetwork)
        }
        missing = SandboxPart.allCases.filter { !available.contains($0) }.map { ($0, reasons[$0] ?? failure) }
    }
}

/// The call filter's BPF programs as `apphost-worker --sandbox-support` printed them, a pid to
/// be put in by each worker: one compiled for all, some 140 us less of each launch than each
/// worker compiling its own (filter_program.c).
public struct CallFilterPrograms: Sendable, Equatable {
    /// For a worker with the network part: sockets of a network family refused too.
    public var withNetworkPart: String
    public var withoutNetworkPart: String
}
