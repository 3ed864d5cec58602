import Foundation
import XCTest

/// Guests built with cc at test time, for what the samples cannot do.
enum TestGuests {
    /// Plugins/Fixtures/minimal_guest.c: a valid guest that, unlike the samples, ignores
    /// APPHOST_SAMPLE_FAIL_LAUNCH, so it can keep running while a sample fails.
    static let minimalID = "org.apphost.fixtures.minimal"

    /// A guest whose will_terminate takes `seconds`: shutdown is still under way while it runs.
    static let slowID = "org.apphost.tests.slow-terminate"

    /// Plugins/Fixtures/busy_thread_guest.c: spins a thread of its own from did_finish_launching
    /// on, so that its worker's CPU time shows whether it runs.
    static let busyThreadID = "org.apphost.fixtures.busy-thread"
    static let busyThreadLibrary = "libBusyThreadFixture.so"

    /// Plugins/Fixtures/escape_guest.c: from did_finish_launching, with a "targets" file in its
    /// data directory, it tries to leave its container in every way it knows and logs each
    /// outcome, "escape <what>: refused <errno>" or ": ESCAPED", then "escapes done <count>";
    /// without, "no targets" (CONTRACT X6).
    static let escapeID = "org.apphost.fixtures.escape"

    static func escape(
        network: Bool = false, into directory: String, file: StaticString = #filePath, line: UInt = #line
    ) throws -> String {
        try compile(
            packageRoot.appendingPathComponent("Plugins/Fixtures/escape_guest.c").path,
            to: directory + (network ? "/libNetworkEscapeFixture.so" : "/libEscapeFixture.so"),
            flags: ["-DFIXTURE_NETWORK=\(network ? 1 : 0)"], file: file, line: line)
    }

    /// Plugins/Fixtures/check_guest.c: well behaved, or with `breaking` 1 to 3 broken in the one
    /// way a test of `apphost check` must catch (see the file).
    static let checkID = "org.apphost.fixtures.check"

    static func check(breaking: Int = 0, into directory: String, file: StaticString = #filePath, line: UInt = #line)
        throws -> String
    {
        try compile(
            packageRoot.appendingPathComponent("Plugins/Fixtures/check_guest.c").path,
            to: directory + "/libCheck\(breaking).so", flags: ["-DFIXTURE_BREAK=\(breaking)"], file: file, line: line)
    }

    /// Plugins/Fixtures/minimal_guest.c built with `flags`, its `-D` knobs.
    static func minimal(
        into directory: String, flags: [String] = [], file: StaticString = #filePath, line: UInt = #line
    ) throws -> String {
        try compile(
            packageRoot.appendingPathComponent("Plugins/Fixtures/minimal_guest.c").path,
            to: directory + "/libMinimalFixture.so", flags: flags, file: file, line: line)
    }

    /// `count` copies of Plugins/Fixtures/minimal_guest.c, ids `copyID(0)` on: built once, each
    /// copy the same library with its id's digits changed.
    static func minimalCopies(
        _ count: Int, into directory: String, file: StaticString = #filePath, line: UInt = #line
    ) throws -> [String] {
        let built = try compile(
            packageRoot.appendingPathComponent("Plugins/Fixtures/minimal_guest.c").path,
            to: directory + "/libCopy.so", flags: [#"-DFIXTURE_ID="\#(copyID(0))""#], file: file, line: line)
        let library = try Data(contentsOf: URL(fileURLWithPath: built))
        let range = try XCTUnwrap(library.range(of: Data(copyID(0).utf8)), file: file, line: line)
        return try (0..<count).map { index in
            var copy = library
            copy.replaceSubrange(range, with: Data(copyID(index).utf8))
            let path = directory + "/libCopy\(index).so"
            try copy.write(to: URL(fileURLWithPath: path))
            return path
        }
    }

    /// The id of copy `index` of `minimalCopies`, all of one length.
    static func copyID(_ index: Int) -> String { String(format: "org.apphost.copies.%05d", index) }

    /// `flags`: `-DFIXTURE_FLOOD=1` (its thread logs "flood <n>" in a tight loop) or `=2` (it
    /// prints them on its standard output).
    static func busyThread(
        into directory: String, flags: [String] = [], file: StaticString = #filePath, line: UInt = #line
    ) throws -> String {
        try compile(
            packageRoot.appendingPathComponent("Plugins/Fixtures/busy_thread_guest.c").path,
            to: directory + "/" + busyThreadLibrary, flags: ["-pthread"] + flags, file: file, line: line)
    }

    /// Plugins/Fixtures/audio_flapping_guest.c: a thread that activates and deactivates its audio
    /// session in a loop from did_finish_launching on (CONTRACT X2, X7); it logs "flapping" once
    /// its thread runs, and "activate refused: <status>" (or deactivate) the first time each is
    /// refused.
    static let audioFlappingID = "org.apphost.fixtures.audio-flapping"

    static func audioFlapping(into directory: String, file: StaticString = #filePath, line: UInt = #line) throws
        -> String
    {
        try compile(
            packageRoot.appendingPathComponent("Plugins/Fixtures/audio_flapping_guest.c").path,
            to: directory + "/audio-flapping.so", flags: ["-pthread"], file: file, line: line)
    }

    /// Plugins/Fixtures/printing_guest.c: writes to its standard output and standard error from
    /// init and callbacks, and logs "printed <callback>" after each.
    static let printingID = "org.apphost.fixtures.printing"

    static func printing(
        into directory: String, flags: [String] = [], file: StaticString = #filePath, line: UInt = #line
    ) throws -> String {
        try compile(
            packageRoot.appendingPathComponent("Plugins/Fixtures/printing_guest.c").path,
            to: directory + "/libPrintingFixture.so", flags: flags, file: file, line: line)
    }

    /// Plugins/Fixtures/dying_guest.c (id org.apphost.fixtures.dying) built with `flags`, which
    /// say where and how it dies.
    static let dyingID = "org.apphost.fixtures.dying"

    static func dying(
        _ flags: [String], as name: String, into directory: String, file: StaticString = #filePath, line: UInt = #line
    ) throws -> String {
        try compile(
            packageRoot.appendingPathComponent("Plugins/Fixtures/dying_guest.c").path, to: directory + "/" + name,
            flags: flags, file: file, line: line)
    }

    /// Plugins/Fixtures/bad_entry.c with `knob` (FIXTURE_ENTRY_FUNCTION or FIXTURE_ENTRY_BYTE):
    /// a library whose apphost_entry is not an apphost_entry_t.
    static func badEntry(
        _ knob: String, as name: String, into directory: String, file: StaticString = #filePath, line: UInt = #line
    ) throws -> String {
        try compile(
            packageRoot.appendingPathComponent("Plugins/Fixtures/bad_entry.c").path, to: directory + "/" + name,
            flags: ["-D" + knob], file: file, line: line)
    }

    /// Plugins/Fixtures/background_guest.c, which runs `commands` (its own little language, see
    /// the file) in did_finish_launching and logs what each background function returned.
    static let backgroundID = "org.apphost.fixtures.background"

    static func background(
        commands: String, into directory: String, file: StaticString = #filePath, line: UInt = #line
    ) throws -> String {
        try compile(
            packageRoot.appendingPathComponent("Plugins/Fixtures/background_guest.c").path,
            to: directory + "/libBackgroundFixture.so",
            flags: ["-pthread", "-DFIXTURE_LAUNCH_COMMANDS=\"\(commands)\""], file: file, line: line)
    }

    /// Plugins/Fixtures/saver_guest.c: saves its scene's state as fast as it can, each state
    /// checkable, and logs what it was restored with.
    static let saverID = "org.apphost.fixtures.saver"

    static func saver(into directory: String, file: StaticString = #filePath, line: UInt = #line) throws -> String {
        try compile(
            packageRoot.appendingPathComponent("Plugins/Fixtures/saver_guest.c").path,
            to: directory + "/libSaverFixture.so", flags: ["-pthread"], file: file, line: line)
    }

    static func slowToTerminate(
        seconds: Int, into directory: String, file: StaticString = #filePath, line: UInt = #line
    ) throws -> String {
        let source = directory + "/slow_terminate.c"
        try """
        #include <unistd.h>
        #include <apphost/apphost.h>
        #include <string.h>

        static apphost_status_t did_finish_launching(void) { return APPHOST_OK; }
        static void will_terminate(void) { sleep(\(seconds)); }
        static const apphost_app_callbacks_t app_callbacks = {
            sizeof(apphost_app_callbacks_t), did_finish_launching, will_terminate, NULL,
        };
        static apphost_status_t init(const apphost_host_t *host) { (void)host; return APPHOST_OK; }
        static void deinit(void) {}
        static const void *query(const char *id)
        {
            return id != NULL && strcmp(id, APPHOST_GUEST_APP_CALLBACKS_ID) == 0 ? &app_callbacks : NULL;
        }
        static const apphost_guest_descriptor_t descriptor = {
            sizeof(apphost_guest_descriptor_t), "\(slowID)", "Slow", "1.0.0", "apphost tests",
            "Takes its time to terminate.", 0,
        };
        APPHOST_EXPORT const apphost_entry_t apphost_entry = {
            {APPHOST_ABI_VERSION_MAJOR, APPHOST_ABI_VERSION_MINOR, 0}, &descriptor, init, deinit, query,
        };
        """.write(toFile: source, atomically: true, encoding: .utf8)
        return try compile(source, to: directory + "/libSlowTerminate.so", file: file, line: line)
    }

    /// Plugins/Fixtures/signalling_guest.c built with `flags`: signals the other workers of its
    /// host, every process it may (kill(-1)) and its host, and logs what each kill returned.
    static let signallingID = "org.apphost.fixtures.signalling"

    static func signalling(
        _ flags: [String], as name: String, into directory: String, file: StaticString = #filePath, line: UInt = #line
    ) throws -> String {
        try compile(
            packageRoot.appendingPathComponent("Plugins/Fixtures/signalling_guest.c").path, to: directory + "/" + name,
            flags: flags, file: file, line: line)
    }

    /// Plugins/Fixtures/minimal_guest.c as a guest of its own that tries to read `path` (another
    /// guest's file) at its launch and logs "probe: <what happened>" and "uid <its uid>".
    static let proberID = "org.apphost.fixtures.prober"

    static func prober(
        reading path: String, into directory: String, file: StaticString = #filePath, line: UInt = #line
    ) throws -> String {
        try compile(
            packageRoot.appendingPathComponent("Plugins/Fixtures/minimal_guest.c").path,
            to: directory + "/libProber.so", flags: [#"-DFIXTURE_ID="\#(proberID)""#, #"-DFIXTURE_PROBE="\#(path)""#],
            file: file, line: line)
    }

    /// Plugins/Fixtures/forking_guest.c built with `flags`: starts a child and a double-forked
    /// orphan that sleep, each with the library mapped.
    static let forkingID = "org.apphost.fixtures.forking"

    static func forking(
        _ flags: [String], as name: String, into directory: String, file: StaticString = #filePath, line: UInt = #line
    ) throws -> String {
        try compile(
            packageRoot.appendingPathComponent("Plugins/Fixtures/forking_guest.c").path, to: directory + "/" + name,
            flags: flags, file: file, line: line)
    }

    /// Tests/ApphostCLITests/Support/<this file> -> the package root.
    static let packageRoot = URL(fileURLWithPath: "\(#filePath)").deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    private static func compile(
        _ source: String, to output: String, flags: [String] = [], file: StaticString, line: UInt
    ) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments =
            [
                "cc", "-std=c99", "-shared", "-fPIC", "-I", packageRoot.appendingPathComponent("sdk/include").path,
            ] + flags + [source, "-o", output]
        let messages = Pipe()
        process.standardOutput = messages
        process.standardError = messages
        try process.run()
        let text = String(decoding: messages.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            XCTFail("cannot build \(source) (is cc installed? run scripts/setup):\n\(text)", file: file, line: line)
            throw HostTestFailure()
        }
        return output
    }
}

extension TestGuests {
    /// sdk/examples/tone.c, as a plugin author builds it: plays a 1 kHz sine at -6.02 dBFS peak
    /// (-9.03 RMS) from its launch, in a playback session that mixes with others.
    static let toneID = "org.example.tone"

    static func tone(into directory: String, file: StaticString = #filePath, line: UInt = #line) throws -> String {
        try compile(
            packageRoot.appendingPathComponent("sdk/examples/tone.c").path, to: directory + "/tone.so",
            flags: ["-lm"], file: file, line: line)
    }

    /// Plugins/Fixtures/actions_guest.c: an action per type code and ones that break, crash or
    /// hang; `table` makes its table wrong in one way (see the file).
    static let actionsID = "org.apphost.fixtures.actions"

    static func actions(
        table: Int = 0, into directory: String, file: StaticString = #filePath, line: UInt = #line
    ) throws -> String {
        try compile(
            packageRoot.appendingPathComponent("Plugins/Fixtures/actions_guest.c").path,
            to: directory + "/actions-\(table).so", flags: ["-DFIXTURE_TABLE=\(table)", "-lm"], file: file, line: line)
    }

    /// Plugins/Fixtures/render_fault_guest.c: plays a 440 Hz sine, then crashes (`fault` 1) or
    /// hangs (2) inside its render after `after` periods; 0 plays on.
    static let renderFaultID = "org.apphost.fixtures.render-fault"

    static func renderFault(
        _ fault: Int, after: Int = 50, records: Bool = false, recordsOnly: Bool = false, sneaks: Bool = false,
        declaresInput: Bool = true, into directory: String, file: StaticString = #filePath, line: UInt = #line
    ) throws -> String {
        try compile(
            packageRoot.appendingPathComponent("Plugins/Fixtures/render_fault_guest.c").path,
            to: directory + "/render_fault.so",
            flags: [
                "-DFIXTURE_FAULT=\(fault)", "-DFIXTURE_FAULT_AFTER=\(after)",
                "-DFIXTURE_RECORD=\(recordsOnly ? 2 : records ? 1 : 0)", "-DFIXTURE_SNEAK=\(sneaks ? 1 : 0)",
                "-DFIXTURE_INPUT=\(declaresInput ? 1 : 0)", "-lm",
            ],
            file: file, line: line)
    }

    /// Plugins/Fixtures/scenes_runtime_guest.c: runs the name of each action performed on it as
    /// commands of its own little language (see the file), and logs what each scenes function
    /// returned and every callback of apphost_guest_scenes_t.
    static let scenesID = "org.apphost.fixtures.scenes-runtime"

    static func scenes(into directory: String, file: StaticString = #filePath, line: UInt = #line) throws -> String {
        try compile(
            packageRoot.appendingPathComponent("Plugins/Fixtures/scenes_runtime_guest.c").path,
            to: directory + "/libScenesFixture.so", flags: ["-pthread"], file: file, line: line)
    }

    /// The scenes fixture as a guest that declares no capability, so one scene only (S13).
    static func singleSceneScenes(into directory: String, file: StaticString = #filePath, line: UInt = #line)
        throws -> String
    {
        try compile(
            packageRoot.appendingPathComponent("Plugins/Fixtures/scenes_runtime_guest.c").path,
            to: directory + "/libSingleSceneFixture.so", flags: ["-pthread", "-DFIXTURE_CAPABILITIES=0"], file: file,
            line: line)
    }
}
