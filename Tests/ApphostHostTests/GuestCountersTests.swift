import XCTest

@testable import ApphostService

/// GuestCounters on its own: each guest's series at 0 from its first `add`, its reasons made
/// beforehand, the text in Prometheus' format with guests in order (CONTRACT O2).
final class GuestCountersTests: XCTestCase {
    private let families = [
        GuestCounters.Family("x_crashes_total", "Crashes.\nTwo lines \\ here.", reasons: ["crash", "watchdog"]),
        GuestCounters.Family("x_cpu_seconds_total", "CPU.", whole: false),
    ]

    func testO2AGuestsSeriesAreThereAtZeroFromItsLaunch() {
        var counters = GuestCounters(families: families)
        XCTAssertEqual(
            counters.exposition(),
            "# HELP x_crashes_total Crashes.\\nTwo lines \\\\ here.\n# TYPE x_crashes_total counter\n"
                + "# HELP x_cpu_seconds_total CPU.\n# TYPE x_cpu_seconds_total counter\n")
        counters.add("b")
        counters.count(0, "a\"\\\n", reason: "crash", by: 2)
        counters.count(0, "b", reason: "memory", by: 1)
        counters.count(1, "b", by: 0.25)
        counters.count(1, "b", by: -1)
        // A relaunch's add keeps what was counted.
        counters.add("b")
        XCTAssertEqual(
            counters.exposition(),
            """
            # HELP x_crashes_total Crashes.\\nTwo lines \\\\ here.
            # TYPE x_crashes_total counter
            x_crashes_total{guest="a\\"\\\\\\n",reason="crash"} 2
            x_crashes_total{guest="a\\"\\\\\\n",reason="watchdog"} 0
            x_crashes_total{guest="b",reason="crash"} 0
            x_crashes_total{guest="b",reason="memory"} 1
            x_crashes_total{guest="b",reason="watchdog"} 0
            # HELP x_cpu_seconds_total CPU.
            # TYPE x_cpu_seconds_total counter
            x_cpu_seconds_total{guest="a\\"\\\\\\n"} 0.0
            x_cpu_seconds_total{guest="b"} 0.25

            """)
        XCTAssertEqual(counters.value(1, "b"), 0.25)
        XCTAssertNil(counters.value(1, "c"))
        // Alone: that series only, as for a launch that failed before the guest said who it is.
        counters.count(1, "", by: 1, alone: true)
        XCTAssertEqual(counters.value(1, ""), 1)
        XCTAssertNil(counters.value(0, "", reason: "crash"))
    }
}
