import ApphostControl
import Foundation
import Synchronization

// The HTTP API (CONTRACT O1) under load, beside the control socket: `apphost launch --http` of 200
// minimal isolated guests, then `ps` (GET /v1/guests) and a `switch` round trip, each driven by
// wrk from a second process and, as the baseline, by clients of the Unix socket with as many
// connections, for the same time.

/// What one load gave: requests answered per second and the latencies' p99.
struct LoadFigures {
    var requestsPerSecond: Double
    var p99Nanoseconds: Double
    var requests: Int

    func line(_ name: String) -> String {
        String(
            format: "%@ %8.0f req/s  p99 %9@  (%d requests)", name.padding(toLength: 44, withPad: " ", startingAt: 0),
            requestsPerSecond, Report.format(p99Nanoseconds) as NSString, requests)
    }
}

struct HTTPBenchmark {
    let apphost: String
    let guestPaths: [String]
    let directory: URL
    let seconds: Int

    struct Result {
        var psHTTP: LoadFigures
        var psSocket: LoadFigures
        var switchHTTP: LoadFigures
        var switchSocket: LoadFigures
        var launchSeconds: Double
    }

    /// `ps` with this many connections at once; a switch with one, since switches queue on the host.
    static let psConnections = 8

    func run() throws -> Result {
        let dataDirectory = directory.appendingPathComponent("http")
        let start = monotonicNanoseconds()
        // Background guests stay running (no automatic suspension), so that every switch costs the same.
        let host = try BuiltHost(
            apphost: apphost, dataDirectory: dataDirectory,
            arguments: ["--http", "0", "--log-level", "info", "--suspend-delay", "3600"] + guestPaths)
        defer { host.stop() }
        let log = host.log

        let socketPath = dataDirectory.appendingPathComponent("control.sock").path
        let port = try waitForPort(log: log)
        let ps = Array(#"{"command":"ps"}"#.utf8) + [UInt8(ascii: "\n")]
        try waitForAll(socketPath: socketPath, ps: ps, log: log)
        let launchSeconds = (monotonicNanoseconds() - start) / 1e9

        let url = "http://127.0.0.1:\(port)"
        let first = "org.apphost.bench.g0"
        let second = "org.apphost.bench.g1"
        let script = dataDirectory.appendingPathComponent("switch.lua")
        try """
        local guests = {"\(first)", "\(second)"}
        local n = 0
        request = function()
          n = n + 1
          return wrk.format("POST", "/v1/switch", {["Content-Type"] = "application/json"},
            '{"guest":"' .. guests[n % 2 + 1] .. '"}')
        end
        """.write(to: script, atomically: true, encoding: .utf8)

        // Each pair in turn: HTTP, then the socket, so that both see the same machine.
        let psHTTP = try wrk(url + "/v1/guests", connections: Self.psConnections, script: nil)
        let psSocket = try socketLoad(
            path: socketPath, connections: Self.psConnections, requests: { _ in ps })
        let switches = [first, second].map { Array(#"{"command":"switch","guest":"\#($0)"}"#.utf8) + [10] }
        let switchHTTP = try wrk(url + "/v1/switch", connections: 1, script: script.path)
        let switchSocket = try socketLoad(path: socketPath, connections: 1, requests: { switches[$0 % 2] })
        return Result(
            psHTTP: psHTTP, psSocket: psSocket, switchHTTP: switchHTTP, switchSocket: switchSocket,
            launchSeconds: launchSeconds)
    }

    /// wrk from a second process, `seconds` long, its own latency percentiles.
    private func wrk(_ url: String, connections: Int, script: String?) throws -> LoadFigures {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/wrk")
        process.arguments =
            ["-t", "\(min(2, connections))", "-c", "\(connections)", "-d", "\(seconds)s", "--latency"]
            + (script.map { ["-s", $0] } ?? []) + [url]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        do { try process.run() } catch { throw BenchmarkFailure("wrk is not installed (scripts/setup installs it)") }
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let lines = text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        guard process.terminationStatus == 0,
            let rate = lines.first(where: { $0.hasPrefix("Requests/sec:") })?.split(separator: " ").last.flatMap({
                Double($0)
            }),
            let p99 = lines.first(where: { $0.hasPrefix("99%") })?.split(separator: " ").last.flatMap(Self.duration),
            let total = lines.first(where: { $0.contains("requests in") })?.split(separator: " ").first.flatMap({
                Int($0)
            })
        else { throw BenchmarkFailure("wrk \(url) failed:\n\(text)") }
        if let errors = lines.first(where: { $0.hasPrefix("Non-2xx") }) {
            throw BenchmarkFailure("wrk \(url): \(errors)")
        }
        return LoadFigures(requestsPerSecond: rate, p99Nanoseconds: p99, requests: total)
    }

    /// wrk's "3.45ms", "812.00us", "1.02s" in nanoseconds.
    static func duration(_ text: Substring) -> Double? {
        for (unit, scale) in [("us", 1e3), ("ms", 1e6), ("s", 1e9)] where text.hasSuffix(unit) {
            return Double(text.dropLast(unit.count)).map { $0 * scale }
        }
        return nil
    }

    /// `connections` clients of the control socket, each on a thread of its own with one
    /// connection, sending request `requests(i)` after request for `seconds`.
    private func socketLoad(path: String, connections: Int, requests: @escaping @Sendable (Int) -> [UInt8]) throws
        -> LoadFigures
    {
        let sockets = try (0..<connections).map { _ in try ControlSocket(path: path) }
        let results = Mutex((latencies: [Double](), failures: 0))
        let group = DispatchGroup()
        let end = monotonicNanoseconds() + Double(seconds) * 1e9
        let begin = monotonicNanoseconds()
        for socket in sockets {
            nonisolated(unsafe) let socket = socket
            group.enter()
            Thread {
                var mine: [Double] = []
                var failed = 0
                var index = 0
                while monotonicNanoseconds() < end {
                    let start = monotonicNanoseconds()
                    guard let reply = socket.reply(to: requests(index)), ControlReply.succeeded(reply) else {
                        failed += 1
                        break
                    }
                    mine.append(monotonicNanoseconds() - start)
                    index += 1
                }
                results.withLock {
                    $0.latencies += mine
                    $0.failures += failed
                }
                group.leave()
            }.start()
        }
        group.wait()
        let elapsed = (monotonicNanoseconds() - begin) / 1e9
        let (latencies, failures) = results.withLock { $0 }
        guard failures == 0 else { throw BenchmarkFailure("\(failures) socket requests failed") }
        let samples = Samples(latencies)
        return LoadFigures(
            requestsPerSecond: Double(latencies.count) / elapsed, p99Nanoseconds: samples.percentile(99),
            requests: latencies.count)
    }

    private func waitForPort(log: URL) throws -> Int {
        let deadline = monotonicNanoseconds() + 30e9
        while monotonicNanoseconds() < deadline {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            if let line = text.split(separator: "\n").first(where: { $0.contains("serving HTTP") }),
                let address = line.split(separator: " ").first(where: { $0.hasPrefix("address=") }),
                let port = address.split(separator: ":").last.flatMap({ Int($0) })
            {
                return port
            }
            usleep(20_000)
        }
        throw BenchmarkFailure("the host did not serve HTTP within 30 s (see \(log.path))")
    }

    /// Until `ps` shows every guest running.
    private func waitForAll(socketPath: String, ps: [UInt8], log: URL) throws {
        let deadline = monotonicNanoseconds() + 300e9
        while monotonicNanoseconds() < deadline {
            if let socket = try? ControlSocket(path: socketPath), let reply = socket.reply(to: ps),
                reply.components(separatedBy: #""phase":"running""#).count - 1 == guestPaths.count
            {
                return
            }
            usleep(100_000)
        }
        throw BenchmarkFailure("not every guest was running within 300 s (see \(log.path))")
    }
}

/// `apphost-benchmarks [seconds] http`: the report.
func runHTTPBenchmarks(seconds: Int, guests: GuestBuilds, scratch: URL) throws {
    let result = try HTTPBenchmark(
        apphost: try apphostExecutable(), guestPaths: try guests.manyGuests(200), directory: scratch, seconds: seconds
    ).run()
    print(String(format: "200 isolated guests launched with --http in    %.1f s", result.launchSeconds))
    print(result.psHTTP.line("GET /v1/guests, wrk, \(HTTPBenchmark.psConnections) connections"))
    print(result.psSocket.line("ps, control socket, \(HTTPBenchmark.psConnections) connections"))
    Report.ratio(
        "ps: HTTP / socket (requests per second)", result.psHTTP.requestsPerSecond / result.psSocket.requestsPerSecond,
        target: "reported")
    print(result.switchHTTP.line("POST /v1/switch, wrk, 1 connection"))
    print(result.switchSocket.line("switch, control socket, 1 connection"))
    Report.ratio(
        "switch: HTTP / socket (p99)", result.switchHTTP.p99Nanoseconds / result.switchSocket.p99Nanoseconds,
        target: "reported")
}
