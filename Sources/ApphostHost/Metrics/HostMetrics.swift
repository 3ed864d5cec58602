import ApphostCore
import ApphostFreezing
import ApphostModel
import CoreMetrics
import Prometheus
import Synchronization

/// The host's metrics (CONTRACT O2), in one Prometheus registry that this host owns: no global
/// bootstrap of swift-metrics, so that hosts in one process (the tests') keep theirs apart.
/// `ctl metrics` prints the registry's text exposition, and an HTTP server may serve the same
/// registry at /metrics.
///
/// It counts what the host's event stream says (``observe(_:)``), keeps what the core measures
/// (``measured(_:)``: callbacks' round trips), and reads what is a level, the guests by app state
/// and each worker's CPU time and memory, when it is scraped (``exposition(status:)``). Each
/// family is made through the registry with its help text (`HostMetricFamily`), so the
/// exposition has a `# HELP` line for each: swift-metrics' API has no help text, and the registry
/// refuses one name made with two.
public final class HostMetrics: Sendable {
    public let registry: PrometheusCollectorRegistry
    /// Made for `registry`, for code that counts through swift-metrics' API: its metrics have no
    /// help text, and must not take the names of `HostMetricFamily`.
    public let factory: PrometheusMetricsFactory
    private let cgroups: WorkerCgroupReader
    private let guests = Mutex([String: GuestCost]())

    /// What was last read of a guest's worker, to count only the CPU time it used since.
    private struct GuestCost {
        var pid: Int32?
        var cpuSeconds: Double = 0
        var memory: Prometheus.Gauge?
        var resident: Prometheus.Gauge?
    }

    public convenience init(registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()) {
        self.init(registry: registry, cgroups: WorkerCgroupReader())
    }

    /// `cgroups` finds and reads a worker's own cgroups.
    package init(registry: PrometheusCollectorRegistry, cgroups: WorkerCgroupReader) {
        self.registry = registry
        self.cgroups = cgroups
        factory = PrometheusMetricsFactory(registry: registry)
    }

    /// `apphost_build_info{version=...,abi=...} 1`, as Prometheus' exporters say what they run
    /// (CONTRACT O4): a query joins it to any other series to tell which release a host runs.
    public func recordBuild(version: String, abi: String) {
        registry.makeGauge(
            descriptor: HostMetricFamily.buildInfo.descriptor, labels: [("version", version), ("abi", abi)]
        )
        .set(to: 1)
    }

    /// Who the host is (CONTRACT O4), once it started.
    public func recordIdentity(_ identity: HostIdentity) {
        registry.makeGauge(
            descriptor: HostMetricFamily.hostInfo.descriptor,
            labels: [("host_id", identity.id), ("hostname", identity.hostname), ("version", identity.version)]
        )
        .set(to: 1)
        registry.makeGauge(descriptor: HostMetricFamily.hostStartTime.descriptor)
            .set(to: identity.started.timeIntervalSince1970)
    }

    // MARK: Counted from events

    /// Counts one host event; called by the event fan-out, on the host queue.
    ///
    /// What every guest goes through (launches, suspensions, resumes, terminations, callbacks'
    /// round trips) is counted by reason or callback only, not by guest: a host of 10,000 guests
    /// would have some 100,000 series of it, and the registry copies a family's series to add
    /// one, so that each launch cost time in proportion to the guests before it. What goes
    /// wrong, which few guests do, keeps its guest label; what each guest costs is read by guest
    /// when scraped.
    public func observe(_ event: HostEvent) {
        let guest = event.guest ?? ""
        let reason = event.reason?.rawValue ?? "none"
        switch event.kind {
        case .guestLoaded:
            count(.launches, [:])
        case .launchFailed:
            count(.launchFailures, ["guest": guest])
        case .terminated:
            count(.terminations, ["reason": reason])
            // Died rather than asked to go: a crash, or killed by the watchdog.
            if event.reason == .crash || event.reason == .watchdog {
                count(.crashes, ["guest": guest, "reason": reason])
            }
        case .restarting:
            count(.restarts, ["guest": guest, "reason": reason])
        case .suspended:
            count(.suspensions, ["reason": reason])
        case .resumed:
            count(.resumes, ["reason": reason])
        case .overrun:
            count(.overruns, ["guest": guest])
        case .taskExpired:
            count(.taskExpirations, ["guest": guest])
        case .watchdog:
            count(.watchdogHits, ["guest": guest])
        case .notificationRefused:
            count(.notificationsRefused, ["guest": guest])
        case .callback:
            // An action's call is the callback "action <name>" (F2).
            if let name = event.name, name.hasPrefix("action ") {
                count(.actionCalls, ["guest": guest, "action": String(name.dropFirst(7))])
            }
        case .audioXrun:
            // The event's name is how many xruns since the last meter reading.
            count(.audioXruns, ["guest": guest], by: event.name.flatMap(Int64.init) ?? 1)
        default:
            break
        }
    }

    /// Counts one control request by its verb and whether the host answered it with a success.
    public func controlRequest(verb: String, succeeded: Bool) {
        count(.controlRequests, ["verb": verb, "outcome": succeeded ? "ok" : "error"])
    }

    private func count(_ family: HostMetricFamily, _ labels: KeyValuePairs<String, String>, by amount: Int64 = 1) {
        registry.makeCounter(descriptor: family.descriptor, labels: labels.map { ($0.key, $0.value) })
            .increment(by: amount)
    }

    // MARK: Measured by the core

    /// Keeps one measurement of the core's; called through its `measure` hook, on the host queue.
    public func measured(_ measurement: HostMeasurement) {
        switch measurement {
        case .callbackRoundTrip(_, let callback, let duration):
            registry.makeDurationHistogram(
                descriptor: HostMetricFamily.callbackRoundTrip.descriptor,
                labels: [("callback", Self.callbackLabel(callback))],
                buckets: Self.roundTripBuckets
            ).record(duration)
        case .audioBadSamples(let guest, let samples):
            count(.audioBadSamples, ["guest": guest], by: Int64(clamping: samples))
        }
    }

    /// Callbacks by their C name, a fixed set; every action as "action", as actions are the
    /// guest's to name and many (`apphost_guest_action_calls_total` counts them by name).
    static func callbackLabel(_ callback: String) -> String {
        callback.hasPrefix("action ") ? "action" : callback
    }

    /// From 25 µs (a worker's reply on an idle machine takes some tens of µs) to 5 s (the
    /// watchdog's default limit), 1-2.5-5 in each decade; slower ones fall in +Inf.
    static let roundTripBuckets: [Duration] = [
        .microseconds(25), .microseconds(50), .microseconds(100), .microseconds(250), .microseconds(500),
        .milliseconds(1), .microseconds(2_500), .milliseconds(5), .milliseconds(10), .milliseconds(25),
        .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1),
        .milliseconds(2_500), .seconds(5),
    ]

    // MARK: Read when scraped

    /// The registry's text exposition after reading the levels from `status`: call it on the
    /// host queue, where `status` was taken.
    public func exposition(status: HostStatus) -> String {
        record(status)
        return registry.emitToString()
    }

    /// Guests by app state, every state present, and what each worker costs.
    func record(_ status: HostStatus) {
        for state in [AppState.notRunning, .inactive, .active, .background, .suspended] {
            let number = status.guests.count { $0.appState == state }
            registry.makeGauge(descriptor: HostMetricFamily.guests.descriptor, labels: [("state", state.description)])
                .set(to: Double(number))
        }
        guests.withLock { known in
            for guest in status.guests {
                var cost = known[guest.id] ?? GuestCost()
                // In the host's process (no pid) a guest's cost is the host's: nothing of its own.
                if let pid = guest.pid, let usage = usage(of: pid) {
                    // A new worker (a restart) starts from zero: all it used is new.
                    let before = cost.pid == pid ? cost.cpuSeconds : 0
                    // Made even for nothing new, so that a worker's first scrape shows its line.
                    registry.makeCounter(
                        descriptor: HostMetricFamily.cpuSeconds.descriptor, labels: [("guest", guest.id)]
                    ).increment(by: max(0, usage.cpuSeconds - before))
                    cost.pid = pid
                    cost.cpuSeconds = usage.cpuSeconds
                    cost.memory = level(cost.memory, .memoryBytes, guest.id, usage.memoryBytes)
                    cost.resident = level(cost.resident, .residentBytes, guest.id, usage.residentBytes)
                } else {
                    // No worker any more: its memory is no longer a level to report.
                    forgetLevels(cost)
                    cost = GuestCost()
                }
                known[guest.id] = cost
            }
            for (id, cost) in known where !status.guests.contains(where: { $0.id == id }) {
                forgetLevels(cost)
                known[id] = nil
            }
        }
    }

    /// `gauge` (made on first use) set to `value`.
    private func level(
        _ gauge: Prometheus.Gauge?, _ family: HostMetricFamily, _ guest: String, _ value: UInt64
    ) -> Prometheus.Gauge {
        let gauge = gauge ?? registry.makeGauge(descriptor: family.descriptor, labels: [("guest", guest)])
        gauge.set(to: Double(value))
        return gauge
    }

    private func forgetLevels(_ cost: GuestCost) {
        cost.memory.map(registry.unregisterGauge)
        cost.resident.map(registry.unregisterGauge)
    }

    /// What a worker has cost: CPU time and memory from its own cgroups where they count them
    /// (the worker and every process its guest started), else from the worker's /proc; its
    /// resident set from /proc. Nil once the worker is gone.
    private func usage(of pid: Int32) -> (cpuSeconds: Double, memoryBytes: UInt64, residentBytes: UInt64)? {
        guard let process = ProcessUsage.read(pid: pid) else { return nil }
        let counted = cgroups.usage(of: pid)
        return (
            counted.cpuSeconds ?? process.cpuSeconds, counted.memoryBytes ?? process.residentBytes,
            process.residentBytes
        )
    }
}

/// Each family of the host's metrics: its name and its help text, made once through the registry.
struct HostMetricFamily: Sendable {
    let name: String
    let help: String

    var descriptor: MetricNameDescriptor {
        // The whole name as the metric's name: the registry joins the non-empty parts.
        MetricNameDescriptor(metricName: name, unitName: "", helpText: help)
    }

    static let launches = Self(
        "apphost_guest_launches_total", "Guests loaded and launched, restarts included.")
    static let launchFailures = Self(
        "apphost_guest_launch_failures_total",
        "Launches that failed, by guest (empty when it failed before the guest said who it is).")
    static let terminations = Self(
        "apphost_guest_terminations_total", "Guests that stopped running, by reason.")
    static let crashes = Self(
        "apphost_guest_crashes_total",
        "Guests that died rather than were asked to go: reason crash, or watchdog for one it killed.")
    static let restarts = Self(
        "apphost_guest_restarts_total", "Relaunches under the restart policy, by guest and the reason it stopped.")
    static let suspensions = Self("apphost_guest_suspensions_total", "Suspensions, by reason.")
    static let resumes = Self("apphost_guest_resumes_total", "Resumptions from suspension, by reason.")
    static let overruns = Self(
        "apphost_guest_overruns_total",
        "Times a guest ran over its background budget still holding background tasks, by guest.")
    static let taskExpirations = Self(
        "apphost_guest_task_expirations_total",
        "Background tasks that expired before the guest ended them, by guest.")
    static let watchdogHits = Self(
        "apphost_guest_watchdog_hits_total", "Callbacks that ran past the watchdog's limit, by guest.")
    static let notificationsRefused = Self(
        "apphost_guest_notifications_refused_total", "Notifications refused over the guest's rate limit, by guest.")
    static let actionCalls = Self("apphost_guest_action_calls_total", "Actions called, by guest and action.")
    static let audioXruns = Self(
        "apphost_guest_audio_xruns_total", "Xruns of a guest's audio stream: periods not rendered in time.")
    static let audioBadSamples = Self(
        "apphost_guest_audio_bad_samples_total",
        "Samples of a guest's audio stream that were not numbers or beyond +24 dBFS: each period that held one "
            + "was silenced.")
    static let controlRequests = Self(
        "apphost_control_requests_total", "Control requests, by verb and outcome (ok or error).")
    static let callbackRoundTrip = Self(
        "apphost_callback_round_trip_seconds",
        "Time from sending a callback to a guest to its reply, waiting behind earlier callbacks included, "
            + "by callback (actions as one).")
    static let guests = Self("apphost_guests", "Guests by app state, read when scraped.")
    static let buildInfo = Self(
        "apphost_build_info", "Always 1: the release this host runs and the guest ABI it implements, as labels.")
    static let hostInfo = Self(
        "apphost_host_info", "Always 1: who this host is (CONTRACT O4): its id, the machine's name and its release.")
    static let hostStartTime = Self(
        "apphost_host_start_time_seconds", "When this run of the host started, in seconds since the Unix epoch.")
    static let cpuSeconds = Self(
        "apphost_guest_cpu_seconds_total",
        "CPU time of a guest's worker: its own cgroup's, with the processes it started, or else the worker's.")
    static let memoryBytes = Self(
        "apphost_guest_memory_bytes",
        "Memory charged to a guest's worker's own cgroup, with the processes it started and page cache, "
            + "or else the worker's resident set.")
    static let residentBytes = Self(
        "apphost_guest_resident_memory_bytes", "Resident set of a guest's worker process, from /proc.")

    /// Every family, for the tests and the README.
    static let all: [Self] = [
        launches, launchFailures, terminations, crashes, restarts, suspensions, resumes, overruns, taskExpirations,
        watchdogHits, notificationsRefused, actionCalls, audioXruns, audioBadSamples, controlRequests,
        callbackRoundTrip, guests,
        cpuSeconds, memoryBytes, residentBytes, buildInfo, hostInfo, hostStartTime,
    ]

    private init(_ name: String, _ help: String) {
        self.name = name
        self.help = help
    }
}
