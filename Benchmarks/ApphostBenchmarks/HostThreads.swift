import Foundation
import Glibc
import Synchronization

/// The host process's threads and how often they woke over a quiet window: each thread's context
/// switches (voluntary and not) in /proc/self/task/<tid>/status, summed over the threads but the
/// one that measures, which sleeps through the window.
struct HostThreads {
    let threads: Int
    let wakeupsPerSecond: Double

    /// Counts the threads, sleeps `seconds`, and counts each one's switches again. A thread that
    /// ends during the window counts for nothing; one that starts, for all its switches.
    static func measure(over seconds: Double = 2) -> HostThreads {
        // /proc/thread-self links to <pid>/task/<tid>: this thread's id.
        let me =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self"))
            .flatMap { pid_t($0.split(separator: "/").last ?? "") } ?? 0
        let before = switches(excluding: me)
        Thread.sleep(forTimeInterval: seconds)
        let after = switches(excluding: me)
        let woken = after.reduce(0) { sum, entry in sum + entry.value - (before[entry.key] ?? 0) }
        return HostThreads(threads: after.count + 1, wakeupsPerSecond: Double(woken) / seconds)
    }

    static func count() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? 0
    }

    /// One line: the host's threads and wakeups a second before and after, and the most threads
    /// `peak` saw in between.
    static func print(_ name: String, fresh: HostThreads, after: HostThreads, most: Int) {
        Swift.print(
            name.padding(toLength: 44, withPad: " ", startingAt: 0)
                + String(
                    format: " threads %d -> %d, wakeups %.1f/s -> %.1f/s; at most %d threads meanwhile",
                    fresh.threads, after.threads, fresh.wakeupsPerSecond, after.wakeupsPerSecond, most))
    }

    /// The most threads the host had, sampled every 10 ms on a thread of its own until `stop`
    /// (that thread not counted).
    final class Peak: Sendable {
        private let state = Mutex((most: 0, running: true))
        private let finished = DispatchSemaphore(value: 0)

        init() {
            Thread.detachNewThread { [self] in
                while state.withLock({ $0.running }) {
                    let threads = HostThreads.count() - 1
                    state.withLock { $0.most = max($0.most, threads) }
                    Thread.sleep(forTimeInterval: 0.01)
                }
                finished.signal()
            }
        }

        func stop() -> Int {
            state.withLock { $0.running = false }
            finished.wait()
            return state.withLock { $0.most }
        }
    }

    /// Each thread's voluntary and involuntary context switches so far, by thread id.
    private static func switches(excluding excluded: pid_t) -> [pid_t: Int] {
        let tids = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        var counts: [pid_t: Int] = [:]
        for name in tids {
            guard let tid = pid_t(name), tid != excluded,
                let status = try? String(contentsOfFile: "/proc/self/task/\(name)/status", encoding: .utf8)
            else { continue }
            counts[tid] = status.split(separator: "\n").reduce(0) { sum, line in
                guard line.hasPrefix("voluntary_ctxt_switches:") || line.hasPrefix("nonvoluntary_ctxt_switches:")
                else { return sum }
                return sum + (Int(line.split(separator: ":").last?.trimmingCharacters(in: .whitespaces) ?? "") ?? 0)
            }
        }
        return counts
    }
}
