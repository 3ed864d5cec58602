import Foundation
import XCTest

/// Many `apphost ctl` at once, as scripts and monitoring run them.
final class ConcurrentControlTests: HostTestCase {
    /// How many `ctl ps` run at once. A thousand take 30 to 60 s on the 2-core VM with other
    /// builds running; with a listen backlog of 16 and no retry, 410 of them failed (EAGAIN).
    static let concurrentCommands = 1000

    // docs/decisions.md: every ctl command answers while many others run. The host's listen backlog holds
    // a burst, and a client the kernel still refuses (EAGAIN: the backlog is full) tries again.
    func testAThousandConcurrentCtlPsAllAnswer() throws {
        let host = try startHost([BuildProducts.cSample])
        try host.waitForLog(Self.cID, "callback did_become_active", prefix: true)

        // bash starts them all without waiting for any, then collects each one's exit status.
        let script = """
            failures=0; pids=()
            for i in $(seq "$2"); do "$1" ctl ps --data-dir "$3" > /dev/null 2>> "$4" & pids+=($!); done
            for pid in "${pids[@]}"; do wait "$pid" || failures=$((failures + 1)); done
            echo "$failures"
            """
        let errors = scratch.path + "/errors"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [
            "-c", script, "bash", try BuildProducts.apphost(), "\(Self.concurrentCommands)", dataDirectory, errors,
        ]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let counted = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()

        let failures = Int(counted.trimmingCharacters(in: .whitespacesAndNewlines))
        let messages = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
        let distinct = Set(messages.split(separator: "\n")).sorted().prefix(5)
        XCTAssertEqual(failures, 0, "of \(Self.concurrentCommands) ctl ps, these failed with: \(distinct)")
        XCTAssertTrue(host.process.isRunning)
        XCTAssertEqual(try status().foreground, Self.cID, "the host answers as before")
    }
}
