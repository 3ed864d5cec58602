import Foundation
import XCTest

/// The built `apphost` binary and sample guests, found next to the test bundle: `swift build`
/// puts every product of the package in one directory.
enum BuildProducts {
    static let cSample = "libCSampleGuest.so"
    static let swiftSample = "libSwiftSampleGuest.so"
    /// The audio samples (sdk/README.md, "Audio").
    static let cMusic = "libCMusicGuest.so"
    static let swiftGame = "libSwiftGameGuest.so"
    static let swiftPodcast = "libSwiftPodcastGuest.so"
    static let swiftNavigation = "libSwiftNavigationGuest.so"

    /// The directory holding `apphost`, or nil when the tests run without a build of it.
    static let directory: URL? = {
        let bundle = Bundle(for: BundleMarker.self).bundleURL
        let candidates = [
            bundle.deletingLastPathComponent(), bundle,
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
        ]
        return candidates.first {
            FileManager.default.isExecutableFile(atPath: $0.appendingPathComponent("apphost").path)
        }
    }()

    /// The path of a build product; fails the test with what to do when it is missing.
    static func path(_ name: String, file: StaticString = #filePath, line: UInt = #line) throws -> String {
        guard let directory else {
            XCTFail(
                "no apphost binary next to the test bundle: run `swift build` before `swift test`", file: file,
                line: line)
            throw MissingProduct()
        }
        let path = directory.appendingPathComponent(name).path
        guard FileManager.default.fileExists(atPath: path) else {
            XCTFail(
                "\(name) is missing in \(directory.path): run `swift build` before `swift test`", file: file, line: line
            )
            throw MissingProduct()
        }
        return path
    }

    static func apphost(file: StaticString = #filePath, line: UInt = #line) throws -> String {
        _ = uidRegistry
        return try path("apphost", file: file, line: line)
    }

    /// The registry of worker users (APPHOST_UID_REGISTRY) of every host the tests start, set
    /// in this process's environment, which they inherit: one of the tests' own, so that they do
    /// not touch the machine's (/var/lib/apphost-uids).
    static let uidRegistry: String = {
        let path = NSTemporaryDirectory() + "apphost-test-uids-\(getpid())"
        setenv("APPHOST_UID_REGISTRY", path, 1)
        return path
    }()

    private final class BundleMarker {}
    struct MissingProduct: Error {}
}
