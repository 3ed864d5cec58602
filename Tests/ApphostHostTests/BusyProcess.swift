import Foundation
import XCTest

@testable import ApphostFreezing

/// Plugins/Fixtures/busy_threads.c running as a child of the test: threads that spin, so that
/// its CPU time shows whether it runs. Killed and reaped at the end unless a test did so.
final class BusyProcess {
    let pid: pid_t
    let spinningThreads: Int
    private var reaped = false

    init(spinningThreads: Int = 2) throws {
        let program = try GuestFixtures.program("busy_threads.c", name: "busy_threads", flags: ["-pthread"])
        self.spinningThreads = spinningThreads
        let strings: [String] = [program, "\(spinningThreads)"]
        let arguments = strings.map { strdup($0) as UnsafeMutablePointer<CChar>? } + [nil]
        defer { for argument in arguments { free(argument) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, program, nil, nil, arguments, environ)
        guard status == 0 else { throw GuestFixtures.BuildFailure(description: "posix_spawn: \(status)") }
        self.pid = pid
        // Every thread started, so that the tests watch all of them.
        let started = try Polling.until(timeout: .seconds(5)) {
            KernelFile.entries("/proc/\(pid)/task").count == spinningThreads + 1
        }
        guard started else { throw GuestFixtures.BuildFailure(description: "busy_threads did not start its threads") }
    }

    deinit {
        if !reaped {
            kill(pid, SIGKILL)
            waitpid(pid, nil, 0)
        }
    }

    /// utime + stime of the whole process, in clock ticks.
    var cpuTicks: UInt64 { ProcessStat.of(pid: pid)?.cpuTicks ?? 0 }

    /// The states of its threads, such as "T" for stopped.
    var threadStates: [Character] { ProcessStat.threads(of: pid).map(\.state) }

    /// Kills it and waits until it is a zombie, not reaped, so its pid cannot be reused yet.
    func killLeavingZombie() throws {
        kill(pid, SIGKILL)
        let dead = try Polling.until(timeout: .seconds(5)) { ProcessStat.of(pid: pid)?.hasExited ?? true }
        XCTAssertTrue(dead, "process \(pid) did not die of SIGKILL")
    }

    /// Waits for it to exit and reaps it; false if it still runs after `timeout`.
    @discardableResult
    func reap(timeout: Duration = .seconds(5)) throws -> Bool {
        guard !reaped else { return true }
        reaped = try Polling.until(timeout: timeout) { waitpid(pid, nil, WNOHANG) == pid }
        return reaped
    }
}
