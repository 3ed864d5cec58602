import ApphostHost
import Dispatch
import Foundation

/// A host-to-guest callback and its reply on a channel, beside a bare hop from the host queue to
/// another serial queue and back. Both are chained on the host queue and timed there.
struct RoundTripBenchmark {
    let guestPath: String
    let dataDirectory: String

    func run(iterations: Int) -> (channel: Samples, bare: Samples) {
        let hostQueue = DispatchQueue(label: "bench.host")
        let opened = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var channel: (any GuestChannel)?
        hostQueue.async {
            InProcessOpener().open(
                path: guestPath, guestsDirectory: dataDirectory, hostQueue: hostQueue, onEvent: { _ in },
                completion: { result in
                    channel = try? result.get().channel
                    opened.signal()
                })
        }
        opened.wait()
        guard let channel else { fatalError("cannot open \(guestPath)") }

        // Interleave the two measurements so that both see the same machine conditions.
        var channelDurations: [Double] = []
        var bareDurations: [Double] = []
        let guestQueue = DispatchQueue(label: "bench.guest")
        let message = GuestMessage(call: .didReceiveMemoryWarning, appState: .background)
        for _ in 0..<(iterations / 100) {
            channelDurations += chain(count: 100, on: hostQueue) { done in
                channel.send(message) { _ in done() }
            }
            bareDurations += chain(count: 100, on: hostQueue) { done in
                guestQueue.async { hostQueue.async { done() } }
            }
        }
        let closed = DispatchSemaphore(value: 0)
        hostQueue.async { channel.close { closed.signal() } }
        closed.wait()
        return (Samples(channelDurations), Samples(bareDurations))
    }

    /// Runs `hop` `count` times back to back on `queue`, each starting when the previous one
    /// called `done`, and returns each hop's duration.
    private func chain(
        count: Int, on queue: DispatchQueue, hop: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void
    ) -> [Double] {
        let finished = DispatchSemaphore(value: 0)
        let recorder = DurationRecorder()
        @Sendable func next(_ remaining: Int) {
            guard remaining > 0 else {
                finished.signal()
                return
            }
            let start = monotonicNanoseconds()
            hop {
                recorder.values.append(monotonicNanoseconds() - start)
                next(remaining - 1)
            }
        }
        queue.async { next(count) }
        finished.wait()
        return recorder.values
    }
}

/// Durations appended on one serial queue and read after it signalled completion.
final class DurationRecorder: @unchecked Sendable {
    var values: [Double] = []
}
