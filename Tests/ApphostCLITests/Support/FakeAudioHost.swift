import Foundation
import XCTest

/// Plugins/Fixtures/audio_host.c: a fake host that loads one guest and plays the host's side of
/// "apphost.audio/1" as a list of commands says, printing each audio call the guest makes and
/// each line it logs. It tests what guests and the Swift SDK do with the audio extension without
/// the real host's audio.
enum FakeAudioHost {
    /// Builds the fake host into `directory` with cc, and returns its path.
    static func build(into directory: String, file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let output = directory + "/audio_host"
        let result = try runCommand(
            "/usr/bin/env",
            [
                "cc", "-std=c99", "-Wall", "-Wextra", "-I",
                TestGuests.packageRoot.appendingPathComponent("sdk/include").path,
                TestGuests.packageRoot.appendingPathComponent("Plugins/Fixtures/audio_host.c").path, "-o", output,
                "-ldl",
                "-pthread",
            ], timeout: 120, file: file, line: line)
        guard result.status == 0 else {
            XCTFail(
                "cannot build audio_host.c (is cc installed? run scripts/setup):\n"
                    + (result.stdout + result.stderr).joined(separator: "\n"), file: file, line: line)
            throw HostTestFailure()
        }
        return output
    }

    /// Runs `fakeHost` on the build product `guest` with `commands`, and returns what it printed;
    /// fails the test unless it exits with 0.
    static func run(
        _ fakeHost: String, guest: String, _ commands: [String], file: StaticString = #filePath, line: UInt = #line
    ) throws -> [String] {
        let library = try BuildProducts.path(guest, file: file, line: line)
        let result = try runCommand(fakeHost, [library] + commands, timeout: 60, file: file, line: line)
        XCTAssertEqual(
            result.status, 0, "audio_host failed:\n" + (result.stdout + result.stderr).joined(separator: "\n"),
            file: file, line: line)
        return result.stdout
    }
}
