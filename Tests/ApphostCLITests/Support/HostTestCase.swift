import ApphostControl
import ApphostVocabulary
import XCTest

/// A test that runs hosts on the sample guests, each test with its own data directory.
class HostTestCase: XCTestCase {
    static let cID = "org.apphost.samples.c"
    static let swiftID = "org.apphost.samples.swift"

    private(set) var scratch: ScratchDirectory!
    private var hosts: [HostProcess] = []

    override func setUpWithError() throws {
        _ = BuildProducts.uidRegistry
        scratch = try ScratchDirectory()
    }

    /// Whether the hosts are stopped with SIGTERM at the end, rather than killed: a killed host
    /// cannot thaw the guests it left suspended, whose workers would stay frozen until the next
    /// host starts.
    class var stopsHostsGracefully: Bool { false }

    override func tearDown() {
        for host in hosts {
            if Self.stopsHostsGracefully, host.process.isRunning {
                host.signal(SIGTERM)
                _ = try? host.waitForExit()
            }
            host.kill()
        }
        hosts = []
        scratch = nil
    }

    var dataDirectory: String { scratch.dataDirectory }

    /// The `--isolation` the hosts of this class get unless a test says otherwise; nil for the
    /// default (process). Subclasses run the same tests in the other mode.
    class var isolation: String? { nil }

    /// Starts `apphost launch` with `options` on `guests` (build product names or paths) with this
    /// test's data directory.
    func startHost(
        _ guests: [String], options: [String] = [], environment: [String: String] = [:],
        readsStandardOutput: Bool = true, readsStandardError: Bool = true, fillsStandardOutput: Bool = false,
        journalStream: HostProcess.Stream? = nil, openFiles: Int? = nil
    ) throws -> HostProcess {
        let paths = try guests.map { $0.hasPrefix("/") ? $0 : try BuildProducts.path($0) }
        var options = options
        if let isolation = Self.isolation, !options.contains("--isolation") {
            options = ["--isolation", isolation] + options
        }
        let host = try HostProcess(
            guests: options + paths, dataDirectory: dataDirectory, environment: environment,
            readsStandardOutput: readsStandardOutput, readsStandardError: readsStandardError,
            fillsStandardOutput: fillsStandardOutput, journalStream: journalStream, openFiles: openFiles)
        hosts.append(host)
        return host
    }

    /// Starts a host on the C sample (foreground) and the Swift sample (background) and waits
    /// until both have connected their scenes.
    func startBothSamples() throws -> HostProcess {
        let host = try startHost([BuildProducts.cSample, BuildProducts.swiftSample])
        try host.waitForLog(Self.cID, "callback did_become_active", prefix: true)
        try host.waitForLog(Self.swiftID, "callback will_connect", prefix: true)
        return host
    }

    /// Runs `apphost ctl <arguments> --data-dir <this test's>`.
    func ctl(_ arguments: String..., file: StaticString = #filePath, line: UInt = #line) throws -> CommandResult {
        try runApphost(["ctl"] + arguments + ["--data-dir", dataDirectory], file: file, line: line)
    }

    /// Runs a ctl command that must succeed.
    @discardableResult
    func ctlSucceeds(_ arguments: String..., file: StaticString = #filePath, line: UInt = #line) throws -> CommandResult
    {
        let result = try runApphost(["ctl"] + arguments + ["--data-dir", dataDirectory], file: file, line: line)
        XCTAssertEqual(result.status, 0, "ctl \(arguments) failed: \(result.stderr)", file: file, line: line)
        return result
    }

    /// `ctl ps --json`, decoded.
    func status(file: StaticString = #filePath, line: UInt = #line) throws -> HostStatus {
        let result = try ctlSucceeds("ps", "--json", file: file, line: line)
        XCTAssertEqual(result.stdout.count, 1, "ps --json prints one line", file: file, line: line)
        return try ControlCoding.decode(HostStatus.self, from: result.stdout.joined())
    }
}

extension HostStatus {
    func guest(_ id: String) -> GuestStatus? { guests.first { $0.id == id } }
}
