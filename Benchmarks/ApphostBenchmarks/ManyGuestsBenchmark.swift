import ApphostExecutors
import ApphostPolicy
import ApphostService
import ApphostVocabulary
import Dispatch
import Foundation

/// Many isolated guests at once: launched together, then all suspended (their workers frozen),
/// on this machine's cores.
struct ManyGuestsBenchmark {
    let opener: any GuestOpener
    let guestPaths: [String]
    let dataDirectory: String

    struct Result {
        var launchSeconds: Double
        var suspendSeconds: Double
        var launched: Int
        var suspended: Int
        var workers: ProcessMemory
        var host: ProcessMemory
        var availableDropKiB: Int
    }

    func run() -> Result {
        let recorder = RecordingOpener(opener)
        let hostQueue = DispatchQueue(label: "bench.host")
        // Suspended by the benchmark, not automatically (B6) while the others still launch.
        let core = HostCore(
            opener: recorder, clock: DispatchHostClock(queue: hostQueue), hostQueue: hostQueue,
            sessionIDs: RandomSessionIDs(),
            guestsDirectory: dataDirectory, background: BackgroundPolicy(suspendDelay: .seconds(3600)), emit: { _ in })
        let availableBefore = ProcessMemory.available()
        let counter = Counter()

        let launched = DispatchGroup()
        let launchStart = monotonicNanoseconds()
        for path in guestPaths {
            launched.enter()
            hostQueue.async {
                core.launch(path: path, foreground: false) { result in
                    if case .success = result { counter.launched += 1 }
                    launched.leave()
                }
            }
        }
        launched.wait()
        let launchSeconds = (monotonicNanoseconds() - launchStart) / 1e9

        let suspended = DispatchGroup()
        let suspendStart = monotonicNanoseconds()
        hostQueue.sync {
            for guest in core.status().guests {
                suspended.enter()
                core.suspend(guest.id) { result in
                    if case .success = result { counter.suspended += 1 }
                    suspended.leave()
                }
            }
        }
        suspended.wait()
        let suspendSeconds = (monotonicNanoseconds() - suspendStart) / 1e9

        let workers = recorder.pids.map { ProcessMemory(pid: $0) }.reduce(ProcessMemory(), +)
        let result = Result(
            launchSeconds: launchSeconds, suspendSeconds: suspendSeconds, launched: counter.launched,
            suspended: counter.suspended, workers: workers, host: ProcessMemory(pid: getpid()),
            availableDropKiB: availableBefore - ProcessMemory.available())

        let stopped = DispatchSemaphore(value: 0)
        hostQueue.async { core.shutdown { stopped.signal() } }
        stopped.wait()
        return result
    }

    private final class Counter: @unchecked Sendable {
        // Touched on the host queue only.
        var launched = 0
        var suspended = 0
    }
}

/// The idle memory of one isolated guest's worker, a second after its scene became active.
func idleWorkerMemory(opener: any GuestOpener, guestPath: String, dataDirectory: String) -> ProcessMemory {
    let recorder = RecordingOpener(opener)
    let hostQueue = DispatchQueue(label: "bench.host")
    let active = DispatchSemaphore(value: 0)
    let core = HostCore(
        opener: recorder, clock: DispatchHostClock(queue: hostQueue), hostQueue: hostQueue,
        sessionIDs: RandomSessionIDs(),
        guestsDirectory: dataDirectory,
        emit: { event in
            if event.kind == .log, event.message?.hasPrefix("callback did_become_active") == true { active.signal() }
        })
    hostQueue.async { core.launch(path: guestPath, foreground: true) }
    active.wait()
    Thread.sleep(forTimeInterval: 1)
    let memory = recorder.pids.first.map { ProcessMemory(pid: $0) } ?? ProcessMemory()
    let stopped = DispatchSemaphore(value: 0)
    hostQueue.async { core.shutdown { stopped.signal() } }
    stopped.wait()
    return memory
}
