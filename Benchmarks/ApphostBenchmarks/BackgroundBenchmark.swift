import ApphostExecutors
import ApphostPolicy
import ApphostService
import ApphostVocabulary
import Dispatch
import Foundation

/// Background budgets at scale (CONTRACT B3, B4, B7): isolated guests, each holding tasks it
/// never ends, launched into background one after another so that their deadlines spread over a
/// few seconds. Measured against the moment each guest entered background:
/// - expiration lateness: when each expiration handler really ran in the guest (it notes its
///   CLOCK_MONOTONIC time, the clock Dispatch uses here, and the last logs them all) after the
///   grace point was due;
/// - overrun to frozen: when the host reported the guest suspended (its worker frozen) after
///   its budget ended;
/// - then every guest is resumed at once, and the time until all are confirmed running.
struct BackgroundBenchmark {
    let opener: any GuestOpener
    let guestPaths: [String]
    let tasksPerGuest: Int
    let dataDirectory: String
    /// Between two launches: the spread of the deadlines.
    let stagger: Duration
    let policy: BackgroundPolicy

    struct Result {
        var expirationLateness: Samples
        var overrunToFrozen: Samples
        /// From the request until the last guest was confirmed running (its `resumed` event).
        var resumeAllNanoseconds: Double
        /// ... and until the last resume's completion, after the budget and anything held was
        /// sent to each guest (B8).
        var resumeAllCompletedNanoseconds: Double
        var resumed: Int
        var expected: Int
    }

    func run() throws -> Result {
        let hostQueue = DispatchQueue(label: "bench.host")
        let recorder = Recorder(
            grace: Double(policy.expirationGrace.nanoseconds), budget: Double(policy.budget.nanoseconds))
        let core = HostCore(
            opener: opener, clock: DispatchHostClock(queue: hostQueue), hostQueue: hostQueue,
            sessionIDs: RandomSessionIDs(),
            guestsDirectory: dataDirectory, background: policy, emit: { recorder.note($0) })

        for path in guestPaths {
            hostQueue.async { core.launch(path: path, foreground: false) }
            Thread.sleep(forTimeInterval: stagger.timeIntervalValue)
        }
        let everyone = guestPaths.count
        let deadline = Date() + (policy.budget + .seconds(5)).timeIntervalValue
        while recorder.frozenCount < everyone, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        guard recorder.frozenCount == everyone else {
            throw BenchmarkFailure("only \(recorder.frozenCount) of \(everyone) guests were frozen for overrunning")
        }

        let resumed = DispatchGroup()
        let counter = Counter()
        let start = monotonicNanoseconds()
        // sync: every guest has entered the group before the wait below.
        hostQueue.sync {
            for guest in core.status().guests {
                resumed.enter()
                core.resume(guest.id) { result in
                    if case .success = result { counter.value += 1 }
                    resumed.leave()
                }
            }
        }
        resumed.wait()
        let resumeAllCompleted = monotonicNanoseconds() - start
        let resumeAll = (recorder.lastResumed ?? .nan) - start

        let stopped = DispatchSemaphore(value: 0)
        hostQueue.async { core.shutdown { stopped.signal() } }
        stopped.wait()
        return Result(
            expirationLateness: Samples(recorder.expirationLateness),
            overrunToFrozen: Samples(recorder.frozenLateness),
            resumeAllNanoseconds: resumeAll, resumeAllCompletedNanoseconds: resumeAllCompleted, resumed: counter.value,
            expected: everyone * tasksPerGuest)
    }

    /// Reads the event stream on the host queue: when each guest entered background, its
    /// handlers' times, and when it was frozen for overrunning.
    private final class Recorder: @unchecked Sendable {
        private let lock = NSLock()
        private let grace: Double
        private let budget: Double
        private var enteredBackground: [String: Double] = [:]
        private var expirations: [Double] = []
        private var frozen: [Double] = []
        private var resumed: [Double] = []

        init(grace: Double, budget: Double) {
            self.grace = grace
            self.budget = budget
        }

        func note(_ event: HostEvent) {
            let now = monotonicNanoseconds()
            guard let guest = event.guest else { return }
            lock.withLock {
                switch event.kind {
                case .appState where event.from == "notRunning" && event.to == "background":
                    enteredBackground[guest] = now
                case .log:
                    // "expired <ns> <ns> ...": when each of its handlers ran.
                    guard let text = event.message, text.hasPrefix("expired "),
                        let entered = enteredBackground[guest]
                    else { return }
                    for ran in text.split(separator: " ").dropFirst().compactMap({ Double($0) }) {
                        expirations.append(ran - (entered + budget - grace))
                    }
                case .resumed:
                    resumed.append(now)
                case .suspended where event.reason == .budgetExpired:
                    if let entered = enteredBackground[guest] { frozen.append(now - (entered + budget)) }
                default:
                    break
                }
            }
        }

        var frozenCount: Int { lock.withLock { frozen.count } }
        var lastResumed: Double? { lock.withLock { resumed.max() } }
        var expirationLateness: [Double] { lock.withLock { expirations } }
        var frozenLateness: [Double] { lock.withLock { frozen } }
    }

    private final class Counter: @unchecked Sendable {
        // Touched on the host queue only.
        var value = 0
    }
}

/// The baseline for expiration lateness: bare DispatchSourceTimers on one serial queue (as the
/// host's timers are), strict and without leeway, due in the same pattern as the guests'
/// handlers: `groups` instants `stagger` apart, `perGroup` timers at each.
func bareTimerLateness(groups: Int, perGroup: Int, stagger: Duration, firstAfter: Duration) -> Samples {
    let queue = DispatchQueue(label: "bench.timers")
    let done = DispatchGroup()
    let lock = NSLock()
    var lateness: [Double] = []
    var timers: [any DispatchSourceTimer] = []
    let start = DispatchTime.now()
    for group in 0..<groups {
        let due = start + .nanoseconds(Int((firstAfter + stagger * group).nanoseconds))
        for _ in 0..<perGroup {
            done.enter()
            let timer = DispatchSource.makeTimerSource(flags: .strict, queue: queue)
            timer.schedule(deadline: due, leeway: .nanoseconds(0))
            timer.setEventHandler {
                let late = monotonicNanoseconds() - Double(due.uptimeNanoseconds)
                lock.withLock { lateness.append(late) }
                done.leave()
            }
            timer.activate()
            timers.append(timer)
        }
    }
    done.wait()
    timers.forEach { $0.cancel() }
    return Samples(lateness)
}

extension Duration {
    var nanoseconds: Int64 {
        components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000
    }

    var timeIntervalValue: TimeInterval { Double(nanoseconds) / 1e9 }
}
