import Foundation

/// Finds the `apphost-worker` program: `swift build` and an installation put it next to
/// `apphost`, and next to the test bundle and the benchmarks, which all run from that directory.
public enum WorkerExecutable {
    public static let name = "apphost-worker"
    /// Names a worker program elsewhere, for a packaging that separates them.
    public static let environmentVariable = "APPHOST_WORKER"

    /// Why no worker program is usable; `description` is one line that says what to do.
    public struct Missing: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    /// `$APPHOST_WORKER` when set, else `apphost-worker` in the running program's directory.
    public static func locate(
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(Missing) -> String {
        if let configured = environment[environmentVariable], !configured.isEmpty {
            guard FileManager.default.isExecutableFile(atPath: configured) else {
                throw Missing(description: "\(environmentVariable)=\(configured) is not an executable file")
            }
            return configured
        }
        guard let program = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else {
            throw Missing(description: "cannot read /proc/self/exe to find \(name); set \(environmentVariable)")
        }
        let candidate = URL(fileURLWithPath: program).deletingLastPathComponent().appendingPathComponent(name).path
        guard FileManager.default.isExecutableFile(atPath: candidate) else {
            throw Missing(
                description: "no \(name) next to \(program) (build it, or set \(environmentVariable), or use "
                    + "--isolation none)")
        }
        return candidate
    }
}
