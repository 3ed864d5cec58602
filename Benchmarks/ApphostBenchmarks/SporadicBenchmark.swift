import ApphostChannels
import ApphostExecutors
import ApphostVocabulary
import Dispatch
import Foundation
import Glibc

/// Sporadic callbacks (issue 19, point 2): one call round trip after both sides were idle, as a
/// host calls a guest that has nothing else to do, beside the raw pair after the same idleness.
/// Each round sleeps `idle` on the benchmark's thread (the host queue, the worker and `cat` are
/// all asleep by then), then times one `send` on the host queue (`apphost`'s, the host's event
/// loop) until its reply runs there; then, after another `idle`, one raw socketpair round trip.
/// Chained round trips (the `RoundTripBenchmark`) keep every thread and processor awake; here
/// each one starts cold.
struct SporadicBenchmark {
    let opener: any GuestOpener
    let guestPath: String
    let dataDirectory: String
    var idle: Duration = .milliseconds(10)
    var hostQueue: any HostExecutor = HostEventLoop.shared
    /// How much nicer than the benchmark the raw pair's `cat` runs: the workers' nice offset.
    var baselineNiceOffset: Int32 = 0

    /// The first rounds are not measured: the first calls of a fresh worker fault in its pages.
    static let unmeasuredRounds = 20

    func run(rounds: Int) throws -> (channel: Samples, baseline: Samples) {
        let pingPong = try SocketpairPingPong(niceOffset: baselineNiceOffset)
        let hostQueue = hostQueue
        let channel = try openChannel(opener, path: guestPath, dataDirectory: dataDirectory, on: hostQueue)

        let message = GuestMessage(call: .didReceiveMemoryWarning, appState: .background)
        let answered = DispatchSemaphore(value: 0)
        let recorder = DurationRecorder()
        var baseline: [Double] = []
        for round in 0..<(rounds + Self.unmeasuredRounds) {
            sleep(for: idle)
            hostQueue.execute {
                let start = monotonicNanoseconds()
                channel.send(message) { _ in
                    recorder.values.append(monotonicNanoseconds() - start)
                    answered.signal()
                }
            }
            answered.wait()
            sleep(for: idle)
            let raw = pingPong.measure(1)
            if round >= Self.unmeasuredRounds { baseline += raw }
        }
        let closed = DispatchSemaphore(value: 0)
        hostQueue.execute { channel.close { closed.signal() } }
        closed.wait()
        // Read after the last reply signalled: nothing appends any more.
        return (Samples(Array(recorder.values.dropFirst(Self.unmeasuredRounds))), Samples(baseline))
    }

    private func sleep(for duration: Duration) {
        let (seconds, attoseconds) = duration.components
        var time = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
        var left = timespec()
        while nanosleep(&time, &left) != 0, errno == EINTR { time = left }
    }

}

/// Prints the sporadic round trips beside the raw pair's after the same idleness; `niceOffset` is
/// that of the opener's workers, and the raw pair's `cat` runs as nice.
func runSporadicBenchmark(
    rounds: Int, opener: any GuestOpener, guestPath: String, dataDirectory: String, niceOffset: Int32 = 0
) throws {
    var benchmark = SporadicBenchmark(opener: opener, guestPath: guestPath, dataDirectory: dataDirectory)
    benchmark.baselineNiceOffset = niceOffset
    let (trips, raw) = try benchmark.run(rounds: rounds)
    let nice = niceOffset == 0 ? "" : " (nice +\(niceOffset))"
    Report.print("sporadic round trip, worker channel\(nice)", trips)
    Report.print("sporadic raw socketpair round trip\(niceOffset == 0 ? "" : ", cat at nice +\(niceOffset)")", raw)
    Report.ratio("sporadic worker / raw (median)", trips.median / raw.median, target: "<= 1.5")
}
