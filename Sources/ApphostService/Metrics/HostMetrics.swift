import ApphostControl
import ApphostFreezing
import ApphostModel
import ApphostVocabulary
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
///
/// Every counter exists at 0 before its first increment (an alert on `increase(...)` sees the
/// first one): the host's from its start, a guest's from its launch (``GuestCounters``, which
/// also keeps them apart from the registry, so that a launch costs the same however many came
/// before). The host's process is reported as every Prometheus client reports its own
/// (`process_cpu_seconds_total`, ...).
public final class HostMetrics: Sendable {
    public let registry: PrometheusCollectorRegistry
    /// Made for `registry`, for code that counts through swift-metrics' API: its metrics have no
    /// help text, and must not take the names of `HostMetricFamily`.
    public let factory: PrometheusMetricsFactory
    private let cgroups: WorkerCgroupReader
    private let guests = Mutex([String: GuestCost]())
    /// Each guest's counters, from its launch.
    private let perGuest = Mutex(GuestCounters(families: GuestFamily.all))
    /// What the host's process had used at the last scrape, to count only what it used since.
    private let process = Mutex(ProcessCounted())
    /// Event lines the printer of the events dropped, as counted at the last scrape.
    private let droppedLinesCounted = Mutex(0)

    private struct ProcessCounted {
        var cpuSeconds: Double = 0
    }

    /// What was last read of a guest's worker, to count only the CPU time it used since.
    private struct GuestCost {
        var pid: Int32?
        var cpuSeconds: Double = 0
        var memory: Prometheus.Gauge?
        var resident: Prometheus.Gauge?
        /// Its container's series and the parts it is labelled with.
        var sandbox: (gauge: Prometheus.Gauge, parts: String)?
    }

    public convenience init(registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()) {
        self.init(registry: registry, cgroups: WorkerCgroupReader())
    }

    /// `cgroups` finds and reads a worker's own cgroups.
    package init(registry: PrometheusCollectorRegistry, cgroups: WorkerCgroupReader) {
        self.registry = registry
        self.cgroups = cgroups
        factory = PrometheusMetricsFactory(registry: registry)
        makeHostCountersAtZero()
    }

    /// The host's counters at 0, each label set that can be known beforehand: every reason of a
    /// transition, every control verb with either outcome. What is counted by an open-ended label
    /// (an action's name, an HTTP route's status) appears when first counted.
    private func makeHostCountersAtZero() {
        count(.launches, [:], by: 0)
        for reason in TransitionReason.allCases {
            for family in [HostMetricFamily.terminations, .suspensions, .resumes] {
                count(family, ["reason": reason.rawValue], by: 0)
            }
        }
        for verb in ControlCommands.names + [EventsCommand.name] {
            for outcome in ["ok", "error"] { count(.controlRequests, ["verb": verb, "outcome": outcome], by: 0) }
        }
        for family in [HostMetricFamily.eventLinesDropped, .followersDropped, .mixerOverruns] {
            count(family, [:], by: 0)
        }
        eventFollowers(0)
        // The process metrics, from their first scrape; its start time is known now.
        registry.makeGauge(descriptor: HostMetricFamily.processStartTime.descriptor)
            .set(to: HostProcessUsage.read()?.startTimeSeconds ?? 0)
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
    /// round trips) is counted by reason or callback in the registry, which copies a family's
    /// series to add one: by guest and reason, a host of 10,000 guests would have some 100,000
    /// series of it, each launch costing time in proportion to the guests before it. By guest,
    /// what goes wrong and what a guest costs (suspensions too) are ``GuestCounters``', one
    /// entry a guest, made at its first launch.
    public func observe(_ event: HostEvent) {
        let guest = event.guest ?? ""
        let reason = event.reason?.rawValue ?? "none"
        switch event.kind {
        case .guestLoaded:
            count(.launches, [:])
            // Its counters at 0 from its first launch; a relaunch keeps what they counted.
            perGuest.withLock { $0.add(guest) }
        case .launchFailed:
            // Empty when it failed before the guest said who it is: that series alone.
            count(guest: .launchFailures, guest, alone: guest.isEmpty)
        case .terminated:
            count(.terminations, ["reason": reason])
            // Died rather than asked to go: a crash, or killed by the watchdog.
            if event.reason == .crash || event.reason == .watchdog {
                count(guest: .crashes, guest, reason: reason)
            }
        case .restarting:
            count(guest: .restarts, guest, reason: reason)
        case .suspended:
            count(.suspensions, ["reason": reason])
            count(guest: .suspensions, guest)
        case .resumed:
            count(.resumes, ["reason": reason])
        case .overrun:
            count(guest: .overruns, guest)
        case .taskExpired:
            count(guest: .taskExpirations, guest)
        case .watchdog:
            count(guest: .watchdogHits, guest)
        case .notificationRefused:
            count(guest: .notificationsRefused, guest)
        case .stateSaveFailed:
            count(guest: .saveFailures, guest)
        case .callback:
            // An action's call is the callback "action <name>" (F2).
            if let name = event.name, name.hasPrefix("action ") {
                count(.actionCalls, ["guest": guest, "action": String(name.dropFirst(7))])
            }
        case .sandboxRefused, .entitlementMissing:
            // One series a guest: a scrape of 10,000 guests grows by a line each, not by one for
            // each entitlement.
            count(guest: .sandboxRefusals, guest)
        case .audioXrun:
            // The event's name is how many xruns since the last meter reading.
            count(guest: .audioXruns, guest, by: Double(event.name.flatMap(Int64.init) ?? 1))
        default:
            break
        }
    }

    /// Counts one control request by its verb and whether the host answered it with a success.
    public func controlRequest(verb: String, succeeded: Bool) {
        count(.controlRequests, ["verb": verb, "outcome": succeeded ? "ok" : "error"])
    }

    /// One HTTP request answered (or refused before any route), by the route it matched (its
    /// pattern, "unmatched" for none) and its status.
    public func httpRequest(route: String, status: Int) {
        count(.httpRequests, ["route": route, "status": String(status)])
    }

    /// How many clients follow the event stream over HTTP now.
    public func eventFollowers(_ count: Int) {
        registry.makeGauge(descriptor: HostMetricFamily.eventFollowers.descriptor).set(to: Double(count))
    }

    /// An HTTP follower of the event stream fell too far behind and was dropped.
    public func eventFollowerDropped() {
        count(.followersDropped, [:])
    }

    /// A guest's worker has exited, having used `cpuSeconds` in all (read before it was reaped):
    /// what it used since the last scrape is counted now, or it would be lost with the worker.
    public func workerExited(guest: String, pid: Int32, cpuSeconds: Double) {
        guests.withLock { known in
            let cost = known[guest] ?? GuestCost()
            let before = cost.pid == pid ? cost.cpuSeconds : 0
            count(guest: .cpuSeconds, guest, by: max(0, cpuSeconds - before))
            forgetLevels(cost)
            // Counted in full: a scrape that still finds its pid finds it gone, and counts nothing.
            known[guest] = GuestCost(pid: pid, cpuSeconds: max(cpuSeconds, before), memory: nil, resident: nil)
        }
    }

    private func count(_ family: HostMetricFamily, _ labels: KeyValuePairs<String, String>, by amount: Int64 = 1) {
        registry.makeCounter(descriptor: family.descriptor, labels: labels.map { ($0.key, $0.value) })
            .increment(by: amount)
    }

    private func count(
        guest family: GuestFamily, _ guest: String, reason: String = "", by amount: Double = 1, alone: Bool = false
    ) {
        perGuest.withLock { $0.count(family.rawValue, guest, reason: reason, by: amount, alone: alone) }
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
            count(guest: .audioBadSamples, guest, by: Double(samples))
        case .audioMixerOverruns(let overruns):
            count(.mixerOverruns, [:], by: Int64(clamping: overruns))
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

    /// The text exposition, the registry's then the guests' counters, after reading the levels
    /// from `status` and the host's process. Call it away from the host queue (it reads /proc for
    /// each worker), with a `status` taken there.
    ///
    /// `droppedEventLines` is how many event lines the printer of the events has dropped so far.
    public func exposition(status: HostStatus, droppedEventLines: Int = 0) -> String {
        record(status)
        recordProcess()
        droppedLinesCounted.withLock { counted in
            count(.eventLinesDropped, [:], by: Int64(max(0, droppedEventLines - counted)))
            counted = max(counted, droppedEventLines)
        }
        // The guests' counters, copied out (the copy's storage is shared until the next count).
        let guestCounters = perGuest.withLock { $0 }
        return registry.emitToString() + guestCounters.exposition()
    }

    /// The host's own process, as every Prometheus client reports its own.
    func recordProcess() {
        guard let usage = HostProcessUsage.read() else { return }
        process.withLock { counted in
            registry.makeCounter(descriptor: HostMetricFamily.processCPUSeconds.descriptor)
                .increment(by: max(0, usage.cpuSeconds - counted.cpuSeconds))
            counted.cpuSeconds = max(counted.cpuSeconds, usage.cpuSeconds)
        }
        registry.makeGauge(descriptor: HostMetricFamily.processResident.descriptor).set(to: Double(usage.residentBytes))
        registry.makeGauge(descriptor: HostMetricFamily.processVirtual.descriptor).set(to: Double(usage.virtualBytes))
        registry.makeGauge(descriptor: HostMetricFamily.processOpenFDs.descriptor).set(
            to: Double(usage.openDescriptors))
        registry.makeGauge(descriptor: HostMetricFamily.processMaxFDs.descriptor)
            .set(to: usage.maximumDescriptors.map { Double($0) } ?? -1)
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
                    count(guest: .cpuSeconds, guest.id, by: max(0, usage.cpuSeconds - before))
                    cost.pid = pid
                    cost.cpuSeconds = usage.cpuSeconds
                    cost.memory = level(cost.memory, .memoryBytes, guest.id, usage.memoryBytes)
                    cost.resident = level(cost.resident, .residentBytes, guest.id, usage.residentBytes)
                    cost.sandbox = container(cost.sandbox, guest.id, guest.sandbox?.partsLine ?? "none")
                } else {
                    // No worker any more: its memory is no longer a level to report. What it used
                    // is kept: its exit, reported after this, counts only what came after it.
                    forgetLevels(cost)
                    cost.memory = nil
                    cost.resident = nil
                    cost.sandbox = nil
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

    /// The series `apphost_guest_sandbox{guest,parts} 1`, made again when the parts changed (a
    /// relaunch in another container), the old one gone.
    private func container(
        _ series: (gauge: Prometheus.Gauge, parts: String)?, _ guest: String, _ parts: String
    ) -> (gauge: Prometheus.Gauge, parts: String) {
        if let series, series.parts == parts { return series }
        series.map { registry.unregisterGauge($0.gauge) }
        let gauge = registry.makeGauge(
            descriptor: HostMetricFamily.sandbox.descriptor, labels: [("guest", guest), ("parts", parts)])
        gauge.set(to: 1)
        return (gauge, parts)
    }

    private func forgetLevels(_ cost: GuestCost) {
        cost.memory.map(registry.unregisterGauge)
        cost.resident.map(registry.unregisterGauge)
        cost.sandbox.map { registry.unregisterGauge($0.gauge) }
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
