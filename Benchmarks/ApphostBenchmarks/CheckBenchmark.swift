import Foundation

/// `apphost check` on the C sample (issue 38, point 4): the whole suite, as an author runs it on
/// every build, through the built `apphost`; beside `apphost inspect --launch` of the same guest,
/// one launch in a worker, the least any check of a launch could take.
func runCheckBenchmark(guests: GuestBuilds, runs: Int) throws {
    let apphost = try apphostExecutable()
    var suite: [Double] = []
    var inspect: [Double] = []
    for _ in 0..<runs {
        suite.append(try timed(apphost, ["check", guests.sample], expecting: 0))
        inspect.append(try timed(apphost, ["inspect", "--launch", guests.sample], expecting: 0))
    }
    Report.print("apphost check, C sample, whole suite", Samples(suite), target: "median < 30 s")
    Report.print("apphost inspect --launch, C sample", Samples(inspect))
}

/// The wall time of one run of `executable` in nanoseconds; it must exit with `expecting`.
private func timed(_ executable: String, _ arguments: [String], expecting status: Int32) throws -> Double {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    let started = monotonicNanoseconds()
    try process.run()
    process.waitUntilExit()
    let elapsed = monotonicNanoseconds() - started
    guard process.terminationStatus == status else {
        throw BenchmarkFailure("\(executable) \(arguments.joined(separator: " ")) exited \(process.terminationStatus)")
    }
    return elapsed
}
