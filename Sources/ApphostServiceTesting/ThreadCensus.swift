import Foundation
import Synchronization

/// This process's threads, and how often they woke over a quiet window: each thread's context
/// switches (voluntary and not) in /proc/self/task/<tid>/status, summed over every thread but the
/// one that measures, which sleeps through the window. For the test and the benchmark of what
/// in-process guests leave behind (issue 19, point 3).
public struct ThreadCensus: CustomStringConvertible, Sendable {
    public let threads: Int
    public let wakeupsPerSecond: Double

    public var description: String { String(format: "%d threads, %.1f wakeups/s", threads, wakeupsPerSecond) }

    /// Counts, sleeps `window`, counts again. A thread that ends during the window counts for
    /// nothing; one that starts, for all its switches.
    public static func measure(over window: Duration = .seconds(2)) -> ThreadCensus {
        let me = currentThread()
        let seconds = Double(window.components.seconds)
        let before = switches(excluding: me)
        Thread.sleep(forTimeInterval: seconds)
        let after = switches(excluding: me)
        let woken = after.reduce(0) { sum, entry in sum + entry.value - (before[entry.key] ?? 0) }
        return ThreadCensus(threads: after.count + 1, wakeupsPerSecond: Double(woken) / seconds)
    }

    /// How many threads this process has now.
    public static func count() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? 0
    }

    /// The most threads seen, sampled every 10 ms on a thread of its own until `stop`.
    public final class Peak: Sendable {
        private let state = Mutex((most: 0, running: true))
        private let finished = DispatchSemaphore(value: 0)

        public init() {
            Thread.detachNewThread { [self] in
                while state.withLock({ $0.running }) {
                    let threads = ThreadCensus.count() - 1
                    state.withLock { $0.most = max($0.most, threads) }
                    Thread.sleep(forTimeInterval: 0.01)
                }
                finished.signal()
            }
        }

        /// Stops sampling; the most threads seen, this sampler's own not counted.
        public func stop() -> Int {
            state.withLock { $0.running = false }
            finished.wait()
            return state.withLock { $0.most }
        }
    }

    /// This thread's id: /proc/thread-self links to <pid>/task/<tid>.
    private static func currentThread() -> Int32 {
        let link = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self")
        return link.flatMap { Int32($0.split(separator: "/").last ?? "") } ?? 0
    }

    /// Each thread's voluntary and involuntary context switches so far, by thread id.
    private static func switches(excluding excluded: Int32) -> [Int32: Int] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        var counts: [Int32: Int] = [:]
        for name in names {
            guard let tid = Int32(name), tid != excluded,
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
