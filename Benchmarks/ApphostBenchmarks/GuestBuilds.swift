import Foundation

/// Guests built the way a third party builds them (sdk/README.md): with cc, not SwiftPM, which
/// would link the Swift runtime into a C library and distort every memory figure.
struct GuestBuilds {
    let directory: URL
    /// The C sample (Plugins/CSampleGuest), which logs every callback and saves its counter.
    let sample: String
    /// sdk/examples/minimal.c, which implements no memory-warning callback: a round trip to it
    /// measures the channel alone.
    let minimal: String

    private static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Benchmarks/Support/heap_in_use.c, which reads malloc's figures for the soak (not a guest).
    let heapProbe: String

    init(into directory: URL) throws {
        self.directory = directory
        sample = try Self.build("Plugins/CSampleGuest/sample.c", into: directory, named: "sample.so")
        minimal = try Self.build("sdk/examples/minimal.c", into: directory, named: "minimal.so")
        heapProbe = try Self.build(
            "Benchmarks/Support/heap_in_use.c", into: directory, named: "heap_in_use.so", guest: false)
    }

    /// `count` copies of the minimal test fixture, each with an id of its own, for many guests at once.
    func manyGuests(_ count: Int) throws -> [String] {
        try (0..<count).map { index in
            try Self.build(
                "Plugins/Fixtures/minimal_guest.c", into: directory, named: "many-\(index).so",
                defines: ["FIXTURE_ID=\"org.apphost.bench.g\(index)\""])
        }
    }

    /// `count` copies of Benchmarks/Guests/overrunning_guest.c, each with an id of its own and
    /// `tasks` tasks it never ends; `spinning`, each also burns CPU on a thread of its own.
    func overrunningGuests(_ count: Int, tasks: Int, spinning: Bool = false) throws -> [String] {
        try (0..<count).map { index in
            let name = spinning ? "spinning" : "overrunning"
            return try Self.build(
                "Benchmarks/Guests/overrunning_guest.c", into: directory, named: "\(name)-\(index).so",
                defines: ["BENCH_ID=\"org.apphost.bench.\(name)\(index)\"", "BENCH_TASKS=\(tasks)"]
                    + (spinning ? ["BENCH_SPIN"] : []), libraries: spinning ? ["pthread"] : [])
        }
    }

    /// Benchmarks/Guests/hostile_guest.c once of each kind (1 to 7: a render that spins past its
    /// period, one that blocks, one that crashes, rendering flapped, the session flapped, a main
    /// queue that spins, two threads that spin), ids `org.apphost.bench.hostile<kind>`.
    func hostileGuests() throws -> [(kind: String, path: String)] {
        let kinds = [
            "render spins", "render blocks", "render crashes", "flaps rendering", "flaps session",
            "main queue spins", "threads spin",
        ]
        return try kinds.enumerated().map { index, kind in
            (
                kind,
                try Self.build(
                    "Benchmarks/Guests/hostile_guest.c", into: directory, named: "hostile-\(index + 1).so",
                    defines: ["BENCH_ID=\"org.apphost.bench.hostile\(index + 1)\"", "HOSTILE_KIND=\(index + 1)"],
                    libm: true, libraries: ["pthread"])
            )
        }
    }

    /// Plugins/Fixtures/audio_flapping_guest.c: a thread that activates and deactivates its audio
    /// session in a tight loop (CONTRACT X2, X7).
    func audioFlapping() throws -> String {
        try Self.build(
            "Plugins/Fixtures/audio_flapping_guest.c", into: directory, named: "audio-flapping.so",
            libraries: ["pthread"])
    }

    /// Plugins/Fixtures/region_renderer.c with mix_region.c, the program the session region tests
    /// spawn as a guest's renderer (a sine per period requested).
    func regionRenderer() throws -> String {
        try Self.build(
            "Plugins/Fixtures/region_renderer.c", into: directory, named: "region_renderer", guest: false,
            standard: "gnu11", program: ["Sources/ApphostMixing/mix_region.c"])
    }

    /// Benchmarks/Support/wake_pingpong.c twice: the host's side as a library, the partner as a
    /// program.
    func wakePingPong() throws -> (library: String, partner: String) {
        let library = try Self.build(
            "Benchmarks/Support/wake_pingpong.c", into: directory, named: "wake_pingpong.so", guest: false,
            standard: "gnu11")
        let partner = try Self.build(
            "Benchmarks/Support/wake_pingpong.c", into: directory, named: "wake_pingpong",
            defines: ["WAKE_PARTNER_MAIN"], guest: false, standard: "gnu11", program: [])
        return (library, partner)
    }

    /// Benchmarks/Support/latency_probe.c twice: the stamping sink as a library, the stamping
    /// renderer (with mix_region.c) as a program.
    func latencyProbe() throws -> (library: String, renderer: String) {
        let library = try Self.build(
            "Benchmarks/Support/latency_probe.c", into: directory, named: "latency_probe.so", guest: false,
            standard: "gnu11")
        let renderer = try Self.build(
            "Benchmarks/Support/latency_probe.c", into: directory, named: "latency_probe",
            defines: ["LATENCY_RENDERER_MAIN"], guest: false, standard: "gnu11",
            program: ["Sources/ApphostMixing/mix_region.c"])
        return (library, renderer)
    }

    /// Plugins/Fixtures/actions_guest.c, as the CLI tests build it: an action per type code
    /// (echo-i(i)i, echo-s(s)s ...), for the actions benchmarks.
    func actionsFixture() throws -> String {
        try Self.build("Plugins/Fixtures/actions_guest.c", into: directory, named: "actions.so", libm: true)
    }

    /// Benchmarks/Support/ffi_call.c, linked with libffi: ffi_call beside direct calls (not a guest).
    func ffiProbe() throws -> String {
        try Self.build(
            "Benchmarks/Support/ffi_call.c", into: directory, named: "ffi_call.so", guest: false, standard: "gnu11",
            libraries: ["ffi"])
    }

    /// `count` copies of sdk/examples/tone.c, each with an id (`bench.tone.N`) and a frequency
    /// of its own (200 Hz, then 20 Hz more each), for many sound sessions at once. With
    /// `backgroundAudio`, each declares APPHOST_CAPABILITY_BACKGROUND_AUDIO and plays on in
    /// background; without, the host suspends all but the foreground one a second after launch (B6).
    func tones(_ count: Int, backgroundAudio: Bool = false) throws -> [String] {
        try (0..<count).map { index in
            try Self.build(
                "sdk/examples/tone.c", into: directory,
                named: backgroundAudio ? "tone-bg-\(index).so" : "tone-\(index).so",
                defines: ["TONE_ID=\"bench.tone.\(index)\"", "TONE_HZ=\(200 + 20 * index).0"]
                    + (backgroundAudio ? ["TONE_CAPABILITIES=APPHOST_CAPABILITY_BACKGROUND_AUDIO"] : []), libm: true)
        }
    }

    /// With `guest`, as sdk/README.md builds a guest: only `apphost_entry` exported; without,
    /// Sources/ApphostMixing/include is on the include path. With `program`, an executable of
    /// `source` and those other sources instead of a library (libm linked, as with `libm`).
    /// `libraries` are linked too (`-l` each).
    private static func build(
        _ source: String, into directory: URL, named name: String, defines: [String] = [], guest: Bool = true,
        standard: String = "c99", program: [String]? = nil, libm: Bool = false, libraries: [String] = []
    ) throws -> String {
        let output = directory.appendingPathComponent(name).path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        var arguments = ["cc", "-std=\(standard)", "-O2"]
        if program != nil || !guest {
            arguments += ["-I", packageRoot.appendingPathComponent("Sources/ApphostMixing/include").path]
        }
        if program == nil {
            arguments += ["-shared", "-fPIC", "-fvisibility=hidden"]
        }
        arguments += defines.map { "-D\($0)" }
        arguments += ["-I", packageRoot.appendingPathComponent("sdk/include").path]
        if guest {
            arguments.append("-Wl,--version-script=" + packageRoot.appendingPathComponent("sdk/apphost.map").path)
        }
        arguments += ([source] + (program ?? [])).map { packageRoot.appendingPathComponent($0).path }
        arguments += ["-o", output]
        if program != nil || libm { arguments.append("-lm") }
        arguments += libraries.map { "-l\($0)" }
        process.arguments = arguments
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw BenchmarkFailure("cc could not build \(source) (install Debian's build-essential)")
        }
        return output
    }
}

struct BenchmarkFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
