import ApphostCore
import ApphostModel
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
