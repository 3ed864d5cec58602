import ApphostControl
import ApphostGuestRuntime
import CApphost
import Foundation
import Glibc

// Typed actions (CONTRACT F1 to F3): what an action call costs, from `apphost ctl call` to its
// result, and what its libffi call costs beside a direct call of the same C function.

/// The id of Plugins/Fixtures/actions_guest.c, the guest every actions benchmark calls.
let actionsFixtureID = "org.apphost.fixtures.actions"

// MARK: - libffi beside a direct call

/// Benchmarks/Support/ffi_call.c through dlsym: each function runs a whole batch of calls in C
/// and returns its nanoseconds.
private struct FFIProbe {
    let directAdd: @convention(c) (UInt64) -> Double
    let ffiAdd: @convention(c) (UInt64) -> Double
    let directEcho: @convention(c) (UInt64) -> Double
    let ffiEcho: @convention(c) (UInt64) -> Double

    init(path: String) throws {
        guard let library = dlopen(path, RTLD_NOW) else {
            throw BenchmarkFailure("cannot load \(path): \(String(cString: dlerror()))")
        }
        func symbol<F>(_ name: String, as type: F.Type) throws -> F {
            guard let address = dlsym(library, name) else { throw BenchmarkFailure("\(path) has no \(name)") }
            return unsafeBitCast(address, to: type)
        }
        let prepare = try symbol("apphost_bench_ffi_prepare", as: (@convention(c) () -> Int32).self)
        guard prepare() == 0 else { throw BenchmarkFailure("ffi_prep_cif failed in \(path)") }
        directAdd = try symbol("apphost_bench_direct_add", as: (@convention(c) (UInt64) -> Double).self)
        ffiAdd = try symbol("apphost_bench_ffi_add", as: (@convention(c) (UInt64) -> Double).self)
        directEcho = try symbol("apphost_bench_direct_echo", as: (@convention(c) (UInt64) -> Double).self)
        ffiEcho = try symbol("apphost_bench_ffi_echo", as: (@convention(c) (UInt64) -> Double).self)
    }
}

/// Nanoseconds per call, one sample a batch, of each of `kinds`, the kinds in turn batch by
/// batch after one unmeasured batch of each.
private func interleavedBatches(
    batches: Int, size: Int, _ kinds: [(Int) -> Double]
) -> [Samples] {
    for kind in kinds { _ = kind(size) }
    var perCall: [[Double]] = Array(repeating: [], count: kinds.count)
    for _ in 0..<batches {
        for (index, kind) in kinds.enumerated() { perCall[index].append(kind(size) / Double(size)) }
    }
    return perCall.map(Samples.init)
}

// MARK: - The runtime's whole path, without a host

/// `ahr_handle` of an AHR_CALL_ACTION on the actions fixture, loaded and started in this process
/// with a reporter that drops every report: the runtime's checks of the arguments, the string
/// copies, libffi, the result's check and its report; beside direct calls of the same functions
/// through the table's pointers.
private final class RuntimeActions {
    private let runtime: OpaquePointer

    struct Action {
        let index: UInt32
        let function: apphost_action_function_t
    }

    init(guestPath: String, directory: String) throws {
        var loaded: OpaquePointer?
        var error = [CChar](repeating: 0, count: 512)
        guard ahr_load(guestPath, &loaded, &error, error.count) == AHR_LOAD_OK, let loaded else {
            throw BenchmarkFailure(
                "ahr_load \(guestPath): \(error.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })")
        }
        runtime = loaded
        let reporter = ahr_reporter(context: nil, report: { _, _ in })
        var status: Int32 = 0
        guard ahr_start(runtime, directory, "apphost-benchmarks", "1", reporter, &status) == AHR_START_OK else {
            ahr_stop(runtime)
            throw BenchmarkFailure("ahr_start of \(guestPath) failed: \(status)")
        }
        var launch = ahr_call()
        launch.kind = AHR_CALL_DID_FINISH_LAUNCHING
        launch.app_state = Int32(APPHOST_APP_STATE_ACTIVE.rawValue)
        guard ahr_handle(runtime, &launch) == Int32(APPHOST_OK.rawValue) else {
            ahr_stop(runtime)
            throw BenchmarkFailure("did_finish_launching of \(guestPath) failed")
        }
    }

    func action(named name: String) throws -> Action {
        guard let descriptor = ahr_descriptor(runtime) else { throw BenchmarkFailure("no descriptor") }
        let count = Int(descriptor.pointee.actions_read)
        let found: Action? = withUnsafeBytes(of: descriptor.pointee.actions) { raw in
            let actions = raw.bindMemory(to: ahr_raw_action.self)
            for index in 0..<count {
                guard let bytes = actions[index].name.bytes, String(cString: bytes) == name,
                    let function = actions[index].function
                else { continue }
                return Action(index: UInt32(index), function: function)
            }
            return nil
        }
        guard let found else { throw BenchmarkFailure("the actions fixture has no action \(name)") }
        return found
    }

    /// Nanoseconds for `count` calls of `action` with `arguments` through ahr_handle; nil when one
    /// did not return APPHOST_OK.
    func handle(_ action: Action, _ arguments: UnsafePointer<ahr_value>, argumentCount: Int, count: Int) -> Double? {
        var call = ahr_call()
        call.kind = AHR_CALL_ACTION
        call.app_state = Int32(APPHOST_APP_STATE_ACTIVE.rawValue)
        call.action.index = action.index
        call.action.arguments = arguments
        call.action.arguments_count = argumentCount
        let ok = Int32(APPHOST_OK.rawValue)
        var failed = false
        let start = monotonicNanoseconds()
        for _ in 0..<count {
            if ahr_handle(runtime, &call) != ok { failed = true }
        }
        let took = monotonicNanoseconds() - start
        return failed ? nil : took
    }

    deinit { ahr_stop(runtime) }
}

/// Sinks for the direct calls' results, so that none is unused.
nonisolated(unsafe) private var directSink: Int64 = 0
nonisolated(unsafe) private var directTextSink: UnsafePointer<CChar>?

// MARK: - ctl call through a real host

/// One connection to a host's control socket, blocking: a request line written, its reply line
/// read, as a client that stays connected talks to the host.
final class ControlSocket {
    private let descriptor: Int32
    private var buffer = [UInt8](repeating: 0, count: 1 << 16)

    init(path: String) throws {
        descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw BenchmarkFailure("socket failed") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            close(descriptor)
            throw BenchmarkFailure("socket path too long: \(path)")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else {
            let why = String(cString: strerror(errno))
            close(descriptor)
            throw BenchmarkFailure("cannot connect to \(path): \(why)")
        }
    }

    /// Writes `request` (a line with its newline) and reads until the reply's newline; the
    /// reply's length, or nil when the host closed the connection.
    func roundTrip(_ request: [UInt8]) -> Int? {
        let written = request.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard written == request.count else { return nil }
        var received = 0
        while true {
            let count = buffer.withUnsafeMutableBytes {
                read(descriptor, $0.baseAddress! + received, $0.count - received)
            }
            guard count > 0 else { return nil }
            received += count
            if buffer[received - 1] == UInt8(ascii: "\n") { return received }
            // A long reply (ps of many guests): room for more.
            if received == buffer.count { buffer += [UInt8](repeating: 0, count: buffer.count) }
        }
    }

    /// The reply to `request` as text, for checks outside the measure.
    func reply(to request: [UInt8]) -> String? {
        guard let length = roundTrip(request) else { return nil }
        return String(decoding: buffer[0..<length], as: UTF8.self)
    }

    deinit { close(descriptor) }
}

/// `apphost launch --isolation <isolation>` of the actions fixture, built beside this benchmark,
/// and the requests measured against it.
private struct ControlCallBenchmark {
    let apphost: String
    let guestPath: String
    let directory: URL

    struct Result {
        /// Over one connection: the call, the same verb refused on the host queue (no such
        /// guest), and `ps`.
        let call: Samples
        let refused: Samples
        let ps: Samples
        /// Whole `apphost ctl` processes.
        let cliCall: Samples
        let cliPs: Samples
    }

    static let callLine = #"{"command":"call","guest":"\#(actionsFixtureID)","action":"echo-i","words":["7"]}"#
    static let refusedLine = #"{"command":"call","guest":"org.apphost.bench.none","action":"echo-i","words":["7"]}"#
    static let psLine = #"{"command":"ps"}"#

    func run(isolation: String, roundTrips: Int, processes: Int) throws -> Result {
        let dataDirectory = directory.appendingPathComponent("actions-\(isolation)")
        let host = try BuiltHost(
            apphost: apphost, dataDirectory: dataDirectory, arguments: ["--isolation", isolation, guestPath])
        defer { host.stop() }
        let log = host.log

        let socketPath = dataDirectory.appendingPathComponent("control.sock").path
        let call = Array((Self.callLine + "\n").utf8)
        let refused = Array((Self.refusedLine + "\n").utf8)
        let ps = Array((Self.psLine + "\n").utf8)
        // Until the guest has launched and answers: the fixture's echo-i returns its argument.
        let connection = try waitForGuest(socketPath: socketPath, call: call, log: log)
        guard let refusal = connection.reply(to: refused), refusal.contains(#""ok":false"#),
            let status = connection.reply(to: ps), ControlReply.succeeded(status)
        else { throw BenchmarkFailure("unexpected replies from the host (see \(log.path))") }

        let kinds = [call, refused, ps]
        var durations: [[Double]] = Array(repeating: [], count: kinds.count)
        func batch(_ request: [UInt8], _ count: Int) throws -> [Double] {
            var values: [Double] = []
            values.reserveCapacity(count)
            for _ in 0..<count {
                let start = monotonicNanoseconds()
                guard connection.roundTrip(request) != nil else {
                    throw BenchmarkFailure("the host closed the control connection (see \(log.path))")
                }
                values.append(monotonicNanoseconds() - start)
            }
            return values
        }
        // Unmeasured at first, as the channel round trips: see RoundTripBenchmark.warmUp.
        let warmUpEnd = monotonicNanoseconds() + RoundTripBenchmark.warmUp
        while monotonicNanoseconds() < warmUpEnd {
            for request in kinds { _ = try batch(request, 20) }
        }
        for _ in 0..<max(1, roundTrips / 100) {
            for (index, request) in kinds.enumerated() { durations[index] += try batch(request, 100) }
        }

        // Whole CLI processes, the two in turn, after a few of each unmeasured.
        let ctlCall = ["ctl", "call", actionsFixtureID, "echo-i", "7", "--data-dir", dataDirectory.path]
        let ctlPs = ["ctl", "ps", "--data-dir", dataDirectory.path]
        var cliCall: [Double] = []
        var cliPs: [Double] = []
        for round in 0..<(5 + processes) {
            let callTook = try runProcess(apphost, ctlCall)
            let psTook = try runProcess(apphost, ctlPs)
            if round >= 5 {
                cliCall.append(callTook)
                cliPs.append(psTook)
            }
        }
        return Result(
            call: Samples(durations[0]), refused: Samples(durations[1]), ps: Samples(durations[2]),
            cliCall: Samples(cliCall), cliPs: Samples(cliPs))
    }

    private func waitForGuest(socketPath: String, call: [UInt8], log: URL) throws -> ControlSocket {
        let deadline = monotonicNanoseconds() + 60e9
        while true {
            if let connection = try? ControlSocket(path: socketPath), let reply = connection.reply(to: call),
                reply.contains(#""ok":true"#)
            {
                guard reply.contains(#""result":7"#) else {
                    throw BenchmarkFailure("echo-i 7 answered \(reply)")
                }
                return connection
            }
            guard monotonicNanoseconds() < deadline else {
                throw BenchmarkFailure("the actions fixture did not answer within 60 s (see \(log.path))")
            }
            usleep(50_000)
        }
    }
}

/// Nanoseconds from spawning `path` with `arguments` (output to /dev/null) to reaping it.
private func runProcess(_ path: String, _ arguments: [String]) throws -> Double {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    var argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
    defer { for argument in argv { free(argument) } }
    var pid: pid_t = 0
    let start = monotonicNanoseconds()
    let spawned = posix_spawn(&pid, path, &actions, nil, &argv, environ)
    guard spawned == 0 else { throw BenchmarkFailure("posix_spawn \(path): \(String(cString: strerror(spawned)))") }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    let took = monotonicNanoseconds() - start
    guard status == 0 else {
        throw BenchmarkFailure("apphost \(arguments.joined(separator: " ")) failed (wait status \(status))")
    }
    return took
}

// MARK: - The report

/// How many whole `apphost ctl` processes of each kind beside `roundTrips` socket requests: one
/// in 25, from 20 to 200 (a process takes milliseconds where a request takes microseconds).
func actionCLIProcesses(_ roundTrips: Int) -> Int { min(200, max(20, roundTrips / 25)) }

/// The actions benchmarks: libffi beside direct calls, the runtime's path, then `ctl call`
/// through a real host in both isolation modes; `roundTrips` requests of each verb over one
/// connection, `processes` CLI runs of each.
func runActionsBenchmarks(roundTrips: Int, processes: Int, guests: GuestBuilds, scratch: URL) throws {
    func perCall(_ name: String, _ samples: Samples, _ batches: String) {
        print(
            String(
                format: "%@ %7.1f ns a call (median batch), best %6.1f, worst %6.1f  (%@)",
                name.padding(toLength: 44, withPad: " ", startingAt: 0) as NSString, samples.median,
                samples.percentile(0), samples.percentile(100), batches as NSString))
    }
    func ratios(_ name: String, _ measured: Samples, _ baseline: Samples) {
        Report.ratio("\(name) (median)", measured.median / baseline.median, target: "reported")
        Report.ratio("\(name) (best)", measured.percentile(0) / baseline.percentile(0), target: "reported")
    }

    // libffi alone: 10 batches of 1,000,000 calls of each, interleaved.
    let probe = try FFIProbe(path: try guests.ffiProbe())
    let ffi = interleavedBatches(
        batches: 10, size: 1_000_000,
        [
            { probe.directAdd(UInt64($0)) }, { probe.ffiAdd(UInt64($0)) }, { probe.directEcho(UInt64($0)) },
            { probe.ffiEcho(UInt64($0)) },
        ])
    let ffiBatches = "10 x 1,000,000"
    perCall("direct call, add(ii)i, function pointer", ffi[0], ffiBatches)
    perCall("ffi_call, add(ii)i, prepared cif", ffi[1], ffiBatches)
    ratios("ffi_call / direct, add", ffi[1], ffi[0])
    perCall("direct call, echo(s)s, function pointer", ffi[2], ffiBatches)
    perCall("ffi_call, echo(s)s, prepared cif", ffi[3], ffiBatches)
    ratios("ffi_call / direct, echo", ffi[3], ffi[2])
    print("")

    // The runtime's whole path: ahr_handle of echo-i and echo-s, beside direct calls.
    let runtimeDirectory = scratch.appendingPathComponent("actions-runtime")
    try FileManager.default.createDirectory(at: runtimeDirectory, withIntermediateDirectories: true)
    let fixture = try guests.actionsFixture()
    let actions = try RuntimeActions(guestPath: fixture, directory: runtimeDirectory.path)
    let echoI = try actions.action(named: "echo-i")
    let echoS = try actions.action(named: "echo-s")
    let directEchoI = unsafeBitCast(echoI.function, to: (@convention(c) (Int32) -> Int32).self)
    let directEchoS = unsafeBitCast(
        echoS.function, to: (@convention(c) (UnsafePointer<CChar>?) -> UnsafePointer<CChar>?).self)
    let milk = strdup("milk")!
    defer { free(milk) }
    var integer = ahr_value()
    integer.type = AHR_VALUE_INT32
    integer.integer = 7
    var text = ahr_value()
    text.type = AHR_VALUE_STRING
    text.bytes = UnsafeRawPointer(milk)
    text.length = 4
    var failures = 0
    let runtime = withUnsafePointer(to: integer) { integerArgument in
        withUnsafePointer(to: text) { textArgument in
            interleavedBatches(
                batches: 50, size: 10_000,
                [
                    { count in
                        let start = monotonicNanoseconds()
                        var sum: Int64 = 0
                        for index in 0..<count { sum &+= Int64(directEchoI(Int32(truncatingIfNeeded: index))) }
                        let took = monotonicNanoseconds() - start
                        directSink = sum
                        return took
                    },
                    { count in
                        guard let took = actions.handle(echoI, integerArgument, argumentCount: 1, count: count) else {
                            failures += 1
                            return .nan
                        }
                        return took
                    },
                    { count in
                        let start = monotonicNanoseconds()
                        var last: UnsafePointer<CChar>?
                        for _ in 0..<count { last = directEchoS(milk) }
                        let took = monotonicNanoseconds() - start
                        directTextSink = last
                        return took
                    },
                    { count in
                        guard let took = actions.handle(echoS, textArgument, argumentCount: 1, count: count) else {
                            failures += 1
                            return .nan
                        }
                        return took
                    },
                ])
        }
    }
    guard failures == 0 else { throw BenchmarkFailure("ahr_handle refused \(failures) batches of action calls") }
    let runtimeBatches = "50 x 10,000"
    perCall("direct call, fixture's echo-i(i)i", runtime[0], runtimeBatches)
    perCall("ahr_handle, ACTION echo-i(i)i", runtime[1], runtimeBatches)
    ratios("ahr_handle / direct, echo-i", runtime[1], runtime[0])
    perCall("direct call, fixture's echo-s(s)s", runtime[2], runtimeBatches)
    perCall("ahr_handle, ACTION echo-s(s)s", runtime[3], runtimeBatches)
    ratios("ahr_handle / direct, echo-s", runtime[3], runtime[2])
    print("")

    // ctl call through a real host, the guest in the host's process, then in a worker.
    let benchmark = ControlCallBenchmark(apphost: try apphostExecutable(), guestPath: fixture, directory: scratch)
    for isolation in ["none", "process"] {
        let result = try benchmark.run(isolation: isolation, roundTrips: roundTrips, processes: processes)
        Report.print("call echo-i 7, socket, isolation \(isolation)", result.call)
        Report.print("  call refused on the host queue (no guest)", result.refused)
        Report.print("  ps, same connection", result.ps)
        Report.ratio(
            "  call / refused call (p50)", result.call.median / result.refused.median, target: "reported")
        Report.ratio(
            "  call / refused call (p99)", result.call.percentile(99) / result.refused.percentile(99),
            target: "reported")
        Report.ratio("  call / ps (p50)", result.call.median / result.ps.median, target: "reported")
        Report.ratio("  call / ps (p99)", result.call.percentile(99) / result.ps.percentile(99), target: "reported")
        Report.print("`apphost ctl call` process, isolation \(isolation)", result.cliCall)
        Report.print("  `apphost ctl ps` process", result.cliPs)
        Report.ratio("  ctl call / ctl ps (p50)", result.cliCall.median / result.cliPs.median, target: "reported")
        Report.ratio(
            "  ctl call / ctl ps (p99)", result.cliCall.percentile(99) / result.cliPs.percentile(99),
            target: "reported")
    }
}
