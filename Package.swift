// swift-tools-version: 6.1
import Foundation
import PackageDescription

/// Absolute paths for linker flags: SwiftPM runs the linker from elsewhere.
let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().path
/// Exports only `apphost_entry` from a C guest library, as sdk/README.md asks of C guests. The
/// Swift samples link with no flags at all, as a Swift guest outside this package must.
let guestLinkerSettings: [LinkerSetting] = [
    .unsafeFlags(["-Xlinker", "--version-script=\(packageRoot)/sdk/apphost.map"])
]

let cApphost = Target.Dependency.product(name: "CApphost", package: "apphost-sdk")
let apphostSDK = Target.Dependency.product(name: "ApphostSDK", package: "apphost-sdk")
/// libffi (sdk/Sources/CFFI): the SDK's, since SwiftPM allows one module of a name in a graph.
let cFFI = Target.Dependency.product(name: "CFFI", package: "apphost-sdk")

let package = Package(
    name: "apphost",
    products: [
        .executable(name: "apphost", targets: ["apphost"]),
        .executable(name: "apphost-worker", targets: ["apphost-worker"]),
        // The host as a library: its service, and the channels with what they use.
        .library(
            name: "ApphostService",
            targets: [
                "ApphostService", "ApphostChannels", "ApphostLoading", "ApphostFreezing", "ApphostLimits",
                "ApphostSound",
            ]
        ),
        .library(name: "CSampleGuest", type: .dynamic, targets: ["CSampleGuest"]),
        .library(name: "SwiftSampleGuest", type: .dynamic, targets: ["SwiftSampleGuest"]),
        .library(name: "SwiftUploadGuest", type: .dynamic, targets: ["SwiftUploadGuest"]),
        .library(name: "SwiftNotesGuest", type: .dynamic, targets: ["SwiftNotesGuest"]),
        .library(name: "COverrunGuest", type: .dynamic, targets: ["COverrunGuest"]),
        .library(name: "CMusicGuest", type: .dynamic, targets: ["CMusicGuest"]),
        .library(name: "SwiftGameGuest", type: .dynamic, targets: ["SwiftGameGuest"]),
        .library(name: "SwiftPodcastGuest", type: .dynamic, targets: ["SwiftPodcastGuest"]),
        .library(name: "SwiftNavigationGuest", type: .dynamic, targets: ["SwiftNavigationGuest"]),
        .executable(name: "apphost-benchmarks", targets: ["ApphostBenchmarks"]),
        // Test fixtures built as products, for the tests to load (Plugins/Fixtures/README.md).
        .library(name: "SwiftActionsFixture", type: .dynamic, targets: ["SwiftActionsFixture"]),
    ],
    dependencies: [
        // The guest's package (sdk/Package.swift): the C headers and the Swift SDK.
        .package(name: "apphost-sdk", path: "sdk"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.1.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.80.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.4.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.0.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.0.0"),
    ],
    targets: [
        // The host <-> worker wire protocol: its frames, its catalogue of messages and the one codec
        // (C) that both the worker and the Swift host use.
        .target(name: "ApphostWire", dependencies: ["ApphostGuestRuntime", "ApphostMessages", cApphost]),
        // The guest side of a channel in C: loads a guest, gives it the host interface, delivers
        // calls on the thread that owns it. The worker process runs it, and so does the host for
        // the guests it runs in its own process (ApphostChannels' InProcessChannel).
        // Its audio thread renders into the session regions of ApphostMixing (mix_region.h).
        // Its actions (CONTRACT F2) are called through libffi, whose call interfaces it prepares at load.
        // libffi calls a function whose signature is known only at run time, a guest's action.
        .target(name: "ApphostGuestRuntime", dependencies: [cApphost, "ApphostMixing", cFFI, "ApphostMessages"]),
        // The host-worker messages, each described once (apphost_messages.h): the C enums, names
        // and walks follow from its X-macro table, and the Swift mappings from the build plugin
        // WireMessageGenerator, which reads it.
        .target(name: "ApphostMessages"),
        // The generator of the Swift side of apphost_messages.h, and the build plugin that runs it
        // for ApphostVocabulary, ApphostChannels and the tests (BuildPlugins/: Plugins/ holds the
        // sample guests).
        .executableTarget(name: "WireMessageGeneratorTool", path: "BuildPlugins/WireMessageGeneratorTool"),
        .plugin(
            name: "WireMessageGenerator", capability: .buildTool(), dependencies: ["WireMessageGeneratorTool"],
            path: "BuildPlugins/WireMessageGenerator"),
        // The host's mixing building blocks (CONTRACT C13), in C so that the mixer's real-time
        // thread never allocates, locks or enters the Swift runtime: the mix of one period, level
        // meters, the sinks (a WAV file, nothing), the input sources record sessions receive
        // (silence, a tone, a WAV file), the period clock and the session region (a guest's
        // periods in shared memory, an eventfd wake). libc and libm only: every worker links it.
        .target(name: "ApphostMixing", linkerSettings: [.linkedLibrary("m")]),
        // The ALSA sink and source on ApphostMixing's interfaces; apart so that only the host
        // links libasound.
        .target(name: "ApphostALSA", dependencies: ["ApphostMixing", "CALSA"]),
        // The host's mixer behind ApphostVocabulary's AudioMixer: the engine with the sink and
        // source the operator chose (--audio-output, --audio-input), and the session streams it
        // hands guests.
        .target(
            name: "ApphostSound", dependencies: ["ApphostVocabulary", "ApphostModel", "ApphostMixing", "ApphostALSA"]),
        // alsa-lib (libasound), for the ALSA sink and source: it talks to the kernel's sound
        // driver, or its `null` device, with no sound daemon.
        .systemLibrary(name: "CALSA", pkgConfig: "alsa", providers: [.apt(["libasound2-dev"])]),
        // libseccomp, which the worker's system call filter links (CONTRACT X6): it writes the
        // filter for this machine's architecture and names the calls it refuses.
        .systemLibrary(name: "CSeccomp", pkgConfig: "libseccomp", providers: [.apt(["libseccomp-dev"])]),
        // One guest per process: a small C program, so that an idle worker costs little memory.
        // SwiftPM links every product through swiftc, which would add the Swift runtime's start-up
        // object and so libswiftCore (4.8 MB resident instead of 2.8): -nostartfiles leaves the
        // object out, and -static-stdlib links nothing of a runtime the C code never calls.
        .executableTarget(
            name: "apphost-worker",
            dependencies: ["ApphostGuestRuntime", "ApphostWire", "ApphostVersion", "CSeccomp", cApphost],
            linkerSettings: [.unsafeFlags(["-nostartfiles", "-static-stdlib"])]
        ),
        // apphost's version, in one place (apphost_version.h): a C header so that the C worker and
        // the Swift CLI print the same line, and scripts/package names the package after it.
        .target(name: "ApphostVersion"),
        // Sending an entry to journald's native socket, a datagram or a sealed memfd (C: Glibc's
        // Swift module has no memfd_create), for the host's log and events under journald.
        .target(name: "ApphostJournal"),
        // <sys/epoll.h>, which Glibc's Swift module leaves out, for the host's event loop.
        .systemLibrary(name: "CEpoll"),
        // Plain values that policy, control and the CLI share: a guest's descriptor and ABI
        // version, app and scene states, scene sizes and styles, loading progress, why a
        // transition happened; each Codable by the names operators see.
        .target(name: "ApphostModel", dependencies: [cApphost]),
        // The vocabulary that adapters share, free of policy (as swift-nio's NIOCore): the guest
        // channel seam and what it carries (GuestCall, GuestEvent, LoadError), the clock and
        // executor seams, the host's events and status as values, the sessions store's seam, the
        // mixer's, and the formatting operators read (TerminalText, seconds). The area of each
        // guest event, the part of the policy that takes it, is generated from the messages' table.
        .target(
            name: "ApphostVocabulary", dependencies: ["ApphostModel", cApphost], plugins: ["WireMessageGenerator"]),
        // Policy: lifecycle, scenes, events. Knows guests only through GuestChannel.
        .target(
            name: "ApphostPolicy",
            dependencies: [
                "ApphostVocabulary", "ApphostModel", cApphost, .product(name: "Logging", package: "swift-log"),
                .product(name: "DequeModule", package: "swift-collections"),
            ]
        ),
        // The host's executors and clock, the core's seams on threads, in one place: HostEventLoop
        // (the epoll loop that is apphost's host queue and reads every worker's socket), a serial
        // DispatchQueue as the executor, and the clock of one Dispatch timer. Kept out of
        // the policy, which holds no queue.
        .target(
            name: "ApphostExecutors",
            dependencies: ["ApphostVocabulary", "CEpoll", .product(name: "HeapModule", package: "swift-collections")]),
        // The sessions database: scene sessions and their saved state in SQLite, through GRDB,
        // behind ApphostVocabulary's SessionStore.
        .target(
            name: "ApphostStore",
            dependencies: ["ApphostVocabulary", "ApphostModel", .product(name: "GRDB", package: "GRDB.swift")]
        ),
        // The control protocol: each verb a ControlCommand type, the one decoder of request lines,
        // and the Unix-socket transport (SwiftNIO). Commands are applied to a ControlTarget, a
        // protocol of what they ask of the host, which the host service is: no policy here, so
        // that `apphost ctl` links none.
        .target(
            name: "ApphostControl",
            dependencies: [
                "ApphostVocabulary", "ApphostModel", .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        // Freezing workers, every thread of each (CONTRACT B7): the cgroup v2 and v1 freezers and
        // SIGSTOP, the cgroups a host makes for its workers, and the /proc and cgroupfs files they
        // read and write. ApphostVocabulary only for how a timeout reads.
        .target(
            name: "ApphostFreezing",
            dependencies: ["ApphostVocabulary", .product(name: "Logging", package: "swift-log")]
        ),
        // Guest limits per worker (CONTRACT X2): memory, open files and processes, as rlimits or in
        // the worker's cgroup (ApphostFreezing's, where the freezer puts it too), and which limit a
        // worker died of.
        .target(
            name: "ApphostLimits",
            dependencies: ["ApphostFreezing", .product(name: "Logging", package: "swift-log")]
        ),
        // Loading a guest (CONTRACT X1): the ELF checks before dlopen, ahr_load, the validation of
        // what its entry declares, wherever it was mapped, and the symbols a library exports.
        .target(
            name: "ApphostLoading",
            dependencies: ["ApphostVocabulary", "ApphostModel", cApphost, "ApphostGuestRuntime"]),
        // The two channels behind ApphostVocabulary's GuestChannel, and what they share:
        // InProcessChannel (a guest on the C runtime in the host's process), WorkerChannel (a guest in an
        // apphost-worker: spawning, the socket and reactor, its output, its user), the Swift side
        // of the messages both speak (RuntimeCall, RuntimeReport, WireCodec), each guest's data
        // directory. SwiftPM links ApphostGuestRuntime's objects once into each binary that needs
        // them: apphost-worker (its own dependency, C only) and the Swift products through this
        // target and ApphostLoading.
        .target(
            name: "ApphostChannels",
            dependencies: [
                "ApphostVocabulary", "ApphostModel", "ApphostLoading", "ApphostFreezing", "ApphostLimits", cApphost,
                "ApphostGuestRuntime", "ApphostWire", "ApphostExecutors",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "DequeModule", package: "swift-collections"),
            ],
            plugins: ["WireMessageGenerator"]
        ),
        // The composition root: HostService, the ControlTarget, wires the core to the sessions
        // store, the control server and the events on one host queue, with the GuestOpener it is
        // given (ApphostChannels', which the CLI picks); the data directory and its lock.
        .target(
            name: "ApphostService",
            dependencies: [
                "ApphostPolicy", "ApphostVocabulary", "ApphostExecutors", "ApphostModel", "ApphostControl",
                "ApphostStore",
                "ApphostFreezing", "ApphostVersion", "ApphostJournal",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ]
        ),
        // The HTTP API (CONTRACT O1): every control verb as a JSON endpoint, decoded into the same
        // ControlCommand types as the control socket; the event stream as Server-Sent Events with a
        // resume position; /metrics; and the web app switcher, whose files are resources.
        .target(
            name: "ApphostHTTP",
            dependencies: [
                "ApphostVocabulary", "ApphostControl", .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            resources: [.copy("Web")]
        ),
        // `apphost check`: tests, by contract rule, that a guest keeps the contract, each in a
        // throwaway host of its own.
        .target(
            name: "ApphostCheck",
            dependencies: [
                "ApphostService", "ApphostControl", "ApphostModel", "ApphostVocabulary", "ApphostPolicy",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "apphost",
            dependencies: [
                "ApphostCheck",
                "ApphostHTTP",
                "ApphostPolicy", "ApphostVocabulary", "ApphostExecutors", "ApphostChannels", "ApphostControl",
                "ApphostFreezing", "ApphostService", "ApphostLimits", "ApphostSound",
                "ApphostLoading", "ApphostModel", "ApphostVersion",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "CSampleGuest",
            dependencies: [cApphost],
            path: "Plugins/CSampleGuest",
            linkerSettings: guestLinkerSettings
        ),
        .target(
            name: "SwiftSampleGuest",
            dependencies: [apphostSDK],
            path: "Plugins/SwiftSampleGuest"
        ),
        // Background work samples (sdk/README.md, "Background work"): a Swift guest that finishes
        // an upload within its budget, and a C guest that holds a task past it on purpose.
        .target(
            name: "SwiftUploadGuest",
            dependencies: [apphostSDK],
            path: "Plugins/SwiftUploadGuest"
        ),
        // The multi-window sample (sdk/README.md, "Scenes and windows"): a note list and editor
        // windows opened on user actions, each restored with its text.
        .target(
            name: "SwiftNotesGuest",
            dependencies: [apphostSDK],
            path: "Plugins/SwiftNotesGuest"
        ),
        .target(
            name: "COverrunGuest",
            dependencies: [cApphost],
            path: "Plugins/COverrunGuest",
            linkerSettings: guestLinkerSettings
        ),
        // The audio samples (sdk/README.md, "Audio"): a music player in C that plays in background
        // and pauses when interrupted or unplugged; in Swift, a game's ambient sound, a podcast
        // (spoken audio) and a navigation app whose prompts duck the music and pause the podcast.
        .target(
            name: "CMusicGuest",
            dependencies: [cApphost],
            path: "Plugins/CMusicGuest",
            // libm: its render computes a sine.
            linkerSettings: guestLinkerSettings + [.linkedLibrary("m")]
        ),
        .target(
            name: "SwiftGameGuest",
            dependencies: [apphostSDK],
            path: "Plugins/SwiftGameGuest"
        ),
        .target(
            name: "SwiftPodcastGuest",
            dependencies: [apphostSDK],
            path: "Plugins/SwiftPodcastGuest"
        ),
        .target(
            name: "SwiftNavigationGuest",
            dependencies: [apphostSDK],
            path: "Plugins/SwiftNavigationGuest"
        ),
        // A Swift guest with actions of every type code, for the SDK's actions tests
        // (Tests/ApphostHostTests/SDKActionsTests.swift).
        .target(
            name: "SwiftActionsFixture",
            dependencies: [apphostSDK],
            path: "Plugins/Fixtures/SwiftActionsGuest"
        ),
        .executableTarget(
            name: "ApphostBenchmarks",
            dependencies: [
                "ApphostPolicy", "ApphostVocabulary", "ApphostExecutors", "ApphostChannels", "ApphostControl",
                "ApphostFreezing", "ApphostService", "ApphostLimits",
                "ApphostMixing", "ApphostStore", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                // ThreadCensus: the host's threads and wakeups, as the in-process threads test counts them.
                "ApphostServiceTesting",
                // The actions benchmark drives the runtime (ahr_handle) without a host.
                "ApphostGuestRuntime", cApphost,
            ],
            path: "Benchmarks/ApphostBenchmarks"
        ),
        // Test doubles for the policy, as swift-nio's NIOEmbedded is for channels: a manual clock,
        // fake guests behind a fake channel, and a harness that drives the core with them.
        .target(name: "ApphostPolicyTesting", dependencies: ["ApphostPolicy", "ApphostVocabulary", "ApphostModel"]),
        // A ControlTarget without a host, for the control layer's tests: it records what the
        // commands ask and answers as the test sets it up.
        .target(name: "ApphostControlTesting", dependencies: ["ApphostControl", "ApphostVocabulary", "ApphostModel"]),
        // sox, the real tool the sound tests measure rendered files with, for every test target.
        .target(name: "ApphostSoundTesting"),
        // A socket that plays systemd's notify socket (O3), for the host's and the CLI's tests, an
        // HTTP client, and a census of this process's threads (the in-process threads test and
        // benchmark).
        .target(name: "ApphostServiceTesting"),
        .testTarget(
            name: "ApphostPolicyTests",
            dependencies: [
                "ApphostPolicy", "ApphostVocabulary", "ApphostPolicyTesting", "ApphostExecutors", "ApphostModel",
            ]),
        // GRDB: the tests write databases the host must refuse (another program's, a newer schema).
        .testTarget(
            name: "ApphostHostTests",
            dependencies: [
                "ApphostPolicy", "ApphostVocabulary", "ApphostExecutors", "ApphostChannels", "ApphostControl",
                "ApphostFreezing", "ApphostService", "ApphostLimits", "ApphostCheck",
                "ApphostLoading", "ApphostModel", "ApphostStore", cApphost, "ApphostGuestRuntime", "ApphostHTTP",
                "ApphostServiceTesting", "ApphostMessages", .product(name: "GRDB", package: "GRDB.swift"),
            ],
            plugins: ["WireMessageGenerator"]),
        // The control layer without a host: the verbs applied to ApphostControlTesting's fake
        // target, and the seams between the modules (which ones link no policy).
        .testTarget(
            name: "ApphostControlTests",
            dependencies: ["ApphostControl", "ApphostControlTesting", "ApphostVocabulary", "ApphostModel"]),
        // The mixing blocks, measured with sox (scripts/setup installs it).
        .testTarget(name: "ApphostMixingTests", dependencies: ["ApphostMixing", "ApphostALSA", "ApphostSoundTesting"]),
        .testTarget(
            name: "ApphostCLITests",
            dependencies: [
                "ApphostCheck", "ApphostVocabulary", "ApphostChannels", "ApphostControl", "ApphostService", "ApphostModel",
                "ApphostStore",
                "ApphostSoundTesting", "ApphostServiceTesting", .product(name: "GRDB", package: "GRDB.swift"),
            ],
            // The browser test's driver (Python, run by SwitcherBrowserTests from the source tree).
            exclude: ["Browser"]),
    ]
)
