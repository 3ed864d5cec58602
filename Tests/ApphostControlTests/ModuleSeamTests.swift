import Foundation
import XCTest

/// The modules that adapters and the control client are made of link no policy (issue 36): what
/// they share is ApphostVocabulary, and ApphostPolicy is for the host alone. Read from the package's
/// own description (`swift package dump-package`), each target's dependencies followed to the end.
final class ModuleSeamTests: XCTestCase {
    private static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Each target of this package and the targets of this package it depends on, directly.
    private func targetDependencies() throws -> [String: [String]] {
        // A scratch path of its own, so that it waits for no build of the package under way.
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("seams-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "swift", "package", "dump-package", "--package-path", Self.packageRoot.path, "--scratch-path", scratch.path,
        ]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "swift package dump-package failed")
        struct Package: Decodable {
            struct Target: Decodable {
                var name: String
                var dependencies: [[String: [String?]]]
            }
            var targets: [Target]
        }
        let package = try JSONDecoder().decode(Package.self, from: data)
        let names = Set(package.targets.map(\.name))
        var dependencies: [String: [String]] = [:]
        for target in package.targets {
            // {"byName": [name, condition]} or {"target": [name, condition]}; products are other packages'.
            dependencies[target.name] = target.dependencies.compactMap { ($0["byName"] ?? $0["target"])?.first ?? nil }
                .filter(names.contains)
        }
        return dependencies
    }

    private func closure(of target: String, in dependencies: [String: [String]]) -> Set<String> {
        var seen: Set<String> = []
        var next = dependencies[target] ?? []
        while let name = next.popLast() {
            guard seen.insert(name).inserted else { continue }
            next += dependencies[name] ?? []
        }
        return seen
    }

    func testAdaptersAndControlLinkNoPolicy() throws {
        let dependencies = try targetDependencies()
        for target in ["ApphostVocabulary", "ApphostControl", "ApphostFreezing", "ApphostLoading", "ApphostLimits"] {
            XCTAssertNotNil(dependencies[target], "no target \(target)")
            XCTAssertFalse(
                closure(of: target, in: dependencies).contains("ApphostPolicy"), "\(target) depends on ApphostPolicy")
        }
    }

    func testTheVocabularyUsesOnlyPlainValuesAndTheABI() throws {
        let dependencies = try targetDependencies()
        XCTAssertEqual(closure(of: "ApphostVocabulary", in: dependencies), ["ApphostModel"])
    }
}
