import ApphostServiceTesting
import Foundation

extension ThreadCensus {
    /// One line: the host's threads and wakeups a second before and after, and the most threads
    /// `Peak` saw in between.
    static func print(_ name: String, fresh: ThreadCensus, after: ThreadCensus, most: Int) {
        Swift.print(
            name.padding(toLength: 44, withPad: " ", startingAt: 0)
                + String(
                    format: " threads %d -> %d, wakeups %.1f/s -> %.1f/s; at most %d threads meanwhile",
                    fresh.threads, after.threads, fresh.wakeupsPerSecond, after.wakeupsPerSecond, most))
    }
}
