import ApphostChannels
import ApphostExecutors
import ApphostFreezing
import ApphostLimits
import ApphostPolicy
import ApphostService
import ApphostVocabulary
import Dispatch
import Foundation
import Logging

/// Fair shares (issue 18, point 6): whether the host's own timers keep time while many isolated
/// guests burn CPU in background. Each guest holds tasks it never ends and, when spinning, burns
/// CPU on a thread of its own from launch on; the budget is long enough that every guest still
/// spins (none is frozen yet) when the expirations fall due. Measured on the host's side, so that
/// how fast a busy guest gets to run its handlers does not count:
/// - expiration lateness: when the host's expiration timer ran (its `task-expired` event, on the
///   host queue) after it was due, the budget minus the grace after the budget started. The start
///   is the launch's completion, which runs in the host queue's turn that starts the budget: not
///   the app-state event, which comes before did_finish_launching, whose time in a busy worker
///   is the guest's, not the host's;
/// - host timer lateness: a strict timer of its own on the host queue, re-armed every
///   `probeInterval` from the first launch until the last expiration.
struct FairShareBenchmark {
    let opener: any GuestOpener
    let guestPaths: [String]
    let tasksPerGuest: Int
    let dataDirectory: String
    /// Between two launches.
    let stagger: Duration
    let policy: BackgroundPolicy
    var probeInterval = Duration.milliseconds(5)

    struct Result {
        var expirationLateness: Samples
        var hostTimerLateness: Samples
        /// The nice values of the workers once every task expired (from /proc), each once.
        var workerNices: [Int]
        /// From the first guest's budget start to the last's: how long the launches took.
        var launchSpread: Double
    }

    func run() throws -> Result {
        let hostQueue = DispatchQueue(label: "bench.host")
        let recorder = Recorder(due: Double((policy.budget - policy.expirationGrace).nanoseconds))
        let core = HostCore(
            opener: opener, clock: DispatchHostClock(queue: hostQueue), hostQueue: hostQueue,
            sessionIDs: RandomSessionIDs(),
            guestsDirectory: dataDirectory, background: policy, emit: { recorder.note($0) })
        let probe = TimerProbe(queue: hostQueue, interval: probeInterval)
        probe.start()

        for path in guestPaths {
            hostQueue.async {
                core.launch(path: path, foreground: false) { result in
                    if case .success(let descriptor) = result { recorder.budgetStarted(descriptor.id) }
                }
            }
            Thread.sleep(forTimeInterval: stagger.timeIntervalValue)
        }
        let expected = guestPaths.count * tasksPerGuest
        let deadline = Date() + (policy.budget + stagger * guestPaths.count + .seconds(10)).timeIntervalValue
        while recorder.expiredCount < expected, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        let timerLateness = probe.stop()
        let nices = Set(Self.workerNices())
        let expired = recorder.expiredCount
        let stopped = DispatchSemaphore(value: 0)
        hostQueue.async { core.shutdown { stopped.signal() } }
        stopped.wait()
        // The next run starts with none of these workers left, spinning or not.
        let gone = Date() + 10
        while !Self.workerNices().isEmpty, Date() < gone { Thread.sleep(forTimeInterval: 0.05) }
        guard expired == expected else {
            throw BenchmarkFailure("only \(expired) of \(expected) tasks expired")
        }
        return Result(
            expirationLateness: Samples(recorder.expirationLateness), hostTimerLateness: Samples(timerLateness),
            workerNices: nices.sorted(), launchSpread: recorder.launchSpread)
    }

    /// The nice of each of this process's apphost-worker children (field 19 of /proc/<pid>/stat).
    private static func workerNices() -> [Int] {
        let me = getpid()
        return ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap { name in
            guard pid_t(name) != nil, let stat = try? String(contentsOfFile: "/proc/\(name)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")"), stat.contains("(apphost-worker)")
            else { return nil }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 16, pid_t(fields[1]) == me else { return nil }
            return Int(fields[16])
        }
    }

    /// On the host queue: when each guest's budget started, and when the host expired its tasks.
    private final class Recorder: @unchecked Sendable {
        private let lock = NSLock()
        private let due: Double
        private var started: [String: Double] = [:]
        private var expirations: [Double] = []

        init(due: Double) { self.due = due }

        func budgetStarted(_ guest: String) {
            let now = monotonicNanoseconds()
            lock.withLock { started[guest] = now }
        }

        func note(_ event: HostEvent) {
            let now = monotonicNanoseconds()
            guard event.kind == .taskExpired, let guest = event.guest else { return }
            lock.withLock {
                if let start = started[guest] { expirations.append(now - (start + due)) }
            }
        }

        var launchSpread: Double {
            lock.withLock { (started.values.max() ?? .nan) - (started.values.min() ?? .nan) }
        }
        var expiredCount: Int { lock.withLock { expirations.count } }
        var expirationLateness: [Double] { lock.withLock { expirations } }
    }

    /// A strict one-shot timer on `queue`, re-armed each time it runs, noting how late it ran.
    private final class TimerProbe: @unchecked Sendable {
        private let queue: DispatchQueue
        private let interval: Duration
        private let timer: any DispatchSourceTimer
        // Touched on `queue` only.
        private var due = DispatchTime.now()
        private var lateness: [Double] = []

        init(queue: DispatchQueue, interval: Duration) {
            self.queue = queue
            self.interval = interval
            timer = DispatchSource.makeTimerSource(flags: .strict, queue: queue)
        }

        func start() {
            timer.setEventHandler { [self] in
                lateness.append(monotonicNanoseconds() - Double(due.uptimeNanoseconds))
                arm()
            }
            queue.sync { arm() }
            timer.activate()
        }

        func stop() -> [Double] {
            queue.sync {
                timer.cancel()
                return lateness
            }
        }

        private func arm() {
            due = .now() + .nanoseconds(Int(interval.nanoseconds))
            timer.schedule(deadline: due, leeway: .nanoseconds(0))
        }
    }
}

/// `apphost-benchmarks [spinners] fairshare`: the host's timers with `spinners` (50 unless told)
/// isolated guests holding tasks: idle, then spinning with the workers' lower priority (nice +10
/// and the cgroup weight `apphost launch` gives them by default), with the nice alone (what a
/// machine without a usable cpu controller gets), and without either (`--worker-nice 0`).
func runFairShareBenchmark(spinners: Int, guests: GuestBuilds, scratch: URL) throws {
    // Launched 20 ms apart; a 30 s budget with expiration 15 s before its end: every guest has
    // launched and spins, and none is frozen yet, when the expirations fall due (launching among
    // spinners under the lower priority took up to 6 s on the 2-core VM).
    let policy = BackgroundPolicy(budget: .seconds(30), expirationGrace: .seconds(15), suspendDelay: .seconds(3600))
    let stagger = Duration.milliseconds(20)
    let tasks = 4
    let workerPath = try WorkerExecutable.locate()
    let freezer = Freezers.best()
    let priority = WorkerPriority(niceOffset: 10)
    let niceOnly = WorkerPriority(niceOffset: 10, hostPID: getpid(), useCgroups: false, logger: Logger(label: "bench"))
    let idle = try guests.overrunningGuests(spinners, tasks: tasks)
    let spinning = try guests.overrunningGuests(spinners, tasks: tasks, spinning: true)

    let cases: [(name: String, paths: [String], priority: WorkerPriority?)] = [
        ("\(spinners) idle guests", idle, priority),
        ("\(spinners) spinning, nice +10", spinning, priority),
        ("\(spinners) spinning, nice +10 without the cgroup", spinning, niceOnly),
        ("\(spinners) spinning, --worker-nice 0", spinning, nil),
    ]
    var results: [FairShareBenchmark.Result] = []
    for (index, run) in cases.enumerated() {
        let opener = WorkerOpener(workerPath: workerPath, freezer: freezer, priority: run.priority)
        let directory = scratch.appendingPathComponent("fairshare-\(index)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let result = try FairShareBenchmark(
            opener: opener, guestPaths: run.paths, tasksPerGuest: tasks, dataDirectory: directory, stagger: stagger,
            policy: policy
        ).run()
        results.append(result)
        print(
            "\(run.name) (workers at nice \(result.workerNices.map(String.init).joined(separator: ", ")), budgets "
                + "started over \(Report.format(result.launchSpread))):")
        Report.print("  expiration lateness, host side", result.expirationLateness)
        Report.print("  host queue timer lateness, every 5 ms", result.hostTimerLateness)
    }
    print("lower priority: \(priority.mechanism)")
    // Each spinning case beside idle, for the expirations and for the host queue's own timer.
    let ratios = [
        (1, "spinning with nice", "<= 2"), (2, "spinning, nice only", "(none: a machine with no cpu controller)"),
        (3, "spinning without", "(none: the effect of the change)"),
    ]
    for (figure, lateness) in [
        ("expiration p99", \FairShareBenchmark.Result.expirationLateness),
        ("timer p99", \FairShareBenchmark.Result.hostTimerLateness),
    ] {
        let baseline = results[0][keyPath: lateness].percentile(99)
        for (index, name, target) in ratios {
            Report.ratio(
                "\(name) / idle (\(figure))", results[index][keyPath: lateness].percentile(99) / baseline,
                target: target)
        }
    }
}
