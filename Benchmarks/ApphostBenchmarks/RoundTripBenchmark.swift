import ApphostChannels
import ApphostExecutors
import ApphostVocabulary
import Dispatch
import Foundation

/// Host-to-guest callback round trips on a channel: `send` of did_receive_memory_warning, which
/// the minimal guest does not implement, and its reply back on the host queue, chained there. The
/// host queue is the one `apphost` runs such guests on: the host's event loop for workers, a
/// Dispatch queue for in-process guests (`IsolationOption.makeHostQueue`).
struct RoundTripBenchmark {
    let opener: any GuestOpener
    let guestPath: String
    let dataDirectory: String
    var hostQueue: any HostExecutor = HostEventLoop.shared

    /// Opens the guest, warms both up, then alternates batches of channel round trips with
    /// batches of `baseline`, so that both see the same machine conditions.
    func run(iterations: Int, baseline: (Int) -> [Double]) throws -> (channel: Samples, baseline: Samples) {
        let hostQueue = hostQueue
        let channel = try openChannel(opener, path: guestPath, dataDirectory: dataDirectory, on: hostQueue)

        let message = GuestMessage(call: .didReceiveMemoryWarning, appState: .background)
        // Warm-up, not measured: see `warmUp`.
        let warmUpEnd = monotonicNanoseconds() + Self.warmUp
        while monotonicNanoseconds() < warmUpEnd {
            _ = chain(count: 100, on: hostQueue) { done in channel.send(message) { _ in done() } }
            _ = baseline(100)
        }
        var channelDurations: [Double] = []
        var baselineDurations: [Double] = []
        for _ in 0..<max(1, iterations / 100) {
            channelDurations += chain(count: 100, on: hostQueue) { done in
                channel.send(message) { _ in done() }
            }
            baselineDurations += baseline(100)
        }
        let closed = DispatchSemaphore(value: 0)
        hostQueue.execute { channel.close { closed.signal() } }
        closed.wait()
        return (Samples(channelDurations), Samples(baselineDurations))
    }

    /// How long round trips and the baseline alternate, unmeasured, before measuring. In their
    /// first 50 to 150 ms on the 2-core VM both ran 3 to 7 times slower (40 to 90 us) than once
    /// settled (9 to 17), and a run of 300 iterations measured little else.
    static let warmUp = 500_000_000.0

}

/// Opens `path` through `opener` on `hostQueue` and waits for its channel.
func openChannel(_ opener: any GuestOpener, path: String, dataDirectory: String, on hostQueue: any HostExecutor) throws
    -> any GuestChannel
{
    final class ChannelBox: @unchecked Sendable {
        // Written on the host queue, read after the semaphore.
        var result: Result<OpenedGuest, LoadError>?
    }
    let opened = DispatchSemaphore(value: 0)
    let box = ChannelBox()
    hostQueue.execute {
        opener.open(
            path: path, guestsDirectory: dataDirectory, hostQueue: hostQueue, onEvent: { _ in },
            completion: { result in
                box.result = result
                opened.signal()
            })
    }
    opened.wait()
    return try box.result!.get().channel
}

/// The worker channel's chained round trips beside the raw ping-pong, over four pairs of fresh
/// processes: the scheduler keeps a ping-ponging pair on one processor or on two for as long as it
/// lasts (on the 2-core VM 9 or 12 us for the raw pair, 11 or 15 for the worker's), and one pair of
/// each would make the ratio a draw of those.
func runWorkerRoundTrips(iterations: Int, opener: any GuestOpener, guestPath: String, dataDirectory: String) throws {
    var workerSamples: [Double] = []
    var pingSamples: [Double] = []
    for _ in 0..<4 {
        let pingPong = try SocketpairPingPong()
        let (trips, pings) = try RoundTripBenchmark(
            opener: opener, guestPath: guestPath, dataDirectory: dataDirectory
        ).run(iterations: max(100, iterations / 4), baseline: pingPong.measure)
        workerSamples += trips.sorted
        pingSamples += pings.sorted
    }
    let workerTrips = Samples(workerSamples)
    let pings = Samples(pingSamples)
    Report.print("callback round trip, worker channel", workerTrips)
    Report.print("raw socketpair ping-pong, two processes", pings)
    Report.ratio("worker / raw (median)", workerTrips.median / pings.median, target: "<= 1.5")
}

/// Runs `hop` `count` times back to back on `queue`, each starting when the previous one called
/// `done`, and returns each hop's duration.
func chain(
    count: Int, on queue: any HostExecutor, hop: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void
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
    queue.execute { next(count) }
    finished.wait()
    return recorder.values
}

/// Durations appended on one serial queue and read after it signalled completion.
final class DurationRecorder: @unchecked Sendable {
    var values: [Double] = []
}
