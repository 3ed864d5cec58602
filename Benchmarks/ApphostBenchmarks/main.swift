// Benchmarks for apphost. Run from the package root:
//
//     swift build -c release && .build/release/apphost-benchmarks [iterations] [soak|region|sound|actions|http|fairshare|sporadic|density|flood|hostile]
//
// Each figure is measured beside its baseline in the same run, on the same machine, so that the
// ratio means something even on a busy or slow machine. Targets are in Benchmarks/README.md.
import ApphostChannels
import ApphostFreezing
import ApphostLimits
import ApphostPolicy
import ApphostServiceTesting
import Dispatch
import Foundation

let iterations = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 2_000
let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("apphost-bench-\(getpid())")
try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: scratch) }
let dataDirectory = scratch.appendingPathComponent("data").path

HostDescriptorLimit.raise()  // as `apphost launch` does: 200 guests take some 800 descriptors
// The hosts the benchmarks start, root ones included, record their guests' users in a registry
// of their own, removed with the scratch directory, never in the machine's (/var/lib/apphost-uids).
if ProcessInfo.processInfo.environment["APPHOST_UID_REGISTRY"] == nil {
    setenv("APPHOST_UID_REGISTRY", scratch.appendingPathComponent("uids").path, 1)
}
let guests = try GuestBuilds(into: scratch)

// `apphost-benchmarks [iterations] region` runs the session region's wake-to-render benchmark alone.
try runAlone("region", standard: 2_000, counting: "periods each", scratch: scratch) { periods in
    try runRegionBenchmark(iterations: periods, guests: guests)
}

// `apphost-benchmarks [seconds] sound` runs the sound benchmarks alone: 64 and 16 sessions through
// the built apphost, each window `seconds` long (60 unless told), the measured output latency over
// as long, and the region's wake-to-render (2000 periods) that they rest on.
try runAlone("sound", standard: 60, counting: "s windows", scratch: scratch) { seconds in
    try runSoundBenchmarks(seconds: seconds, guests: guests, scratch: scratch)
    print("")
    try runRegionBenchmark(iterations: 2_000, guests: guests)
}

// `apphost-benchmarks [iterations] actions` runs the actions benchmarks alone: libffi beside direct
// calls, the runtime's whole path, and `ctl call` through the built apphost in both isolation
// modes, `iterations` requests of each verb over one connection (5000 unless told).
try runAlone("actions", standard: 5_000, counting: "requests each", scratch: scratch) { roundTrips in
    try runActionsBenchmarks(
        roundTrips: roundTrips, processes: actionCLIProcesses(roundTrips), guests: guests, scratch: scratch)
}

// `apphost-benchmarks [seconds] http` runs the HTTP API's benchmark alone: ps and switch through
// wrk beside the control socket, with 200 guests loaded, `seconds` of load each (10 unless told).
try runAlone("http", standard: 10, counting: "s of load each", scratch: scratch) { seconds in
    try runHTTPBenchmarks(seconds: seconds, guests: guests, scratch: scratch)
}

// `apphost-benchmarks [spinners] fairshare` runs the fair-share benchmark alone: the host's timers
// with `spinners` (50 unless told) isolated guests idle, spinning under the workers' lower
// priority, and spinning without it.
try runAlone("fairshare", standard: 50, counting: "guests", scratch: scratch) { spinners in
    try runFairShareBenchmark(spinners: spinners, guests: guests, scratch: scratch)
}

// `apphost-benchmarks [guests] density` runs the density benchmark alone: `guests` minimal guests,
// or with 0 as many as the host's descriptor limit holds up to 10,000, beside a host of 10.
try runAlone("density", standard: 0, counting: "guests asked (0: as many as the limit holds)", scratch: scratch) {
    count in
    try runDensityBenchmark(count: count > 0 ? count : nil, guests: guests, scratch: scratch)
}

// `apphost-benchmarks [seconds] flood` runs the flooding-guest benchmark alone: the built apphost
// with a guest flapping its audio session beside the C sample, against the C sample alone, in
// each isolation mode with `--worker-nice 0`, `seconds` each (15 unless told; about 75 s in all).
try runAlone("flood", standard: 15, counting: "s each", scratch: scratch) { seconds in
    try runFloodBenchmark(seconds: seconds, guests: guests, scratch: scratch)
}

// `apphost-benchmarks [seconds] hostile [load]` runs the benchmark of healthy sound sessions beside
// `apphost-benchmarks [runs] check` times `apphost check` on the C sample alone (5 runs unless
// told), beside `inspect --launch`; the full run does the same.
try runAlone("check", standard: 5, counting: "runs", scratch: scratch) { runs in
    try runCheckBenchmark(guests: guests, runs: runs)
}

// hostile guests alone: 20 tones alone, then beside seven hostile guests, two pairs of windows of
// `seconds` (20 unless told; about two minutes in all), each in a fresh host, with `load` busy
// processes at nice 0 through all of them (none unless told). Not in the full run.
try runAlone("hostile", standard: 20, counting: "s windows", scratch: scratch) { seconds in
    let load = CommandLine.arguments.dropFirst(3).first.flatMap(Int.init) ?? 0
    try runHostileSoundBenchmark(seconds: seconds, load: load, guests: guests, scratch: scratch)
}

// Workers contained as `apphost launch` contains them (--sandbox auto, CONTRACT X6).
var workerOpener = try WorkerOpener(workerPath: WorkerExecutable.locate(), freezer: Freezers.best())
workerOpener.containers = ContainerPolicy(WorkerSandbox.support(workerPath: workerOpener.workerPath))

// `apphost-benchmarks [rounds] sporadic` runs the worker channel's round trips alone: chained (2000,
// as the full run's default), then each call after 10 ms of idleness beside the raw pair after as
// long, `rounds` of each (400 unless told); some 20 s.
try runAlone("sporadic", standard: 400, counting: "rounds each", scratch: scratch) { rounds in
    // The chained round trips too, as in the full run: a change for the one must keep the other.
    try runWorkerRoundTrips(
        iterations: 2_000, opener: workerOpener, guestPath: guests.minimal, dataDirectory: dataDirectory)
    try runSporadicBenchmark(
        rounds: rounds, opener: workerOpener, guestPath: guests.minimal, dataDirectory: dataDirectory)
    // And with workers at `apphost launch`'s default `--worker-nice` (10): a nicer worker woken
    // beside the host queue's thread need not preempt it, nor does the raw pair's `cat`, as nice.
    let niceOpener = try WorkerOpener(
        workerPath: WorkerExecutable.locate(), freezer: Freezers.best(), priority: WorkerPriority(niceOffset: 10))
    try runSporadicBenchmark(
        rounds: rounds, opener: niceOpener, guestPath: guests.minimal, dataDirectory: dataDirectory, niceOffset: 10)
}

// `apphost-benchmarks [cycles] soak` runs the launch/terminate soaks alone, `cycles` times each.
try runAlone("soak", standard: 10_000, counting: "cycles each", scratch: scratch) { cycles in
    try runSoaks(cycles: cycles, guests: guests, workerOpener: workerOpener, scratch: scratch)
}

print("apphost benchmarks: \(iterations) iterations each, \(ProcessInfo.processInfo.activeProcessorCount) cores")
print("")

// In-process: the guest runs on a queue of the host's. The host's threads and their wakeups once
// idle, before the launches and after them (issue 19, point 3), after the settle that lets
// Dispatch's idle threads go.
let freshThreads = ThreadCensus.measure()
let launchThreads = ThreadCensus.Peak()
let inProcessLaunch = LaunchBenchmark(opener: InProcessOpener(), guestPath: guests.sample, dataDirectory: dataDirectory)
Report.print(
    "launch to did_become_active, in-process", inProcessLaunch.run(iterations: min(iterations, 500)),
    target: "median < 1 ms")
let mostThreads = launchThreads.stop()
settle()
ThreadCensus.print(
    "host threads, fresh -> after the launches", fresh: freshThreads, after: ThreadCensus.measure(),
    most: mostThreads)

let dispatchHop = DispatchHopBaseline()
var inProcessRoundTrips = RoundTripBenchmark(
    opener: InProcessOpener(), guestPath: guests.minimal, dataDirectory: dataDirectory)
inProcessRoundTrips.hostQueue = DispatchQueue(label: "bench.host")
let (inProcessTrips, hops) = try inProcessRoundTrips.run(iterations: iterations, baseline: dispatchHop.measure)
Report.print("callback round trip, in-process channel", inProcessTrips)
Report.print("bare DispatchQueue async round trip", hops)
Report.ratio("in-process / bare (median)", inProcessTrips.median / hops.median, target: "<= 1.5")
print("")

// Process isolation: each guest in a worker process of its own; chained round trips, then
// sporadic ones, one after 10 ms of idleness on both sides, each beside the raw pair's.
try runWorkerRoundTrips(
    iterations: iterations, opener: workerOpener, guestPath: guests.minimal, dataDirectory: dataDirectory)
try runSporadicBenchmark(
    rounds: min(iterations, 400), opener: workerOpener, guestPath: guests.minimal, dataDirectory: dataDirectory)

let isolatedLaunch = LaunchBenchmark(opener: workerOpener, guestPath: guests.sample, dataDirectory: dataDirectory)
Report.print(
    "launch to did_become_active, isolated", isolatedLaunch.run(iterations: min(iterations, 200)),
    target: "median < 3 ms")
// Its baseline in the same run: the container's cost is the difference.
var uncontainedOpener = workerOpener
uncontainedOpener.containers = ContainerPolicy()
let uncontainedLaunch = LaunchBenchmark(
    opener: uncontainedOpener, guestPath: guests.sample, dataDirectory: dataDirectory)
Report.print(
    "launch to did_become_active, isolated, no container", uncontainedLaunch.run(iterations: min(iterations, 200)),
    target: "reported")

let idle = idleWorkerMemory(opener: workerOpener, guestPath: guests.sample, dataDirectory: dataDirectory)
print("idle worker of the C sample:                 \(idle.summary)  target: RSS <= 3 MB")
print("")

let many = ManyGuestsBenchmark(
    opener: workerOpener, guestPaths: try guests.manyGuests(200), dataDirectory: dataDirectory
).run()
print(
    String(
        format: "200 isolated guests: launched %d in %.2f s, suspended %d in %.2f s", many.launched, many.launchSeconds,
        many.suspended, many.suspendSeconds))
print("  their workers:                             \(many.workers.summary)")
print("  the host process:                          \(many.host.summary)")
print(String(format: "  MemAvailable dropped by                    %.1f MB", Double(many.availableDropKiB) / 1024))
print("")

// Background budgets (B3, B4, B7): 100 isolated guests holding 10 tasks each, launched 10 ms apart
// so that their deadlines spread over 1 s; a 3 s budget with expiration 1 s before its end.
let backgroundPolicy = BackgroundPolicy(budget: .seconds(3), expirationGrace: .seconds(1), suspendDelay: .seconds(3600))
let stagger = Duration.milliseconds(10)
let bareTimers = bareTimerLateness(
    groups: 100, perGroup: 10, stagger: stagger, firstAfter: backgroundPolicy.budget - backgroundPolicy.expirationGrace)
let budgets = try BackgroundBenchmark(
    opener: workerOpener, guestPaths: try guests.overrunningGuests(100, tasks: 10), tasksPerGuest: 10,
    dataDirectory: dataDirectory, stagger: stagger, policy: backgroundPolicy
).run()
Report.print("expiration lateness, 1000 tasks in 100 guests", budgets.expirationLateness, target: "p99 < 2 ms")
Report.print("bare DispatchSourceTimer lateness, 1000 timers", bareTimers)
Report.ratio(
    "expiration / bare timer (p99)",
    budgets.expirationLateness.percentile(99) / bareTimers.percentile(99), target: "<= 2")
Report.print("overrun to frozen, 100 guests", budgets.overrunToFrozen, target: "p99 < 2 ms")
print(
    String(
        format: "resume 100 suspended guests at once:        %@ (%d resumed)  target: < 5 ms",
        Report.format(budgets.resumeAllNanoseconds) as NSString, budgets.resumed))
print(
    String(
        format: "  until every budget and held call was sent: %@",
        Report.format(budgets.resumeAllCompletedNanoseconds) as NSString))
print("")

// Audio (C13): a session region's wake-to-render latency beside bare wakes of another process.
try runRegionBenchmark(iterations: iterations, guests: guests)
print("")

// Sound (C13): many sessions through the built apphost and the measured output latency, in 10 s
// windows here (some 70 s in all); `apphost-benchmarks 60 sound` runs them for a minute each.
try runSoundBenchmarks(seconds: 10, guests: guests, scratch: scratch)
print("")

// Scene state in SQLite (S12): durable saves beside bare inserts of the same durability.
let persistence = PersistenceBenchmark(directory: scratch.path)
let (saves, inserts) = try persistence.saves(iterations: min(iterations, 1000))
Report.print("durable save of a 4 KB scene state", saves, target: "p99 < 2 ms")
Report.print("bare SQLite insert, WAL, synchronous=FULL", inserts)
print("restore 10,000 sessions at host start:       \(Report.format(try persistence.restore(count: 10_000)))")
print("")

// Typed actions (F1 to F3): libffi beside direct calls, the runtime's path, `ctl call` through the
// built apphost beside verbs that do not reach the guest.
try runActionsBenchmarks(
    roundTrips: iterations, processes: actionCLIProcesses(iterations), guests: guests, scratch: scratch)
print("")

// `apphost check` (issue 38): the whole suite on the C sample, as an author runs it.
try runCheckBenchmark(guests: guests, runs: 5)
print("")

// Density (issue 19): as many minimal guests as the descriptor limit holds, up to 10,000, beside 10.
try runDensityBenchmark(count: nil, guests: guests, scratch: scratch)
print("")

// Leaks (issue 2 of 8, point 7): 10,000 launch/terminate cycles, isolated and in-process, beside
// as many bare process spawns.
try runSoaks(cycles: 10_000, guests: guests, workerOpener: workerOpener, scratch: scratch)
