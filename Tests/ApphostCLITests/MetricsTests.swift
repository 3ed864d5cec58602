import ApphostModel
import ApphostServiceTesting
import Foundation
import XCTest

/// `ctl metrics` (CONTRACT O2): the host's health and each guest's cost in Prometheus' text
/// format, end to end with real workers.
final class MetricsTests: HostTestCase {
    override class var stopsHostsGracefully: Bool { true }

    // CONTRACT O2: launches, suspensions and resumes by reason, a termination, control requests by
    // verb and outcome, guests by app state, and a worker's CPU time and memory, as Prometheus
    // reads them.
    func testO2MetricsCountTheLifecycleAndShowWhatAWorkerCosts() throws {
        let host = try startBothSamples()
        var mark = host.events.count
        try ctlSucceeds("suspend", Self.swiftID)
        try host.waitForEvent("the Swift sample suspended", after: mark) {
            $0.kind == .suspended && $0.guest == Self.swiftID
        }
        mark = host.events.count
        try ctlSucceeds("resume", Self.swiftID)
        try host.waitForEvent("the Swift sample resumed", after: mark) {
            $0.kind == .resumed && $0.guest == Self.swiftID
        }
        mark = host.events.count
        try ctlSucceeds("terminate", Self.cID)
        try host.waitForEvent("the C sample terminated", after: mark) { $0.kind == .terminated && $0.guest == Self.cID }
        XCTAssertNotEqual(try ctl("suspend", "org.example.nobody").status, 0)

        let result = try ctlSucceeds("metrics")
        XCTAssertTrue(result.stdoutEndsInNewline)
        let metrics = try PrometheusText(lines: result.stdout)
        // What every guest goes through is counted by reason, not by guest (issue 19).
        XCTAssertEqual(metrics["apphost_guest_launches_total"], 2)
        XCTAssertEqual(metrics[#"apphost_guest_suspensions_total{reason="requested"}"#], 1)
        XCTAssertEqual(metrics[#"apphost_guest_resumes_total{reason="requested"}"#], 1)
        XCTAssertEqual(metrics[#"apphost_guest_terminations_total{reason="requested"}"#], 1)
        XCTAssertNil(metrics[#"apphost_guest_crashes_total{guest="\#(Self.cID)",reason="requested"}"#])
        XCTAssertEqual(metrics.types["apphost_guest_launches_total"], "counter")
        XCTAssertEqual(metrics.types["apphost_guests"], "gauge")
        // CONTRACT O4: which release this host runs, and its ABI, as Prometheus' exporters say it.
        let build = try XCTUnwrap(
            metrics.samples.first { $0.key.hasPrefix("apphost_build_info{") }, "a build_info line")
        XCTAssertEqual(build.value, 1)
        XCTAssertTrue(build.key.contains(#"abi="\#(ABIVersion.current)""#), build.key)
        XCTAssertTrue(build.key.contains(#"version=""#), build.key)

        // Control requests by verb and outcome: this scrape is not counted yet, ps was not asked.
        XCTAssertEqual(metrics[#"apphost_control_requests_total{verb="suspend",outcome="ok"}"#], 1)
        XCTAssertEqual(metrics[#"apphost_control_requests_total{verb="suspend",outcome="error"}"#], 1)
        XCTAssertEqual(metrics[#"apphost_control_requests_total{verb="terminate",outcome="ok"}"#], 1)

        // Guests by app state, as ps has them.
        let status = try status()
        for state in ["notRunning", "inactive", "active", "background", "suspended"] {
            let expected = status.guests.count { $0.appState.description == state }
            XCTAssertEqual(metrics[#"apphost_guests{state="\#(state)"}"#], Double(expected), state)
        }

        // What the Swift sample's worker costs; the terminated C sample's worker is gone.
        let pid = try XCTUnwrap(status.guest(Self.swiftID)?.pid, "the Swift sample runs in a worker")
        let resident = try XCTUnwrap(metrics[#"apphost_guest_resident_memory_bytes{guest="\#(Self.swiftID)"}"#])
        XCTAssertGreaterThan(resident, 100_000, "worker \(pid) is resident")
        // Its own cgroup's charge where one counts memory, else the same resident set.
        let memory = try XCTUnwrap(metrics[#"apphost_guest_memory_bytes{guest="\#(Self.swiftID)"}"#])
        XCTAssertGreaterThan(memory, 0)
        let cpu = try XCTUnwrap(metrics[#"apphost_guest_cpu_seconds_total{guest="\#(Self.swiftID)"}"#])
        XCTAssertGreaterThanOrEqual(cpu, 0)
        XCTAssertEqual(metrics.types["apphost_guest_cpu_seconds_total"], "counter")
        XCTAssertNil(metrics[#"apphost_guest_memory_bytes{guest="\#(Self.cID)"}"#])
        XCTAssertNil(metrics[#"apphost_guest_resident_memory_bytes{guest="\#(Self.cID)"}"#])

        // Both guests' did_finish_launching, timed from sending it to the worker's reply.
        XCTAssertEqual(metrics.types["apphost_callback_round_trip_seconds"], "histogram")
        let series = #"{callback="did_finish_launching""#
        XCTAssertEqual(metrics["apphost_callback_round_trip_seconds_count" + series + "}"], 2)
        XCTAssertEqual(metrics["apphost_callback_round_trip_seconds_bucket" + series + #",le="+Inf"}"#], 2)
        let seconds = try XCTUnwrap(metrics["apphost_callback_round_trip_seconds_sum" + series + "}"])
        XCTAssertGreaterThan(seconds, 0)
        XCTAssertLessThan(seconds, 20)

        // grep-able as is, and counted itself on the next scrape.
        XCTAssertTrue(result.stdout.contains { $0.hasPrefix("apphost_guest_launches_total ") })
        let next = try PrometheusText(lines: try ctlSucceeds("metrics").stdout)
        XCTAssertEqual(next[#"apphost_control_requests_total{verb="metrics",outcome="ok"}"#], 1)
    }

    // CONTRACT O2, X2: a guest that crashes and is restarted shows in crashes and restarts by
    // cause, as many as the event stream says.
    func testO2CrashesAndRestartsAreCountedByCause() throws {
        let dying = try TestGuests.dying(["-DFIXTURE_DIE_IN_CALLBACK"], as: "libDying.so", into: scratch.path)
        let host = try startHost(
            [dying], options: ["--restart", "on-failure", "--restart-burst", "1", "--restart-interval", "60"])
        try host.waitForEvent("the burst limit") {
            $0.kind == .error && $0.message?.hasPrefix("not restarting") == true
        }
        let events = host.events
        let metrics = try PrometheusText(lines: try ctlSucceeds("metrics").stdout)
        let guest = TestGuests.dyingID
        XCTAssertEqual(metrics[#"apphost_guest_restarts_total{guest="\#(guest)",reason="crash"}"#], 1)
        XCTAssertEqual(metrics["apphost_guest_launches_total"], 2, "the launch and its restart")
        let crashes = events.filter { $0.kind == .terminated && $0.guest == guest && $0.reason == .crash }.count
        XCTAssertGreaterThan(crashes, 0, "\(events.map(\.humanLine))")
        XCTAssertEqual(metrics[#"apphost_guest_crashes_total{guest="\#(guest)",reason="crash"}"#], Double(crashes))
        XCTAssertEqual(metrics[#"apphost_guests{state="notRunning"}"#], 1, "it stays down")
    }

    // CONTRACT O2: the text parses as Prometheus' exposition format, `--json` wraps it in a reply.
    func testO2TheExpositionIsPrometheusText() throws {
        _ = try startBothSamples()
        let text = try ctlSucceeds("metrics").stdout
        let metrics = try PrometheusText(lines: text)
        XCTAssertFalse(metrics.samples.isEmpty)
        let json = try ctlSucceeds("metrics", "--json").stdout
        XCTAssertEqual(json.count, 1)
        XCTAssertTrue(json[0].hasPrefix(##"{"text":"# HELP "##), json[0])
        // Every family says what it is.
        XCTAssertFalse(metrics.types.isEmpty)
        for family in metrics.types.keys {
            XCTAssertFalse(metrics.helps[family, default: ""].isEmpty, "\(family) has a HELP line")
        }
    }

    // CONTRACT O2: a worker's CPU time after the last scrape is counted when it exits, not lost
    // with it (issue 35: 1,500 calls, then terminate, left the counter at 0.0039 s while the worker
    // used 0.1 s).
    func testO2AWorkersLastCPUTimeIsCountedWhenItExits() throws {
        let guest = try TestGuests.actions(into: scratch.path)
        let host = try startHost([guest])
        try host.waitForEvent("the actions fixture launched") {
            $0.kind == .guestLoaded && $0.guest == TestGuests.actionsID
        }
        let pid = try XCTUnwrap(try status().guest(TestGuests.actionsID)?.pid, "it runs in a worker")
        let series = #"apphost_guest_cpu_seconds_total{guest="\#(TestGuests.actionsID)"}"#
        let before = try XCTUnwrap(try PrometheusText(lines: try ctlSucceeds("metrics").stdout)[series])
        let usedBefore = try XCTUnwrap(Self.cpuSeconds(pid: pid))

        // Calls, each a round trip through the worker, then its CPU time as /proc says it.
        let call = #"{"command":"call","guest":"\#(TestGuests.actionsID)","action":"echo-y","arguments":[5]}"# + "\n"
        let replies = try exchangeRaw(String(repeating: call, count: 5000), socketPath: dataDirectory + "/control.sock")
        XCTAssertEqual(replies.filter { $0.hasPrefix(#"{"ok":true"#) }.count, 5000)
        let used = try XCTUnwrap(Self.cpuSeconds(pid: pid)) - usedBefore
        XCTAssertGreaterThan(used, 0.02, "the calls cost the worker some CPU time")

        let mark = host.events.count
        try ctlSucceeds("terminate", TestGuests.actionsID)
        try host.waitForEvent("the fixture terminated", after: mark) {
            $0.kind == .terminated && $0.guest == TestGuests.actionsID
        }
        let after = try XCTUnwrap(try PrometheusText(lines: try ctlSucceeds("metrics").stdout)[series])
        // Its own cgroup may count a little less than /proc (not the moments before it moved in),
        // never only what was scraped before the calls.
        XCTAssertGreaterThanOrEqual(after - before, used * 0.8, "counted \(after - before) s of \(used) s")
    }

    /// utime + stime of /proc/<pid>/stat, in seconds.
    static func cpuSeconds(pid: Int32) -> Double? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    // CONTRACT O2: HTTP requests are counted by route (its pattern, not the path asked for) and
    // status, those refused before any route included; the event stream's followers are a gauge.
    func testO2HTTPRequestsAreCountedByRouteAndStatus() throws {
        let host = try startHost([BuildProducts.cSample], options: ["--http", "0", "--log-level", "info"])
        try host.waitForLog(Self.cID, "callback did_become_active", prefix: true)
        let port = try host.httpAddress().port
        let json = ["Content-Type": "application/json"]
        XCTAssertEqual(try HTTPTestClient.request("POST", "/v1/ps", port: port, headers: json).status, 200)
        XCTAssertEqual(try HTTPTestClient.request("POST", "/v1/ps", port: port, headers: json).status, 200)
        XCTAssertEqual(try HTTPTestClient.request("POST", "/v1/no-such-verb", port: port, headers: json).status, 404)
        XCTAssertEqual(try HTTPTestClient.request("POST", "/v1/ps", port: port, headers: json, body: "{").status, 400)
        // Refused before any route: no route takes DELETE.
        XCTAssertEqual(try HTTPTestClient.request("DELETE", "/v1/ps", port: port).status, 405)
        XCTAssertEqual(try HTTPTestClient.request("GET", "/nothing/here", port: port).status, 404)
        XCTAssertEqual(try HTTPTestClient.request("GET", "/healthz", port: port).status, 200)

        // A follower, held open while the metrics are read.
        let follower = try Self.follow(port: port)
        defer { close(follower) }
        let response = try HTTPTestClient.request("GET", "/metrics", port: port)
        XCTAssertEqual(response.status, 200)
        let metrics = try PrometheusText(lines: response.body.split(separator: "\n").map(String.init))
        XCTAssertEqual(metrics.types["apphost_http_requests_total"], "counter")
        let verb = #"apphost_http_requests_total{route="/v1/{verb}""#
        XCTAssertEqual(metrics[verb + #",status="200"}"#], 2)
        XCTAssertEqual(metrics[verb + #",status="404"}"#], 1, "an unknown verb, by its route")
        XCTAssertEqual(metrics[verb + #",status="400"}"#], 1)
        XCTAssertEqual(metrics[#"apphost_http_requests_total{route="unmatched",status="404"}"#], 1)
        XCTAssertEqual(metrics[#"apphost_http_requests_total{route="unmatched",status="405"}"#], 1)
        XCTAssertEqual(metrics[#"apphost_http_requests_total{route="/healthz",status="200"}"#], 1)
        XCTAssertEqual(metrics[#"apphost_http_requests_total{route="/v1/events",status="200"}"#], 1)
        XCTAssertFalse(metrics.samples.keys.contains { $0.contains("no-such-verb") || $0.contains("nothing") })
        XCTAssertEqual(metrics["apphost_http_event_followers"], 1)
        // The scrape itself is counted on the next one.
        let next = try PrometheusText(
            lines: try HTTPTestClient.request("GET", "/metrics", port: port).body.split(separator: "\n").map(
                String.init))
        XCTAssertEqual(next[#"apphost_http_requests_total{route="/metrics",status="200"}"#], 1)
        XCTAssertEqual(
            next.samples.filter { $0.key.hasPrefix("apphost_http_requests_total{") }.values.reduce(0, +), 9,
            "each request once: \(next.samples.filter { $0.key.hasPrefix("apphost_http_requests_total{") })")
    }

    /// A connection following GET /v1/events, once the stream has begun.
    static func follow(port: Int) throws -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(descriptor)
            throw POSIXError(.ECONNREFUSED)
        }
        try sendRaw("GET /v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", on: descriptor)
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var received = ""
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !received.contains("following events") {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            guard count > 0 else {
                close(descriptor)
                throw POSIXError(.EIO)
            }
            received += String(decoding: buffer[..<count], as: UTF8.self)
        }
        return descriptor
    }
}

/// Every counter at 0 before its first increment, and the host's process, in both isolation
/// modes (issue 35: `increase(apphost_guest_overruns_total[3m])` stayed 0 for the first overrun,
/// as the series appeared with it).
class MetricsFromTheStartCases: HostTestCase {
    override class var stopsHostsGracefully: Bool { true }

    // CONTRACT O2: a fresh host's counters are all there at 0, each guest's from its launch; the
    // host's process is reported as every Prometheus client reports its own; promtool passes it.
    func everyCounterIsThereAtZeroFromTheStart() throws {
        let promtool = try XCTUnwrap(
            OpenAPITests.executable("promtool"),
            "promtool is not installed: scripts/setup installs it (Debian's prometheus)")
        let host = try startHost([BuildProducts.cSample])
        try host.waitForLog(Self.cID, "callback did_become_active", prefix: true)
        let result = try ctlSucceeds("metrics")
        let metrics = try PrometheusText(lines: result.stdout)
        let guest = #"guest="\#(Self.cID)""#
        // What goes wrong with a guest, and what it costs, at 0 from its launch.
        for series in [
            "apphost_guest_overruns_total{\(guest)}", #"apphost_guest_crashes_total{\#(guest),reason="crash"}"#,
            #"apphost_guest_crashes_total{\#(guest),reason="watchdog"}"#, "apphost_guest_watchdog_hits_total{\(guest)}",
            "apphost_guest_suspensions_by_guest_total{\(guest)}", "apphost_guest_save_failures_total{\(guest)}",
            "apphost_guest_task_expirations_total{\(guest)}", "apphost_guest_notifications_refused_total{\(guest)}",
            "apphost_guest_audio_xruns_total{\(guest)}", "apphost_guest_audio_bad_samples_total{\(guest)}",
            "apphost_guest_launch_failures_total{\(guest)}", #"apphost_guest_restarts_total{\#(guest),reason="crash"}"#,
            "apphost_guest_sandbox_refusals_total{\(guest)}",
            // The host's, from its start: every reason, every verb.
            #"apphost_guest_terminations_total{reason="crash"}"#,
            #"apphost_guest_suspensions_total{reason="budgetExpired"}"#,
            #"apphost_guest_resumes_total{reason="requested"}"#,
            #"apphost_control_requests_total{verb="ps",outcome="error"}"#,
            "apphost_audio_mixer_overruns_total", "apphost_event_lines_dropped_total",
            "apphost_http_event_followers_dropped_total", "apphost_http_event_followers",
        ] {
            XCTAssertEqual(metrics[series], 0, series)
        }
        XCTAssertEqual(metrics["apphost_guest_launches_total"], 1)
        XCTAssertEqual(metrics.types["apphost_guest_overruns_total"], "counter")
        XCTAssertNotNil(metrics["apphost_guest_cpu_seconds_total{\(guest)}"])

        // The host's process, named as the Go and Python clients name theirs.
        XCTAssertGreaterThan(try XCTUnwrap(metrics["process_cpu_seconds_total"]), 0)
        XCTAssertEqual(metrics.types["process_cpu_seconds_total"], "counter")
        XCTAssertGreaterThan(try XCTUnwrap(metrics["process_resident_memory_bytes"]), 1_000_000)
        XCTAssertGreaterThan(
            try XCTUnwrap(metrics["process_virtual_memory_bytes"]),
            try XCTUnwrap(metrics["process_resident_memory_bytes"]))
        let open = try XCTUnwrap(metrics["process_open_fds"])
        XCTAssertGreaterThan(open, 3, "at least its standard streams and the control socket")
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(metrics["process_max_fds"]), open)
        let started = try XCTUnwrap(metrics["process_start_time_seconds"])
        XCTAssertLessThanOrEqual(started, Date().timeIntervalSince1970)
        XCTAssertGreaterThan(started, Date().timeIntervalSince1970 - 3600, "this test's host started it")

        // promtool, as an operator checks an exporter: parses, and nothing to lint.
        let file = scratch.path + "/metrics.txt"
        try (result.stdout.joined(separator: "\n") + "\n").write(toFile: file, atomically: false, encoding: .utf8)
        let check = try runCommand("/bin/sh", ["-c", "\"$0\" check metrics < \"$1\"", promtool, file])
        XCTAssertEqual(check.status, 0, (check.stdout + check.stderr).joined(separator: "\n"))
        XCTAssertEqual(check.stdout + check.stderr, [], "promtool finds nothing to lint")
    }
}

final class MetricsFromTheStartTests: MetricsFromTheStartCases {
    func testO2EveryCounterIsThereAtZeroFromTheStart() throws { try everyCounterIsThereAtZeroFromTheStart() }
}

/// The same, with the guest in the host's process.
final class MetricsFromTheStartInProcessTests: MetricsFromTheStartCases {
    override class var isolation: String? { "none" }

    func testO2EveryCounterIsThereAtZeroFromTheStart() throws { try everyCounterIsThereAtZeroFromTheStart() }
}

/// Prometheus' text exposition format, checked line by line as promtool would: `# HELP` and
/// `# TYPE` comments, and samples `name{label="value",...} value`, each of a family typed before
/// (a histogram's `_bucket`, `_sum` and `_count` samples are of the histogram's family).
struct PrometheusText {
    var samples: [String: Double] = [:]
    var types: [String: String] = [:]
    /// Each family's help text, from its `# HELP` line.
    var helps: [String: String] = [:]

    subscript(series: String) -> Double? { samples[series] }

    init(lines: [String], file: StaticString = #filePath, line: UInt = #line) throws {
        let name = "[a-zA-Z_:][a-zA-Z0-9_:]*"
        let label = #"[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\.)*""#
        let sample = try Regex("^(\(name))(\\{\(label)(?:,\(label))*\\})? (\\S+)$")
        let type = try Regex("^# TYPE (\(name)) (counter|gauge|histogram|summary|untyped)$")
        let help = try Regex("^# HELP (\(name)) (.*)$")
        for text in lines where !text.isEmpty {
            if let match = try type.wholeMatch(in: text) {
                let family = String(match[1].substring ?? "")
                XCTAssertNil(types[family], "\(family) is typed once", file: file, line: line)
                types[family] = String(match[2].substring ?? "")
            } else if let match = try help.wholeMatch(in: text) {
                let family = String(match[1].substring ?? "")
                XCTAssertNil(helps[family], "\(family) has one HELP line", file: file, line: line)
                XCTAssertNil(types[family], "\(family)'s HELP comes before its TYPE", file: file, line: line)
                helps[family] = String(match[2].substring ?? "")
            } else if text.hasPrefix("# ") {
                continue
            } else if let match = try sample.wholeMatch(in: text) {
                let name = String(match[1].substring ?? "")
                let value = String(match[3].substring ?? "")
                let family = Self.family(of: name, types: types)
                XCTAssertNotNil(types[family], "\(family) has a TYPE line before its samples", file: file, line: line)
                let number = Double(value) ?? ["+Inf": .infinity, "-Inf": -.infinity, "NaN": .nan][value]
                guard let number else {
                    XCTFail("\(text): \(value) is not a number", file: file, line: line)
                    continue
                }
                let series = name + String(match[2].substring ?? "")
                XCTAssertNil(samples[series], "\(series) once", file: file, line: line)
                samples[series] = number
            } else {
                XCTFail("not Prometheus text: \(text)", file: file, line: line)
            }
        }
    }

    /// The family a sample named `name` belongs to: itself, or the histogram or summary whose
    /// `_bucket`, `_sum` or `_count` it is.
    private static func family(of name: String, types: [String: String]) -> String {
        guard types[name] == nil else { return name }
        for suffix in ["_bucket", "_sum", "_count"] where name.hasSuffix(suffix) {
            let family = String(name.dropLast(suffix.count))
            if types[family] == "histogram" || types[family] == "summary" { return family }
        }
        return name
    }
}
