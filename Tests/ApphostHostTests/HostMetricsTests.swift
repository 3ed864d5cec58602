import ApphostModel
import ApphostVocabulary
import Foundation
import Logging
import XCTest

@testable import ApphostFreezing
@testable import ApphostService

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
            // Every guest's routine: by reason only, to bound the series (issue 19).
            #"apphost_guest_launches_total"#: "3",
            #"apphost_guest_suspensions_total{reason="requested"}"#: "1",
            #"apphost_guest_suspensions_total{reason="watchdog"}"#: "1",
            #"apphost_guest_resumes_total{reason="requested"}"#: "1",
            #"apphost_guest_terminations_total{reason="crash"}"#: "1",
            #"apphost_guest_terminations_total{reason="requested"}"#: "1",
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
        // Not in a cgroup of its own: its memory is its resident set.
        XCTAssertEqual(first[#"apphost_guest_memory_bytes{guest="a"}"#].flatMap(Double.init), memory)
        let cpu = try XCTUnwrap(first[#"apphost_guest_cpu_seconds_total{guest="a"}"#].flatMap(Double.init))
        XCTAssertGreaterThanOrEqual(cpu, 0)
        XCTAssertNil(first[#"apphost_guest_memory_bytes{guest="b"}"#], "no worker, no cost of its own")
        XCTAssertNil(first[#"apphost_guest_resident_memory_bytes{guest="b"}"#])

        // Spend CPU time: the counter follows the process's.
        let start = clock()
        while clock() - start < 60 * CLOCKS_PER_SEC / 1000 {}
        let second = samples(metrics.exposition(status: status([("a", .background, getpid())])))
        let later = try XCTUnwrap(second[#"apphost_guest_cpu_seconds_total{guest="a"}"#].flatMap(Double.init))
        XCTAssertGreaterThanOrEqual(later - cpu, 0.04)
        XCTAssertNil(second[#"apphost_guest_memory_bytes{guest="b"}"#])

        // Gone: its memory is no longer a level; its CPU time stays counted.
        let third = samples(metrics.exposition(status: status([])))
        XCTAssertNil(third[#"apphost_guest_memory_bytes{guest="a"}"#])
        XCTAssertNil(third[#"apphost_guest_resident_memory_bytes{guest="a"}"#])
        XCTAssertEqual(third[#"apphost_guest_cpu_seconds_total{guest="a"}"#].flatMap(Double.init), later)
        XCTAssertEqual(third[#"apphost_guests{state="background"}"#], "0.0")
    }

    // A callback's round trip, as the core measured it, in buckets from 25 µs to 5 s by guest and
    // callback; every action in one series.
    func testO2CallbackRoundTripsAreAHistogramByCallback() {
        let metrics = HostMetrics()
        for (callback, duration) in [
            ("did_enter_background", Duration.microseconds(40)), ("did_enter_background", .milliseconds(3)),
            ("action go", .seconds(1)), ("action stop", .seconds(7)),
        ] {
            metrics.measured(.callbackRoundTrip(guest: "a", callback: callback, duration: duration))
        }
        let text = metrics.exposition(status: status([]))
        XCTAssertTrue(text.contains("# TYPE apphost_callback_round_trip_seconds histogram\n"), text)
        let found = samples(text).compactMapValues(Double.init)
        let background = #"callback="did_enter_background""#
        let expected: [String: Double] = [
            #"apphost_callback_round_trip_seconds_bucket{\#(background),le="0.000025"}"#: 0,
            #"apphost_callback_round_trip_seconds_bucket{\#(background),le="0.00005"}"#: 1,
            #"apphost_callback_round_trip_seconds_bucket{\#(background),le="0.0025"}"#: 1,
            #"apphost_callback_round_trip_seconds_bucket{\#(background),le="0.005"}"#: 2,
            #"apphost_callback_round_trip_seconds_bucket{\#(background),le="+Inf"}"#: 2,
            #"apphost_callback_round_trip_seconds_count{\#(background)}"#: 2,
            #"apphost_callback_round_trip_seconds_sum{\#(background)}"#: 0.00304,
            #"apphost_callback_round_trip_seconds_bucket{callback="action",le="1.0"}"#: 1,
            #"apphost_callback_round_trip_seconds_bucket{callback="action",le="5.0"}"#: 1,
            #"apphost_callback_round_trip_seconds_bucket{callback="action",le="+Inf"}"#: 2,
            #"apphost_callback_round_trip_seconds_sum{callback="action"}"#: 8,
        ]
        for (series, value) in expected {
            XCTAssertEqual(found[series] ?? -1, value, accuracy: 1e-9, series)
        }
        let buckets = found.keys.filter { $0.hasPrefix("apphost_callback_round_trip_seconds_bucket{\(background)") }
        XCTAssertEqual(buckets.count, HostMetrics.roundTripBuckets.count + 1, "\(buckets.sorted())")
        XCTAssertFalse(found.keys.contains { $0.contains(#"callback="action go""#) }, "actions are one series")
    }

    // CONTRACT X7 O2: a guest's bad audio samples, as the core measures them at each meter
    // reading, add up by guest.
    func testX7BadAudioSamplesAreCountedByGuest() {
        let metrics = HostMetrics()
        metrics.measured(.audioBadSamples(guest: "a", count: 3))
        metrics.measured(.audioBadSamples(guest: "a", count: 4))
        metrics.measured(.audioBadSamples(guest: "b", count: 1))
        let text = metrics.exposition(status: status([("a", .background, getpid())]))
        XCTAssertTrue(text.contains(#"apphost_guest_audio_bad_samples_total{guest="a"} 7"#), text)
        XCTAssertTrue(text.contains(#"apphost_guest_audio_bad_samples_total{guest="b"} 1"#), text)
    }

    // CONTRACT O2: every counter is there at 0 before its first increment, so that an alert on
    // `increase(...)` sees the first one: the host's from its start (every reason, every verb),
    // a guest's from its launch, which a relaunch does not reset (issue 35).
    func testO2EveryCounterIsThereAtZeroFromTheStart() {
        let metrics = HostMetrics()
        let fresh = samples(metrics.exposition(status: status([])))
        for series in [
            "apphost_guest_launches_total", #"apphost_guest_terminations_total{reason="crash"}"#,
            #"apphost_guest_suspensions_total{reason="budgetExpired"}"#,
            #"apphost_guest_resumes_total{reason="automatic"}"#,
            #"apphost_control_requests_total{verb="switch",outcome="error"}"#,
            #"apphost_control_requests_total{verb="events",outcome="ok"}"#, "apphost_audio_mixer_overruns_total",
            "apphost_event_lines_dropped_total", "apphost_http_event_followers_dropped_total",
        ] {
            XCTAssertEqual(fresh[series], "0", series)
        }
        XCTAssertEqual(fresh["apphost_http_event_followers"], "0.0")
        XCTAssertFalse(fresh.keys.contains { $0.contains(#"guest="a""#) }, "no guest yet")
        XCTAssertNotNil(fresh["process_cpu_seconds_total"])
        XCTAssertNotNil(fresh["process_start_time_seconds"])

        metrics.observe(event(.guestLoaded, "a"))
        let launched = samples(metrics.exposition(status: status([("a", .active, nil)])))
        for family in GuestFamily.allCases {
            let name = family.family.name
            let reasons: [String?] = family.family.reasons.isEmpty ? [nil] : family.family.reasons
            for reason in reasons {
                let series = "\(name){guest=\"a\"" + (reason.map { ",reason=\"\($0)\"" } ?? "") + "}"
                XCTAssertEqual(launched[series].flatMap(Double.init), 0, series)
            }
        }
        metrics.observe(event(.overrun, "a", reason: .budgetExpired))
        metrics.observe(event(.suspended, "a", reason: .budgetExpired))
        metrics.observe(event(.stateSaveFailed, "a"))
        metrics.observe(event(.guestLoaded, "a"))
        metrics.measured(.audioMixerOverruns(count: 2))
        metrics.controlRequest(verb: "switch", succeeded: false)
        let later = samples(metrics.exposition(status: status([("a", .active, nil)]), droppedEventLines: 5))
        XCTAssertEqual(later[#"apphost_guest_overruns_total{guest="a"}"#], "1", "a relaunch resets nothing")
        XCTAssertEqual(later[#"apphost_guest_suspensions_by_guest_total{guest="a"}"#], "1")
        XCTAssertEqual(later[#"apphost_guest_suspensions_total{reason="budgetExpired"}"#], "1")
        XCTAssertEqual(later[#"apphost_guest_save_failures_total{guest="a"}"#], "1")
        XCTAssertEqual(later[#"apphost_guest_crashes_total{guest="a",reason="crash"}"#], "0")
        XCTAssertEqual(later["apphost_audio_mixer_overruns_total"], "2")
        XCTAssertEqual(later[#"apphost_control_requests_total{verb="switch",outcome="error"}"#], "1")
        XCTAssertEqual(later["apphost_event_lines_dropped_total"], "5")
        XCTAssertEqual(later["apphost_guest_launches_total"], "2")
        // The dropped lines are a total read when scraped: counted once.
        let again = samples(metrics.exposition(status: status([]), droppedEventLines: 7))
        XCTAssertEqual(again["apphost_event_lines_dropped_total"], "7")
    }

    // CONTRACT O2: the host's own process as the Prometheus clients report theirs.
    func testO2TheHostsProcessIsReported() throws {
        let metrics = HostMetrics()
        let found = samples(metrics.exposition(status: status([])))
        let cpu = try XCTUnwrap(found["process_cpu_seconds_total"].flatMap(Double.init))
        XCTAssertGreaterThan(cpu, 0)
        XCTAssertGreaterThan(try XCTUnwrap(found["process_resident_memory_bytes"].flatMap(Double.init)), 1_000_000)
        XCTAssertGreaterThan(try XCTUnwrap(found["process_virtual_memory_bytes"].flatMap(Double.init)), 1_000_000)
        let opened = try XCTUnwrap(found["process_open_fds"].flatMap(Double.init))
        XCTAssertGreaterThanOrEqual(opened, 3)
        let descriptors = (0..<8).map { _ in Glibc.open("/dev/null", O_RDONLY) }
        defer { for descriptor in descriptors { close(descriptor) } }
        XCTAssertGreaterThanOrEqual(
            try XCTUnwrap(samples(metrics.exposition(status: status([])))["process_open_fds"].flatMap(Double.init)),
            opened + 8, "eight more open")
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        XCTAssertEqual(found["process_max_fds"].flatMap(Double.init), Double(limit.rlim_cur))
        XCTAssertGreaterThanOrEqual(Double(limit.rlim_cur), opened)
        let started = try XCTUnwrap(found["process_start_time_seconds"].flatMap(Double.init))
        XCTAssertLessThanOrEqual(started, Date().timeIntervalSince1970)
        XCTAssertGreaterThan(started, Date().timeIntervalSince1970 - 86_400)
        // Spend CPU time: the counter follows.
        let start = clock()
        while clock() - start < 60 * CLOCKS_PER_SEC / 1000 {}
        let later = try XCTUnwrap(
            samples(metrics.exposition(status: status([])))["process_cpu_seconds_total"].flatMap(Double.init))
        XCTAssertGreaterThanOrEqual(later - cpu, 0.04)
    }

    // CONTRACT O2: what a worker used after the last scrape is counted when it exits; a scrape
    // that still finds its pid (gone) counts nothing twice; a new worker of the guest starts anew.
    func testO2AWorkersCPUTimeAtItsExitIsCounted() throws {
        let metrics = HostMetrics()
        let series = #"apphost_guest_cpu_seconds_total{guest="a"}"#
        metrics.observe(event(.guestLoaded, "a"))
        XCTAssertEqual(samples(metrics.exposition(status: status([("a", .active, nil)])))[series], "0.0")
        // Worker 999999 (no such process) exits having used 2.5 s, never scraped: all of it counts.
        metrics.workerExited(guest: "a", pid: 999_999, cpuSeconds: 2.5)
        XCTAssertEqual(samples(metrics.exposition(status: status([("a", .active, 999_999)])))[series], "2.5")
        // This process as its next worker: scraped, then "exits" having used 1.5 s more.
        let first = samples(metrics.exposition(status: status([("a", .active, getpid())])))
        let scraped = try XCTUnwrap(first[series].flatMap(Double.init)) - 2.5
        metrics.workerExited(guest: "a", pid: getpid(), cpuSeconds: scraped + 1.5)
        let total = try XCTUnwrap(
            samples(metrics.exposition(status: status([("a", .notRunning, nil)])))[series].flatMap(Double.init))
        XCTAssertEqual(total, 2.5 + scraped + 1.5, accuracy: 1e-9)
    }

    // Every family says what it is: a `# HELP` line before its `# TYPE` line.
    func testO2EveryFamilyHasHelpText() throws {
        let metrics = HostMetrics()
        for kind: HostEvent.Kind in [
            .guestLoaded, .launchFailed, .terminated, .restarting, .suspended, .resumed, .overrun, .taskExpired,
            .watchdog, .notificationRefused, .audioXrun,
        ] {
            metrics.observe(event(kind, "a", reason: .crash))
        }
        metrics.observe(event(.callback, "a", name: "action go"))
        metrics.controlRequest(verb: "ps", succeeded: true)
        metrics.measured(.callbackRoundTrip(guest: "a", callback: "will_resign_active", duration: .milliseconds(1)))
        metrics.measured(.audioBadSamples(guest: "a", count: 3))
        metrics.recordBuild(version: "1.2.3", abi: "1.6.0")
        metrics.recordIdentity(
            HostIdentity(id: HostIdentity.makeID(), hostname: "here", version: "1.2.3", started: Date()))
        metrics.httpRequest(route: "/v1/{verb}", status: 200)
        let lines = metrics.exposition(status: status([("a", .background, getpid())])).split(separator: "\n")
        let typed = lines.filter { $0.hasPrefix("# TYPE ") }.map { $0.split(separator: " ")[2] }
        let families = HostMetricFamily.all.map { ($0.name, $0.help) } + GuestFamily.all.map { ($0.name, $0.help) }
        XCTAssertEqual(typed.count, families.count, "every family, once each")
        XCTAssertEqual(Set(typed), Set(families.map { Substring($0.0) }), "every family, once each")
        for (name, help) in families {
            let family = (name: name, help: help)
            let help = try XCTUnwrap(
                lines.firstIndex { $0.hasPrefix("# HELP \(family.name) ") }, "\(family.name) has a HELP line")
            let type = try XCTUnwrap(lines.firstIndex { $0.hasPrefix("# TYPE \(family.name) ") })
            XCTAssertEqual(help + 1, type, "\(family.name): HELP just before TYPE")
            XCTAssertEqual(lines[help], "# HELP \(family.name) \(family.help)")
            XCTAssertGreaterThan(family.help.count, 20, family.name)
        }
    }

    // A worker in cgroups of its own: CPU time and memory come from what they count, each from the
    // first that counts it (v2 before v1), and what none counts from /proc.
    func testO2AWorkerCostsWhatItsOwnCgroupsCount() throws {
        let pid = getpid()
        let mountinfo = """
            31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
            33 31 0:30 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct
            35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
            41 31 0:38 /ctr /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
            """
        let worker = "apphost-1/worker-\(pid)"
        func reader(_ files: [String: String]) -> WorkerCgroupReader {
            WorkerCgroupReader(mountinfo: mountinfo, readFile: { files[$0] })
        }
        // v2 (a mount showing part of the hierarchy) counts CPU time; v1's memory hierarchy memory.
        let both = reader([
            "/proc/\(pid)/cgroup": "4:memory:/\(worker)\n2:cpuacct:/\n0::/ctr/\(worker)\n",
            "/sys/fs/cgroup/unified/\(worker)/cpu.stat": "usage_usec 2500000\nuser_usec 2000000\nsystem_usec 500000\n",
            "/sys/fs/cgroup/memory/\(worker)/memory.usage_in_bytes": "7340032\n",
            "/sys/fs/cgroup/cpuacct/cpuacct.usage": "999000000000\n",
        ])
        XCTAssertEqual(both.usage(of: pid), WorkerCgroupUsage(cpuSeconds: 2.5, memoryBytes: 7_340_032))
        // v2 with its memory controller, and v1's cpuacct, each wherever the other does not count.
        XCTAssertEqual(
            reader([
                "/proc/\(pid)/cgroup": "2:cpuacct:/\(worker)\n0::/ctr/\(worker)\n",
                "/sys/fs/cgroup/unified/\(worker)/memory.current": "4096\n",
                "/sys/fs/cgroup/cpuacct/\(worker)/cpuacct.usage": "1500000000\n",
            ]).usage(of: pid), WorkerCgroupUsage(cpuSeconds: 1.5, memoryBytes: 4096))
        // The host's cgroup, or another worker's, is not this worker's own: nothing.
        XCTAssertEqual(
            reader([
                "/proc/\(pid)/cgroup": "4:memory:/apphost-1/worker-1\n0::/ctr\n",
                "/sys/fs/cgroup/unified/cpu.stat": "usage_usec 1\n",
                "/sys/fs/cgroup/memory/apphost-1/worker-1/memory.usage_in_bytes": "1\n",
            ]).usage(of: pid), WorkerCgroupUsage())

        // The metrics take CPU time from the cgroup and memory from /proc when no cgroup counts it.
        let metrics = HostMetrics(
            registry: .init(),
            cgroups: reader([
                "/proc/\(pid)/cgroup": "0::/ctr/\(worker)\n",
                "/sys/fs/cgroup/unified/\(worker)/cpu.stat": "usage_usec 123000000\n",
            ]))
        let found = samples(metrics.exposition(status: status([("a", .background, pid)])))
        XCTAssertEqual(found[#"apphost_guest_cpu_seconds_total{guest="a"}"#].flatMap(Double.init), 123)
        let memory = try XCTUnwrap(found[#"apphost_guest_memory_bytes{guest="a"}"#].flatMap(Double.init))
        XCTAssertGreaterThan(memory, 1_000_000, "this process's resident memory")
        XCTAssertEqual(found[#"apphost_guest_resident_memory_bytes{guest="a"}"#].flatMap(Double.init), memory)
    }

    // For real, in this machine's cgroup v2 hierarchy: a worker's cgroup counts the CPU time of a
    // process it started, which the worker's /proc does not show.
    func testO2AWorkersCgroupCountsWhatItsChildrenSpend() throws {
        guard
            case .success(let base) = CgroupLocation.v2Directory(
                mountinfo: try KernelFile.read("/proc/self/mountinfo"),
                cgroups: try KernelFile.read("/proc/self/cgroup")),
            access(base, W_OK) == 0
        else { throw XCTSkip("no writable cgroup v2 hierarchy here") }
        let cgroups = WorkerCgroups(base: base, hostPID: getpid(), logger: Logger(label: "test"))
        // The shell only waits; the subshell it starts, once adopted, spins.
        let strings = ["sh", "-c", "sleep 0.3; (while :; do :; done) & wait"]
        let arguments = strings.map { strdup($0) as UnsafeMutablePointer<CChar>? } + [nil]
        defer { for argument in arguments { free(argument) } }
        var pid: pid_t = 0
        // In a process group of its own, so that the spinning subshell goes with the shell: a
        // subshell left orphaned spun on, and, once this process had become a subreaper (as a
        // host does for its workers), stayed its zombie child for the worker tests to find.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
        posix_spawnattr_setpgroup(&attributes, 0)
        XCTAssertEqual(posix_spawn(&pid, "/bin/sh", nil, &attributes, arguments, environ), 0)
        defer {
            cgroups.release(pid: pid)
            kill(-pid, SIGKILL)
            // The shell, and the subshell if it was handed to this process.
            while waitpid(-pid, nil, 0) > 0 {}
        }
        try cgroups.adopt(pid: pid)

        let metrics = HostMetrics()
        let series = #"apphost_guest_cpu_seconds_total{guest="a"}"#
        var cpu = 0.0
        _ = try Polling.until(timeout: .seconds(5)) { () throws(FreezeError) in
            cpu =
                samples(metrics.exposition(status: status([("a", .background, pid)])))[series].flatMap(Double.init)
                ?? 0
            return cpu >= 0.3
        }
        XCTAssertGreaterThanOrEqual(cpu, 0.3, "the spinning subshell's CPU time is the worker's")
        let own = try XCTUnwrap(ProcessUsage.read(pid: pid))
        XCTAssertLessThan(own.cpuSeconds, 0.1, "the shell itself only waits")
    }
}
