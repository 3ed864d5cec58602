import ApphostModel
import Prometheus

/// Each family of the host's metrics that the registry keeps: its name and its help text, made
/// once through the registry. The guests' counters are ``GuestFamily``'s.
struct HostMetricFamily: Sendable {
    let name: String
    let help: String

    var descriptor: MetricNameDescriptor {
        // The whole name as the metric's name: the registry joins the non-empty parts.
        MetricNameDescriptor(metricName: name, unitName: "", helpText: help)
    }

    static let launches = Self(
        "apphost_guest_launches_total", "Guests loaded and launched, restarts included.")
    static let terminations = Self(
        "apphost_guest_terminations_total", "Guests that stopped running, by reason.")
    static let suspensions = Self("apphost_guest_suspensions_total", "Suspensions, by reason.")
    static let resumes = Self("apphost_guest_resumes_total", "Resumptions from suspension, by reason.")
    static let actionCalls = Self("apphost_guest_action_calls_total", "Actions called, by guest and action.")
    static let controlRequests = Self(
        "apphost_control_requests_total", "Control requests, by verb and outcome (ok or error).")
    static let httpRequests = Self(
        "apphost_http_requests_total",
        "HTTP requests answered, by route (its pattern; unmatched for none) and status, those refused before a "
            + "route included.")
    static let eventFollowers = Self("apphost_http_event_followers", "Clients following the event stream over HTTP.")
    static let followersDropped = Self(
        "apphost_http_event_followers_dropped_total",
        "HTTP followers of the event stream dropped for falling too far behind (they may reconnect and resume).")
    static let eventLinesDropped = Self(
        "apphost_event_lines_dropped_total",
        "Event lines the host dropped from its standard output because it was not being read.")
    static let mixerOverruns = Self(
        "apphost_audio_mixer_overruns_total",
        "Periods the host's mixer did not finish before its output needed them (as ctl audio and the output's "
            + "audio-meter event count them).")
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
    static let memoryBytes = Self(
        "apphost_guest_memory_bytes",
        "Memory charged to a guest's worker's own cgroup, with the processes it started and page cache, "
            + "or else the worker's resident set.")
    static let residentBytes = Self(
        "apphost_guest_resident_memory_bytes", "Resident set of a guest's worker process, from /proc.")
    static let sandbox = Self(
        "apphost_guest_sandbox",
        "1 for each guest's worker, labelled with the parts of its container in force (CONTRACT X6, A6), none for "
            + "a worker without one.")
    // The host's process, named as the Prometheus client libraries name their own.
    static let processCPUSeconds = Self(
        "process_cpu_seconds_total", "Total user and system CPU time spent in seconds.")
    static let processResident = Self("process_resident_memory_bytes", "Resident memory size in bytes.")
    static let processVirtual = Self("process_virtual_memory_bytes", "Virtual memory size in bytes.")
    static let processOpenFDs = Self("process_open_fds", "Number of open file descriptors.")
    static let processMaxFDs = Self(
        "process_max_fds", "Maximum number of open file descriptors (-1 when unlimited).")
    static let processStartTime = Self(
        "process_start_time_seconds", "Start time of the process since unix epoch in seconds.")

    /// Every family, for the tests and the README.
    static let all: [Self] = [
        launches, terminations, suspensions, resumes, actionCalls, controlRequests, httpRequests, eventFollowers,
        followersDropped, eventLinesDropped, mixerOverruns, callbackRoundTrip, guests, memoryBytes, residentBytes,
        sandbox, buildInfo, processCPUSeconds, processResident, processVirtual, processOpenFDs, processMaxFDs,
        processStartTime,
        hostInfo, hostStartTime,
    ]

    private init(_ name: String, _ help: String) {
        self.name = name
        self.help = help
    }
}

/// The guests' counters (``GuestCounters``), each by guest, at 0 from the guest's launch.
enum GuestFamily: Int, CaseIterable {
    case launchFailures, crashes, restarts, suspensions, overruns, taskExpirations, watchdogHits
    case notificationsRefused, saveFailures, audioXruns, audioBadSamples, cpuSeconds, sandboxRefusals

    var family: GuestCounters.Family {
        switch self {
        case .launchFailures:
            .init(
                "apphost_guest_launch_failures_total",
                "Launches that failed, by guest (empty when it failed before the guest said who it is).")
        case .crashes:
            .init(
                "apphost_guest_crashes_total",
                "Guests that died rather than were asked to go: reason crash, or watchdog for one it killed.",
                reasons: [TransitionReason.crash.rawValue, TransitionReason.watchdog.rawValue])
        case .restarts:
            .init(
                "apphost_guest_restarts_total",
                "Relaunches under the restart policy, by guest and the reason it stopped.",
                reasons: [TransitionReason.crash.rawValue, TransitionReason.watchdog.rawValue])
        case .suspensions:
            .init(
                "apphost_guest_suspensions_by_guest_total",
                "Suspensions, by guest (apphost_guest_suspensions_total has them by reason).")
        case .overruns:
            .init(
                "apphost_guest_overruns_total",
                "Times a guest ran over its background budget still holding background tasks, by guest.")
        case .taskExpirations:
            .init(
                "apphost_guest_task_expirations_total",
                "Background tasks that expired before the guest ended them, by guest.")
        case .watchdogHits:
            .init("apphost_guest_watchdog_hits_total", "Callbacks that ran past the watchdog's limit, by guest.")
        case .notificationsRefused:
            .init(
                "apphost_guest_notifications_refused_total",
                "Notifications refused over the guest's rate limit, by guest.")
        case .saveFailures:
            .init(
                "apphost_guest_save_failures_total",
                "Saves of a guest's scene state (or new sessions) the host could not store (state-save-failed).")
        case .audioXruns:
            .init(
                "apphost_guest_audio_xruns_total",
                "Xruns of a guest's audio session's stream: periods not rendered in time.")
        case .audioBadSamples:
            .init(
                "apphost_guest_audio_bad_samples_total",
                "Samples of a guest's audio stream that were not numbers or beyond +24 dBFS: each period that held "
                    + "one was silenced.")
        case .sandboxRefusals:
            .init(
                "apphost_guest_sandbox_refusals_total",
                "What a guest's container refused, each kind once a worker (CONTRACT X6, A6), by guest: the "
                    + "sandbox-refused and entitlement-missing events name each.")
        case .cpuSeconds:
            .init(
                "apphost_guest_cpu_seconds_total",
                "CPU time of a guest's worker: its own cgroup's, with the processes it started, or else the "
                    + "worker's; a worker's last is counted when it exits.",
                whole: false)
        }
    }

    static let all = allCases.map(\.family)
}
