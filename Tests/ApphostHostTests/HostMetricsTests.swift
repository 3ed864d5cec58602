import ApphostHost
import ApphostModel
import Foundation
import XCTest

@testable import ApphostCore

/// HostMetrics on its own: what it counts of the host's events, and what it reads of a worker
/// when scraped (CONTRACT O2). End to end through `ctl metrics`: Tests/ApphostCLITests/MetricsTests.swift.
final class HostMetricsTests: XCTestCase {
    private func event(
        _ kind: HostEvent.Kind, _ guest: String?, reason: TransitionReason? = nil, name: String? = nil
    ) -> HostEvent {
        HostEvent(time: Date(), kind: kind, guest: guest, reason: reason, name: name)
    }

    /// The exposition's sample lines, by series (name and labels), each value as its text.
    private func samples(_ text: String) -> [String: String] {
        var samples: [String: String] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " ") else {
                XCTFail("not a sample line: \(line)")
                continue
            }
            samples[String(line[..<space])] = String(line[line.index(after: space)...])
        }
        return samples
    }

    private func status(_ guests: [(id: String, state: AppState, pid: Int32?)]) -> HostStatus {
        HostStatus(
            foreground: nil, alert: false,
            guests: guests.map { guest in
                var status = GuestStatus(
                    id: guest.id, name: guest.id, version: "1", path: "/x.so", appState: guest.state,
                    phase: .running, lastReason: .requested, since: Date(), scenes: [],
                    restart: RestartStatus(policy: .never, restarts: 0, gaveUp: false), backgroundTimeRemaining: nil,
                    tasks: [], suspension: nil)
                status.pid = guest.pid
                return status
            }, display: "1280x800", layout: Layout())
    }

    func testO2EventsAreCountedByGuestAndReason() {
        let metrics = HostMetrics()
        for event in [
            event(.guestLoaded, "a"), event(.guestLoaded, "a"), event(.guestLoaded, "b"),
            event(.suspended, "a", reason: .requested), event(.suspended, "a", reason: .watchdog),
            event(.resumed, "a", reason: .requested), event(.terminated, "b", reason: .crash),
            event(.terminated, "a", reason: .requested), event(.restarting, "b", reason: .crash),
            event(.overrun, "a", reason: .budgetExpired), event(.taskExpired, "a", reason: .budgetExpired),
            event(.watchdog, "b", reason: .watchdog), event(.notificationRefused, "a"),
            event(.callback, "a", name: "action go"), event(.callback, "a", name: "did_enter_background"),
            event(.audioXrun, "a", name: "3"), event(.log, "a"),
        ] {
            metrics.observe(event)
        }
        metrics.controlRequest(verb: "ps", succeeded: true)
        metrics.controlRequest(verb: "switch", succeeded: false)
        let found = samples(metrics.exposition(status: status([])))
        let expected = [
            #"apphost_guest_launches_total{guest="a"}"#: "2",
            #"apphost_guest_launches_total{guest="b"}"#: "1",
            #"apphost_guest_suspensions_total{guest="a",reason="requested"}"#: "1",
            #"apphost_guest_suspensions_total{guest="a",reason="watchdog"}"#: "1",
            #"apphost_guest_resumes_total{guest="a",reason="requested"}"#: "1",
            #"apphost_guest_terminations_total{guest="b",reason="crash"}"#: "1",
            #"apphost_guest_terminations_total{guest="a",reason="requested"}"#: "1",
            #"apphost_guest_crashes_total{guest="b",reason="crash"}"#: "1",
            #"apphost_guest_restarts_total{guest="b",reason="crash"}"#: "1",
            #"apphost_guest_overruns_total{guest="a"}"#: "1",
            #"apphost_guest_task_expirations_total{guest="a"}"#: "1",
            #"apphost_guest_watchdog_hits_total{guest="b"}"#: "1",
            #"apphost_guest_notifications_refused_total{guest="a"}"#: "1",
            #"apphost_guest_action_calls_total{guest="a",action="go"}"#: "1",
            #"apphost_guest_audio_xruns_total{guest="a"}"#: "3",
            #"apphost_control_requests_total{verb="ps",outcome="ok"}"#: "1",
            #"apphost_control_requests_total{verb="switch",outcome="error"}"#: "1",
        ]
        for (series, value) in expected {
            XCTAssertEqual(found[series], value, series)
        }
        XCTAssertNil(found[#"apphost_guest_crashes_total{guest="a",reason="requested"}"#], "asked to go: no crash")
        XCTAssertEqual(
            found.keys.filter { $0.hasPrefix("apphost_guest_action_calls_total") }.count, 1, "callbacks are no actions")
    }

    func testO2GuestsByStateAndWhatAWorkerCosts() throws {
        let metrics = HostMetrics()
        // This test's own process stands for a worker; "b" runs in the host's process.
        let first = samples(
            metrics.exposition(status: status([("a", .background, getpid()), ("b", .active, nil)])))
        XCTAssertEqual(first[#"apphost_guests{state="background"}"#], "1.0")
        XCTAssertEqual(first[#"apphost_guests{state="active"}"#], "1.0")
        XCTAssertEqual(first[#"apphost_guests{state="suspended"}"#], "0.0")
        let memory = try XCTUnwrap(first[#"apphost_guest_resident_memory_bytes{guest="a"}"#].flatMap(Double.init))
        XCTAssertGreaterThan(memory, 1_000_000, "this process is resident in more than a megabyte")
        let cpu = try XCTUnwrap(first[#"apphost_guest_cpu_seconds_total{guest="a"}"#].flatMap(Double.init))
        XCTAssertGreaterThanOrEqual(cpu, 0)
        XCTAssertNil(first[#"apphost_guest_resident_memory_bytes{guest="b"}"#], "no worker, no cost of its own")

        // Spend CPU time: the counter follows the process's.
        let start = clock()
        while clock() - start < 60 * CLOCKS_PER_SEC / 1000 {}
        let second = samples(metrics.exposition(status: status([("a", .background, getpid())])))
        let later = try XCTUnwrap(second[#"apphost_guest_cpu_seconds_total{guest="a"}"#].flatMap(Double.init))
        XCTAssertGreaterThanOrEqual(later - cpu, 0.04)
        XCTAssertNil(second[#"apphost_guest_resident_memory_bytes{guest="b"}"#])

        // Gone: its memory is no longer a level; its CPU time stays counted.
        let third = samples(metrics.exposition(status: status([])))
        XCTAssertNil(third[#"apphost_guest_resident_memory_bytes{guest="a"}"#])
        XCTAssertEqual(third[#"apphost_guest_cpu_seconds_total{guest="a"}"#].flatMap(Double.init), later)
        XCTAssertEqual(third[#"apphost_guests{state="background"}"#], "0.0")
    }
}
