import ApphostHost
import XCTest

/// `apphost inspect`: its options.
final class InspectTests: HostTestCase {
    // README: inspect runs no host and takes no --data-dir. Given one, it says so in one line (a
    // usage error); before, ArgumentParser's "Unknown option" took four. APPHOST_DATA_DIR, which
    // only launch and ctl read, is no error.
    func testInspectRefusesADataDirectoryInOneLine() throws {
        let sample = try BuildProducts.path(BuildProducts.cSample)
        let result = try runApphost(["inspect", "--data-dir", dataDirectory, sample])
        XCTAssertEqual(result.status, 64)
        assertOneLineError(result, containing: "inspect takes no --data-dir")
        let environment = try runApphost(["inspect", sample], environment: ["APPHOST_DATA_DIR": dataDirectory])
        XCTAssertEqual(environment.status, 0, "\(environment.stderr)")
    }

    // README: in this process nothing can stop a library that hangs while it loads, so --timeout
    // with --isolation none is a usage error instead of an option silently ignored.
    func testTimeoutWithoutProcessIsolationIsAUsageError() throws {
        let sample = try BuildProducts.path(BuildProducts.cSample)
        let result = try runApphost(["inspect", "--isolation", "none", "--timeout", "5", sample])
        XCTAssertEqual(result.status, 64, "\(result.stderr)")
        assertOneLineError(result, containing: "--timeout needs --isolation process")
        XCTAssertEqual(try runApphost(["inspect", "--isolation", "none", sample]).status, 0)
    }
}
