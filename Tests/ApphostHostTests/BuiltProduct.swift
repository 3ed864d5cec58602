import Foundation
import XCTest

/// The package's built products (the Swift sample guests, the fixtures), next to the test bundle
/// as `swift build` puts every product.
enum BuiltProduct {
    private final class InThisBundle {}

    /// The path of the built product `name`; a failure that says to build first when it is absent.
    static func path(_ name: String, file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let bundle = Bundle(for: InThisBundle.self).bundleURL
        let candidates = [
            bundle.deletingLastPathComponent(), bundle,
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
        ]
        guard
            let directory = candidates.first(where: {
                FileManager.default.fileExists(atPath: $0.appendingPathComponent(name).path)
            })
        else {
            XCTFail("no \(name) next to the test bundle: run `swift build` before `swift test`", file: file, line: line)
            throw CocoaError(.fileNoSuchFile)
        }
        return directory.appendingPathComponent(name).path
    }
}
