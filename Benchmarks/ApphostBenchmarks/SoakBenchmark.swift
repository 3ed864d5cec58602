import ApphostChannels
import ApphostControl
import ApphostExecutors
import ApphostService
import ApphostVocabulary
import Dispatch
import Foundation
import Glibc
import Logging
import Synchronization

/// The host's own memory: resident (VmRSS) as an operator sees it, then again once malloc has
/// given back what it holds free (`malloc_trim`), and what malloc has handed out and not had back
/// (mallinfo2's in-use bytes over every arena, mmapped blocks included), which moves by the byte,
/// with no page rounding and nothing that malloc merely keeps for later. And its threads.
struct HostMemory {
    let rssKiB: Int
    let trimmedRSSKiB: Int
    let heapBytes: Int
    let threads: Int

    /// The functions of Benchmarks/Support/heap_in_use.c, loaded by `load`.
    nonisolated(unsafe) private static var heapInUse: (@convention(c) () -> Int)?
    nonisolated(unsafe) private static var trim: (@convention(c) () -> Void)?

    /// Loads the probe that GuestBuilds built; call once, before any reading.
    static func load(probe path: String) throws {
        guard let library = dlopen(path, RTLD_NOW), let inUse = dlsym(library, "apphost_bench_heap_in_use"),
            let trim = dlsym(library, "apphost_bench_heap_trim")
        else {
            throw BenchmarkFailure("cannot load \(path): \(String(cString: dlerror()))")
        }
        heapInUse = unsafeBitCast(inUse, to: (@convention(c) () -> Int).self)
        Self.trim = unsafeBitCast(trim, to: (@convention(c) () -> Void).self)
    }

    /// Has malloc give back what it holds free, so that what earlier benchmarks left free does
    /// not count in the next reading.
    static func trimHeap() { trim?() }

    /// Reads RSS, the heap and the threads, then trims and reads RSS again.
    static func now() -> HostMemory {
        let rss = ProcessMemory(pid: getpid()).rssKiB
        let heap = heapInUse?() ?? 0
        let threads = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? 0
        trim?()
        return HostMemory(
            rssKiB: rss, trimmedRSSKiB: ProcessMemory(pid: getpid()).rssKiB, heapBytes: heap, threads: threads)
    }
}

/// What a soak measured: the host's memory once warmed up and settled, and after the cycles and
/// settled again.
struct SoakResult {
    let cycles: Int
    let before: HostMemory
    let after: HostMemory
    let seconds: Double

    /// Three lines: RSS before and after, in all and per cycle; the same once malloc has given
    /// back what it holds free; the heap in use likewise, and the threads.
    func print(_ name: String, target: String? = nil) {
        func growth(_ before: Int, _ after: Int, unit: Double) -> String {
            String(
                format: "%.2f -> %.2f MB (%+.2f MB, %+.0f B/cycle)", Double(before) / unit, Double(after) / unit,
                Double(after - before) / unit, Double(after - before) * (1_048_576 / unit) / Double(max(cycles, 1)))
        }
        Swift.print(
            name.padding(toLength: 44, withPad: " ", startingAt: 0) + " RSS "
                + growth(before.rssKiB, after.rssKiB, unit: 1024) + (target.map { "  target: \($0)" } ?? ""))
        Swift.print(
            "  RSS once malloc gave back its free memory  "
                + growth(before.trimmedRSSKiB, after.trimmedRSSKiB, unit: 1024))
        Swift.print(
            "  heap in use                               " + growth(before.heapBytes, after.heapBytes, unit: 1_048_576)
                + String(
                    format: "; threads %d -> %d; %d cycles in %.1f s", before.threads, after.threads, cycles, seconds))
    }
}

/// Runs `cycle` `warmUp` times unmeasured (Dispatch's threads, malloc's arenas and the store's
/// caches settle), then `cycles` times between two readings of the host's memory, each taken
/// once what a cycle leaves timed has run out (`settle`). Both stretches start from a trimmed
/// heap (a reading trims after it has read RSS), so that the two RSS readings compare.
func soak(cycles: Int, warmUp: Int, _ cycle: () throws -> Void) rethrows -> SoakResult {
    HostMemory.trimHeap()
    for _ in 0..<warmUp { try cycle() }
    settle()
    let before = HostMemory.now()
    let start = monotonicNanoseconds()
    for _ in 0..<cycles { try cycle() }
    let seconds = (monotonicNanoseconds() - start) / 1e9
    settle()
    return SoakResult(cycles: cycles, before: before, after: HostMemory.now(), seconds: seconds)
}

/// Waits until Dispatch has let go of the threads the cycles woke (one idle for 5 s goes, and its
/// caches with it) and anything timed has run: what is left after that is kept for good.
func settle() {
    Thread.sleep(forTimeInterval: 8)
}

/// Launches a guest and terminates it, over and over, as an operator would with `apphost launch`
/// and `apphost ctl terminate` / `ctl switch`: through a started `HostService` (its store, event
/// fan-out and control responder), by the control requests themselves, without the socket.
struct SoakBenchmark {
    let opener: any GuestOpener
    let guestPath: String
    let dataDirectory: String

    func run(cycles: Int, warmUp: Int) throws -> SoakResult {
        let service = HostService(
            dataDirectory: DataDirectory(path: dataDirectory), opener: opener, hostQueue: HostEventLoop.shared,
            logger: Logger(label: "bench.soak") { _ in SwiftLogNoOpLogHandler() })
        try service.start()
        defer {
            let stopped = DispatchSemaphore(value: 0)
            service.shutdown { stopped.signal() }
            stopped.wait()
        }
        let launched = DispatchSemaphore(value: 0)
        let id = Mutex<String?>(nil)
        service.launch(
            paths: [guestPath],
            onOutcome: { _, result in
                if case .success(let descriptor) = result { id.withLock { $0 = descriptor.id } }
            },
            completion: { _ in launched.signal() })
        launched.wait()
        guard let guest = id.withLock({ $0 }) else { throw BenchmarkFailure("\(guestPath) did not launch") }

        func ask(_ request: some ControlCommand) throws {
            let answered = DispatchSemaphore(value: 0)
            let answer = Mutex("")
            service.respond(to: request) { line in
                answer.withLock { $0 = line }
                answered.signal()
            }
            answered.wait()
            let line = answer.withLock { $0 }
            guard !line.contains("\"ok\":false") else { throw BenchmarkFailure("\(request.line): \(line)") }
        }
        // One cycle: terminate the running guest, then relaunch it into the foreground.
        func cycle() throws {
            try ask(TerminateCommand(guest: guest))
            try ask(SwitchCommand(guest: guest))
        }
        return try soak(cycles: cycles, warmUp: warmUp, cycle)
    }
}

/// The soak's baseline: the same number of processes spawned, spoken to once over a socketpair
/// and reaped, with no host around them (`cat`, as for the round trips). What the process
/// machinery itself leaves behind (libc, Dispatch, the kernel's accounting) shows here.
func bareSpawnSoak(cycles: Int, warmUp: Int) throws -> SoakResult {
    try soak(cycles: cycles, warmUp: warmUp) {
        let pingPong = try SocketpairPingPong()
        guard pingPong.measure(1).count == 1 else { throw BenchmarkFailure("cat did not answer") }
    }
}

/// The soaks, isolated and in-process, beside their baseline.
func runSoaks(cycles: Int, guests: GuestBuilds, workerOpener: WorkerOpener, scratch: URL) throws {
    let warmUp = 200
    try HostMemory.load(probe: guests.heapProbe)
    let isolated = try SoakBenchmark(
        opener: workerOpener, guestPath: guests.sample, dataDirectory: scratch.appendingPathComponent("soak-w").path
    ).run(cycles: cycles, warmUp: warmUp)
    isolated.print("launch/terminate soak, isolated, C sample", target: "RSS flat within 1 MB")
    let inProcess = try SoakBenchmark(
        opener: InProcessOpener(), guestPath: guests.sample,
        dataDirectory: scratch.appendingPathComponent("soak-p").path
    ).run(cycles: cycles, warmUp: warmUp)
    inProcess.print("launch/terminate soak, in-process, C sample", target: "RSS flat within 1 MB")
    try bareSpawnSoak(cycles: cycles, warmUp: warmUp).print("bare spawn, ping and reap of a process")
}
