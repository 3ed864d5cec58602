import Foundation
import Synchronization

/// Builds the C guests of Plugins/Fixtures with `cc` into one temporary directory per test run,
/// each variant once, and makes the other files the loader tests feed the host.
enum GuestFixtures {
    struct BuildFailure: Error, CustomStringConvertible {
        let description: String
    }

    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let sources = packageRoot.appendingPathComponent("Plugins/Fixtures")

    /// Removed when the test process exits.
    static let directory: URL = {
        var template = Array((NSTemporaryDirectory() + "/apphost-fixtures-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { fatalError("mkdtemp: \(String(cString: strerror(errno)))") }
        let url = URL(fileURLWithPath: String(cString: made), isDirectory: true)
        atexit { try? FileManager.default.removeItem(at: GuestFixtures.directory) }
        return url
    }()

    private static let built = Mutex<Set<String>>([])

    /// `Plugins/Fixtures/<source>` built as a shared library named `<name>.so`; `flags` go to cc
    /// as they are (`-DFIXTURE_ID="x.y"` needs no shell quoting).
    static func library(_ source: String, name: String? = nil, flags: [String] = []) throws -> String {
        let output = path(name ?? (source as NSString).deletingPathExtension) + ".so"
        try buildOnce(output) {
            try cc(
                ["-shared", "-fPIC", "-pthread"] + flags + [sources.appendingPathComponent(source).path, "-o", output])
        }
        return output
    }

    /// `Plugins/Fixtures/<source>` built as a program (`pie` or not), or as an object file.
    static func program(_ source: String, name: String, flags: [String]) throws -> String {
        let output = path(name)
        try buildOnce(output) { try cc(flags + [sources.appendingPathComponent(source).path, "-o", output]) }
        return output
    }

    /// A guest whose DT_NEEDED library has been deleted after linking.
    static func guestWithMissingDependency() throws -> String {
        let output = path("needs_dependency.so")
        try buildOnce(output) {
            let stubDirectory = path("stub")
            try FileManager.default.createDirectory(atPath: stubDirectory, withIntermediateDirectories: true)
            let stub = stubDirectory + "/libapphost_fixture_stub.so"
            try cc(["-shared", "-fPIC", sources.appendingPathComponent("dependency_stub.c").path, "-o", stub])
            try cc([
                "-shared", "-fPIC", sources.appendingPathComponent("needs_dependency.c").path, "-L", stubDirectory,
                "-lapphost_fixture_stub", "-o", output,
            ])
            try FileManager.default.removeItem(atPath: stub)
        }
        return output
    }

    /// A file holding `bytes`.
    static func file(_ name: String, bytes: [UInt8]) throws -> String {
        let output = path(name)
        try Data(bytes).write(to: URL(fileURLWithPath: output))
        return output
    }

    /// A copy of `original` changed by `edit`.
    static func copy(of original: String, as name: String, edit: (inout [UInt8]) -> Void) throws -> String {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: original)))
        edit(&bytes)
        return try file(name, bytes: bytes)
    }

    static func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// Runs cc with the SDK headers; throws with cc's output when it fails.
    static func cc(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments =
            ["cc", "-std=c99", "-I", packageRoot.appendingPathComponent("sdk/include").path] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw BuildFailure(description: "cc \(arguments.joined(separator: " ")) failed:\n\(text)")
        }
    }

    private static func buildOnce(_ output: String, _ build: () throws -> Void) throws {
        guard !built.withLock({ $0.contains(output) }) else { return }
        try build()
        built.withLock { _ = $0.insert(output) }
    }
}
