import ApphostCore
import ApphostModel
import CoreMetrics
import Prometheus
import Synchronization

/// The host's metrics (CONTRACT O2), in one Prometheus registry that this host owns: no global
/// bootstrap of swift-metrics, so that hosts in one process (the tests') keep theirs apart. The
/// counters are swift-metrics' through a factory made for this registry; `ctl metrics` prints the
/// registry's text exposition, and an HTTP server may serve the same registry at /metrics.
///
/// It counts what the host's event stream says (``observe(_:)``), and reads what is a level, the
/// guests by app state and each worker's CPU time and memory, when it is scraped
/// (``exposition(status:)``).
public final class HostMetrics: Sendable {
    public let registry: PrometheusCollectorRegistry
    /// Made for `registry`; code that counts through swift-metrics' API is handed this one.
    public let factory: PrometheusMetricsFactory
    private let guests = Mutex([String: GuestCost]())

    /// What was last read of a guest's worker, to count only the CPU time it used since.
    private struct GuestCost {
        var pid: Int32?
        var cpuSeconds: Double = 0
        var memory: CoreMetrics.Gauge?
    }

    public init(registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()) {
        self.registry = registry
        factory = PrometheusMetricsFactory(registry: registry)
    }

    // MARK: Counted from events

    /// Counts one host event; called by the event fan-out, on the host queue.
    public func observe(_ event: HostEvent) {
        let guest = event.guest ?? ""
        let reason = event.reason?.rawValue ?? "none"
        switch event.kind {
        case .guestLoaded:
            count("apphost_guest_launches_total", ["guest": guest])
        case .launchFailed:
            count("apphost_guest_launch_failures_total", ["guest": guest])
        case .terminated:
            count("apphost_guest_terminations_total", ["guest": guest, "reason": reason])
            // Died rather than asked to go: a crash, or killed by the watchdog.
            if event.reason == .crash || event.reason == .watchdog {
                count("apphost_guest_crashes_total", ["guest": guest, "reason": reason])
            }
        case .restarting:
            count("apphost_guest_restarts_total", ["guest": guest, "reason": reason])
        case .suspended:
            count("apphost_guest_suspensions_total", ["guest": guest, "reason": reason])
        case .resumed:
            count("apphost_guest_resumes_total", ["guest": guest, "reason": reason])
        case .overrun:
            count("apphost_guest_overruns_total", ["guest": guest])
        case .taskExpired:
            count("apphost_guest_task_expirations_total", ["guest": guest])
        case .watchdog:
            count("apphost_guest_watchdog_hits_total", ["guest": guest])
        case .notificationRefused:
            count("apphost_guest_notifications_refused_total", ["guest": guest])
        case .callback:
            // An action's call is the callback "action <name>" (F2).
            if let name = event.name, name.hasPrefix("action ") {
                count("apphost_guest_action_calls_total", ["guest": guest, "action": String(name.dropFirst(7))])
            }
        case .audioXrun:
            // The event's name is how many xruns since the last meter reading.
            count("apphost_guest_audio_xruns_total", ["guest": guest], by: event.name.flatMap(Int64.init) ?? 1)
        default:
            break
        }
    }

    /// Counts one control request by its verb and whether the host answered it with a success.
    public func controlRequest(verb: String, succeeded: Bool) {
        count("apphost_control_requests_total", ["verb": verb, "outcome": succeeded ? "ok" : "error"])
    }

    private func count(_ name: String, _ labels: KeyValuePairs<String, String>, by amount: Int64 = 1) {
        let counter = CoreMetrics.Counter(label: name, dimensions: labels.map { ($0.key, $0.value) }, factory: factory)
        counter.increment(by: amount)
    }

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
            CoreMetrics.Gauge(label: "apphost_guests", dimensions: [("state", state.description)], factory: factory)
                .record(number)
        }
        guests.withLock { known in
            for guest in status.guests {
                var cost = known[guest.id] ?? GuestCost()
                // In the host's process (no pid) a guest's cost is the host's: nothing of its own.
                let usage = guest.pid.flatMap(ProcessUsage.read(pid:))
                if let usage {
                    // A new worker (a restart) starts from zero: all it used is new.
                    let before = cost.pid == guest.pid ? cost.cpuSeconds : 0
                    // Made even for nothing new, so that a worker's first scrape shows its line.
                    CoreMetrics.FloatingPointCounter(
                        label: "apphost_guest_cpu_seconds_total", dimensions: [("guest", guest.id)], factory: factory
                    ).increment(by: max(0, usage.cpuSeconds - before))
                    cost.pid = guest.pid
                    cost.cpuSeconds = usage.cpuSeconds
                    let memory =
                        cost.memory
                        ?? CoreMetrics.Gauge(
                            label: "apphost_guest_resident_memory_bytes", dimensions: [("guest", guest.id)],
                            factory: factory)
                    memory.record(Double(usage.residentBytes))
                    cost.memory = memory
                } else {
                    // No worker any more: its memory is no longer a level to report.
                    cost.memory?.destroy()
                    cost.memory = nil
                    cost.pid = nil
                    cost.cpuSeconds = 0
                }
                known[guest.id] = cost
            }
            for (id, cost) in known where !status.guests.contains(where: { $0.id == id }) {
                cost.memory?.destroy()
                known[id] = nil
            }
        }
    }
}
