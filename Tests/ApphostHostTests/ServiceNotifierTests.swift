import ApphostService
import ApphostServiceTesting
import Dispatch
import Foundation
import XCTest

@testable import ApphostChannels

/// systemd's notify protocol without systemd (CONTRACT O3): the environment the host reads, the
/// datagrams it sends, and the watchdog fed from the queue it is given.
final class ServiceNotifierTests: XCTestCase {
    private var directory: String!

    override func setUpWithError() throws {
        var template = Array("/tmp/apphost-notify-XXXXXX".utf8CString)
        directory = String(cString: try XCTUnwrap(mkdtemp(&template)))
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: directory)
    }

    // CONTRACT O3: NOTIFY_SOCKET names a path or an abstract socket; WATCHDOG_USEC asks for pings
    // at half its period, unless WATCHDOG_PID names another process.
    func testO3ConfigurationFromTheEnvironment() {
        typealias Configuration = ServiceNotifier.Configuration
        XCTAssertNil(Configuration.from(environment: [:]))
        XCTAssertNil(Configuration.from(environment: ["NOTIFY_SOCKET": ""]))
        XCTAssertNil(Configuration.from(environment: ["NOTIFY_SOCKET": "relative/notify"]))
        XCTAssertNil(Configuration.from(environment: ["NOTIFY_SOCKET": "@"]))
        XCTAssertNil(Configuration.from(environment: ["NOTIFY_SOCKET": "vsock:2:1234"]))
        XCTAssertEqual(
            Configuration.from(environment: ["NOTIFY_SOCKET": "/run/systemd/notify"]),
            Configuration(socket: "/run/systemd/notify"))
        XCTAssertEqual(
            Configuration.from(environment: ["NOTIFY_SOCKET": "@abstract", "WATCHDOG_USEC": "10000000"], pid: 42),
            Configuration(socket: "@abstract", watchdogInterval: .seconds(5)))
        XCTAssertEqual(
            Configuration.from(
                environment: ["NOTIFY_SOCKET": "/n", "WATCHDOG_USEC": "200000", "WATCHDOG_PID": "42"], pid: 42),
            Configuration(socket: "/n", watchdogInterval: .milliseconds(100)))
        for other in ["43", "x"] {
            XCTAssertEqual(
                Configuration.from(
                    environment: ["NOTIFY_SOCKET": "/n", "WATCHDOG_USEC": "200000", "WATCHDOG_PID": other], pid: 42),
                Configuration(socket: "/n"), "WATCHDOG_PID=\(other)")
        }
        for usec in ["0", "-5", "soon"] {
            XCTAssertEqual(
                Configuration.from(environment: ["NOTIFY_SOCKET": "/n", "WATCHDOG_USEC": usec]),
                Configuration(socket: "/n"), "WATCHDOG_USEC=\(usec)")
        }
        XCTAssertNil(
            ServiceNotifier(Configuration(socket: "/" + String(repeating: "x", count: 200))),
            "a path longer than a socket address holds")
    }

    // CONTRACT O3: each message is one datagram of KEY=value lines, to a path or an abstract name.
    func testO3MessagesReachPathAndAbstractSockets() throws {
        let sockets = [
            try NotifySocket(path: directory + "/notify"),
            try NotifySocket(abstractName: "apphost-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"),
        ]
        for socket in sockets {
            let notifier = try XCTUnwrap(ServiceNotifier.fromEnvironment(["NOTIFY_SOCKET": socket.address]))
            notifier.ready(status: "2 of 2 guests\nlaunched")
            XCTAssertEqual(
                socket.receive(timeout: 5), "READY=1\nMAINPID=\(getpid())\nSTATUS=2 of 2 guests launched",
                socket.address)
            notifier.stopping(status: "terminating guests")
            XCTAssertEqual(socket.receive(timeout: 5), "STOPPING=1\nSTATUS=terminating guests", socket.address)
            notifier.watchdog()
            XCTAssertEqual(socket.receive(timeout: 5), "WATCHDOG=1", socket.address)
        }
    }

    // CONTRACT O3: nobody reading the socket, or no socket at all, costs messages, never a wait.
    func testO3ANotifySocketNobodyReadsNeverBlocks() throws {
        let socket = try NotifySocket(path: directory + "/full")
        let notifier = try XCTUnwrap(ServiceNotifier.fromEnvironment(["NOTIFY_SOCKET": socket.address]))
        let started = ContinuousClock.now
        for _ in 0..<10_000 { notifier.watchdog() }
        let gone = try XCTUnwrap(ServiceNotifier.fromEnvironment(["NOTIFY_SOCKET": directory + "/missing"]))
        gone.ready(status: "nobody hears this")
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(5))
    }

    // CONTRACT O3: the watchdog is fed from the queue it is given (the host queue): while that
    // queue is stuck the pings stop, so that systemd restarts a stuck host; they come back when
    // it runs again.
    func testO3WatchdogPingsComeFromTheQueueAndStopWhileItIsStuck() throws {
        let socket = try NotifySocket(path: directory + "/watchdog")
        let notifier = try XCTUnwrap(
            ServiceNotifier.fromEnvironment(["NOTIFY_SOCKET": socket.address, "WATCHDOG_USEC": "100000"]))
        XCTAssertEqual(notifier.configuration.watchdogInterval, .milliseconds(50))
        let queue = DispatchQueue(label: "test.host-queue")
        notifier.startWatchdog(on: queue)
        defer { notifier.stopWatchdog() }

        let running = socket.messages(during: 0.5)
        XCTAssertGreaterThanOrEqual(running.count, 4, "about 10 pings in 0.5 s at 50 ms: \(running)")
        XCTAssertEqual(Set(running), ["WATCHDOG=1"])

        let stuck = DispatchSemaphore(value: 0)
        let blocked = DispatchSemaphore(value: 0)
        queue.async {
            blocked.signal()
            stuck.wait()
        }
        blocked.wait()
        // A ping already on its way when the queue stuck may still arrive.
        _ = socket.messages(during: 0.1)
        XCTAssertEqual(socket.messages(during: 0.5), [], "no ping while the queue is stuck")
        stuck.signal()
        XCTAssertNotNil(socket.receive(timeout: 2), "pings again once the queue runs")

        notifier.stopWatchdog()
        _ = socket.messages(during: 0.1)
        XCTAssertEqual(socket.messages(during: 0.3), [], "no ping once stopped")
    }

    // CONTRACT O3: without a watchdog (or someone else's), the notifier starts no timer.
    func testO3NoWatchdogNoPings() throws {
        let socket = try NotifySocket(path: directory + "/quiet")
        let notifier = try XCTUnwrap(
            ServiceNotifier.fromEnvironment(
                ["NOTIFY_SOCKET": socket.address, "WATCHDOG_USEC": "100000", "WATCHDOG_PID": "\(getpid() + 1)"]))
        notifier.startWatchdog(on: DispatchQueue(label: "test.host-queue"))
        XCTAssertEqual(socket.messages(during: 0.3), [])
    }

    // CONTRACT O3, X2: a worker does not inherit the service manager's variables, so a guest
    // cannot speak to systemd as its host; the rest of the environment it does inherit.
    func testO3WorkersDoNotInheritTheNotifySocketOrTheWatchdog() throws {
        let variables = ["NOTIFY_SOCKET": "/run/systemd/notify", "WATCHDOG_USEC": "10000000", "WATCHDOG_PID": "1"]
        for (name, value) in variables { setenv(name, value, 1) }
        setenv("APPHOST_TEST_KEPT", "yes", 1)
        defer { for name in Array(variables.keys) + ["APPHOST_TEST_KEPT"] { unsetenv(name) } }

        // env(1) in the worker's place prints the environment it was given.
        let spawned = try WorkerProcess.spawn(executable: "/usr/bin/env", capturingOutput: true)
        let output = try XCTUnwrap(spawned.output)
        defer {
            close(spawned.socket)
            close(output.standardOutput)
            close(output.standardError)
        }
        var text = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while case let count = read(output.standardOutput, &buffer, buffer.count), count > 0 {
            text.append(contentsOf: buffer[..<count])
        }
        _ = spawned.process.waitForExit()
        let names = String(decoding: text, as: UTF8.self).split(separator: "\n").map { $0.prefix { $0 != "=" } }
        XCTAssertTrue(names.contains("APPHOST_TEST_KEPT"), "\(names)")
        for name in variables.keys { XCTAssertFalse(names.contains(Substring(name)), name) }
    }
}
