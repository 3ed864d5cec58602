import Foundation
import XCTest

/// The plugin author's path, tried as an author outside the project would: the guest templates
/// of sdk/templates, copied to a directory that is not the checkout, build with one command each
/// against the SDK package alone, export what the guide says, and run under `apphost launch` in
/// both isolation modes, restoring their state across a restart (CONTRACT S12) and finishing
/// their background work in a task (B1, B6). Every Swift snippet of sdk/README.md compiles in
/// Swift 6 language mode, and its manifest is the Swift template's.
///
/// The copies sit beside `apphost`, a link to this checkout, which is where the templates look
/// for the SDK (`../apphost/sdk`), as they would beside a real checkout.
final class GuestTemplateTests: HostTestCase {
    static let helloID = "org.example.hello"

    /// The checkout: this file is Tests/ApphostCLITests/GuestTemplateTests.swift.
    static let checkout = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    override class var stopsHostsGracefully: Bool { true }

    /// Copies `sdk/templates/<name>` to `<scratch>/<copy>`, beside a link `apphost` to the
    /// checkout, and returns the copy's path.
    private func copyTemplate(_ name: String, to copy: String) throws -> String {
        let link = scratch.path + "/apphost"
        if !FileManager.default.fileExists(atPath: link) {
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: Self.checkout)
        }
        let destination = scratch.path + "/" + copy
        try FileManager.default.copyItem(atPath: Self.checkout + "/sdk/templates/" + name, toPath: destination)
        return destination
    }

    /// Runs `command` (looked up in PATH) in `directory`, and fails the test with its output
    /// unless it succeeds.
    @discardableResult
    private func succeeds(
        _ command: [String], in directory: String, timeout: TimeInterval = 600, file: StaticString = #filePath,
        line: UInt = #line
    ) throws -> CommandResult {
        let result = try runCommand("/usr/bin/env", command, in: directory, timeout: timeout, file: file, line: line)
        XCTAssertEqual(
            result.status, 0,
            "\(command.joined(separator: " ")) failed in \(directory):\n"
                + (result.stdout + result.stderr).joined(separator: "\n"), file: file, line: line)
        guard result.status == 0 else { throw HostTestFailure() }
        return result
    }

    /// The dynamic symbols `library` defines, as `nm` names them.
    private func exports(_ library: String) throws -> [String] {
        let listed = try succeeds(["nm", "-D", "--defined-only", library], in: scratch.path)
        return listed.stdout.compactMap { $0.split(separator: " ").last.map(String.init) }
    }

    // MARK: - The C template

    func testTheCTemplateBuildsOutsideTheCheckoutWithMakeAndRuns() throws {
        let directory = try copyTemplate("c", to: "hello-c")
        try succeeds(["make"], in: directory)
        let library = directory + "/libhello.so"
        XCTAssertEqual(try exports(library), ["apphost_entry"], "the version script keeps every other name in")
        try exercise(library)
        // The author's third step: it keeps the contract (issue 38).
        _ = try succeeds(["make", "check", "APPHOST=\(try BuildProducts.apphost())"], in: directory)
    }

    // MARK: - The Swift template

    func testTheSwiftTemplateBuildsOutsideTheCheckoutAgainstTheSDKAloneAndRuns() throws {
        let directory = try copyTemplate("swift", to: "hello-swift")
        try succeeds(["swift", "build"], in: directory)

        // Point 1: the SDK package brings nothing of the host's.
        let graph = try succeeds(["swift", "package", "show-dependencies", "--format", "json"], in: directory)
        let root = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(graph.stdout.joined(separator: "\n").utf8)) as? [String: Any])
        let dependencies = try XCTUnwrap(root["dependencies"] as? [[String: Any]])
        XCTAssertEqual(dependencies.map { $0["name"] as? String }, ["apphost-sdk"])
        XCTAssertEqual((dependencies.first?["dependencies"] as? [Any])?.count, 0, "the SDK depends on nothing")
        let checkouts = (try? FileManager.default.contentsOfDirectory(atPath: directory + "/.build/checkouts")) ?? []
        XCTAssertEqual(checkouts, [], "no package was cloned")

        // Point 3: no linker flags, and nothing exported but the entry and Swift's own names.
        let library = directory + "/.build/debug/libHello.so"
        let plain = try exports(library).filter { !$0.hasPrefix("$s") && !$0.hasPrefix("_$s") }
        XCTAssertEqual(
            Set(plain).subtracting(["__bss_start", "_edata", "_end"]), ["apphost_entry"],
            "the SDK's C functions and main stay hidden")

        // Point 4: the async background work runs on GuestActor, through the host's main queue.
        try exercise(library)
        let check = try runApphost(["check", library], timeout: 60)
        XCTAssertEqual(check.status, 0, "apphost check: \(check.stdout) \(check.stderr)")
    }

    /// Launches `library` (the templates behave alike), counts twice, sends it home, and checks
    /// that it syncs in a background task and is then suspended; restarts the host in the other
    /// isolation mode and checks the count came back and the same works again.
    private func exercise(_ library: String) throws {
        var count = 0
        for (run, isolation) in ["process", "none"].enumerated() {
            let host = try startHost([library], options: ["--isolation", isolation, "--suspend-delay", "0.3"])
            try host.waitForLog(Self.helloID, "hello: connected, count \(count)")
            let session = try XCTUnwrap(status().guest(Self.helloID)?.scenes.first?.session)
            for _ in 0..<2 {
                try ctlSucceeds("action", session, "count")
                count += 1
                try host.waitForLog(Self.helloID, "hello: count \(count)")
            }
            let mark = host.events.count
            try ctlSucceeds("home")
            try host.waitForLog(Self.helloID, "hello: synced \(count)", after: mark)
            let began = try host.waitForEvent("the sync task began", after: mark) {
                $0.kind == .taskBegun && $0.guest == Self.helloID && $0.name == "sync"
            }
            let suspended = try host.waitForEvent("the guest suspended", after: mark) {
                $0.kind == .suspended && $0.guest == Self.helloID
            }
            XCTAssertEqual(suspended.reason, .automatic, "run \(run): B6, once the sync task ended")
            XCTAssertLessThan(began.time, suspended.time)
            if isolation == "none" {
                // Terminated and launched again in the same process: a Swift library stays loaded
                // (sdk/README.md), so the SDK's GuestActor executor serves a second launch.
                try ctlSucceeds("terminate", Self.helloID)
                let relaunch = host.events.count
                try ctlSucceeds("switch", Self.helloID)
                try host.waitForLog(Self.helloID, "hello: connected, count \(count)", after: relaunch)
                try ctlSucceeds("home")
                try host.waitForLog(Self.helloID, "hello: synced \(count)", after: relaunch)
            }
            host.signal(SIGTERM)
            XCTAssertEqual(try host.waitForExit(), 0)
        }
    }

    // MARK: - The guide

    /// Every ```swift block of sdk/README.md compiles as written, each as a module of its own, in
    /// Swift 6 language mode; the one manifest block is the Swift template's Package.swift, which
    /// the test above builds.
    func testEverySwiftSnippetOfTheGuideCompilesInSwift6Mode() throws {
        let guide = try String(contentsOfFile: Self.checkout + "/sdk/README.md", encoding: .utf8)
        let blocks = Self.swiftBlocks(in: guide)
        let manifests = blocks.filter { $0.code.hasPrefix("// swift-tools-version") }
        let template = try String(
            contentsOfFile: Self.checkout + "/sdk/templates/swift/Package.swift", encoding: .utf8)
        XCTAssertEqual(manifests.map(\.code), [template], "the guide's manifest is the template's, as written")
        let snippets = blocks.filter { !$0.code.hasPrefix("// swift-tools-version") }
        XCTAssertGreaterThanOrEqual(snippets.count, 5, "the guide's Swift examples")

        let package = scratch.path + "/guide"
        var targets: [String] = []
        for (index, snippet) in snippets.enumerated() {
            let name = "GuideLine\(snippet.line)"
            let sources = package + "/Sources/" + name
            try FileManager.default.createDirectory(atPath: sources, withIntermediateDirectories: true)
            try snippet.code.write(toFile: sources + "/Snippet\(index).swift", atomically: true, encoding: .utf8)
            targets.append(
                "        .target(name: \"\(name)\", dependencies: [.product(name: \"ApphostSDK\", package: \"apphost-sdk\")]),"
            )
        }
        let manifest = """
            // swift-tools-version: 6.0
            import PackageDescription

            let package = Package(
                name: "guide",
                dependencies: [.package(name: "apphost-sdk", path: "\(Self.checkout)/sdk")],
                targets: [
            \(targets.joined(separator: "\n"))
                ]
            )

            """
        try manifest.write(toFile: package + "/Package.swift", atomically: true, encoding: .utf8)
        // A snippet that fails names itself: its module is GuideLine<its line in the guide>.
        try succeeds(["swift", "build"], in: package)
    }

    /// The ```swift blocks of a Markdown text, with the line each one's code starts on.
    static func swiftBlocks(in markdown: String) -> [(line: Int, code: String)] {
        var blocks: [(line: Int, code: String)] = []
        var current: (line: Int, lines: [Substring])?
        for (number, line) in markdown.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if var block = current {
                if line == "```" {
                    blocks.append((block.line, block.lines.joined(separator: "\n") + "\n"))
                    current = nil
                } else {
                    block.lines.append(line)
                    current = block
                }
            } else if line == "```swift" {
                current = (number + 2, [])
            }
        }
        return blocks
    }
}
