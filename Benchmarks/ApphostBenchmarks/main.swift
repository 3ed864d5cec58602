// Benchmarks for apphost. Run from the package root:
//
//     swift build -c release && .build/release/apphost-benchmarks
//
// Each figure is measured beside its baseline in the same run, on the same machine, so that the
// ratio means something even on a busy or slow machine. Targets are in Benchmarks/README.md.
import ApphostHost
import Dispatch
import Foundation

let arguments = CommandLine.arguments.dropFirst()
let iterations = arguments.first.flatMap(Int.init) ?? 2_000
let buildDirectory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
    .deletingLastPathComponent()
let sampleGuest = buildDirectory.appendingPathComponent("libCSampleGuest.so").path

guard FileManager.default.fileExists(atPath: sampleGuest) else {
    FileHandle.standardError.write(
        Data("apphost-benchmarks: \(sampleGuest) is missing; run `swift build -c release` first\n".utf8))
    exit(1)
}
let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("apphost-bench-\(getpid())")
try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: scratch) }

print("apphost benchmarks: \(iterations) iterations each, \(ProcessInfo.processInfo.activeProcessorCount) cores")
print("")

// (a) Load and launch the C sample until its scene's did_become_active has run, in-process.
let launch = LaunchBenchmark(guestPath: sampleGuest, dataDirectory: scratch.path)
let launchSamples = launch.run(iterations: min(iterations, 500))
Report.print("launch to did_become_active (in-process)", launchSamples, target: "median < 1 ms")

// (b) One host-to-guest callback round trip on the in-process channel, beside a bare
// DispatchQueue hop to another queue and back, measured the same way in the same run.
let roundTrip = RoundTripBenchmark(guestPath: sampleGuest, dataDirectory: scratch.path)
let (channelSamples, bareSamples) = roundTrip.run(iterations: iterations)
Report.print("callback round trip, in-process channel", channelSamples)
Report.print("bare DispatchQueue async round trip", bareSamples)
Report.ratio("channel / bare (median)", channelSamples.median / bareSamples.median, target: "<= 1.5")
