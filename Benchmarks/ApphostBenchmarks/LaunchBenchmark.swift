import ApphostExecutors
import ApphostPolicy
import ApphostService
import ApphostVocabulary
import Dispatch
import Foundation

/// Load, init and launch a guest until its scene has run did_become_active, then terminate it
/// (untimed) so that the next iteration loads the library, or starts the worker, afresh.
struct LaunchBenchmark {
    let opener: any GuestOpener
    let guestPath: String
    let dataDirectory: String

    func run(iterations: Int) -> Samples {
        let hostQueue = DispatchQueue(label: "bench.host")
        let becameActive = DispatchSemaphore(value: 0)
        let core = HostCore(
            opener: opener, clock: DispatchHostClock(queue: hostQueue), hostQueue: hostQueue,
            sessionIDs: RandomSessionIDs(),
            guestsDirectory: dataDirectory,
            emit: { event in
                // The guest logs each callback from inside it: this proves the callback ran.
                if event.kind == .log, event.message?.hasPrefix("callback did_become_active") == true {
                    becameActive.signal()
                }
            })
        var durations: [Double] = []
        for _ in 0..<iterations {
            let start = monotonicNanoseconds()
            hostQueue.async { core.launch(path: guestPath, foreground: true) }
            becameActive.wait()
            durations.append(monotonicNanoseconds() - start)
            let terminated = DispatchSemaphore(value: 0)
            hostQueue.async {
                let id = core.status().guests.first?.id ?? ""
                core.terminate(id) { _ in terminated.signal() }
            }
            terminated.wait()
        }
        return Samples(durations)
    }
}
