import Foundation
import XCTest

/// The C ABI headers compile cleanly as C99 and C++17, on their own and together, and the
/// minimal guest of sdk/README.md builds with the README's own command and exports only
/// `apphost_entry`. As C++ they also compile without casts a C++ guest's warnings would flag
/// (-Wold-style-cast), nor casts that drop a qualifier or narrow a value (-Wcast-qual,
/// -Wconversion). These run the system's compilers: a missing one fails the test.
final class HeaderCompileTests: XCTestCase {
    /// The package root: this file is Tests/ApphostHostTests/HeaderCompileTests.swift.
    private static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    private var includeDirectory: URL { Self.packageRoot.appendingPathComponent("sdk/include") }

    private var scratch: URL!

    override func setUpWithError() throws {
        scratch = FileManager.default.temporaryDirectory
            .appendingPathComponent("apphost-header-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        if let scratch { try? FileManager.default.removeItem(at: scratch) }
    }

    func testUmbrellaHeaderCompilesAsStrictC99() throws {
        try compile(language: .c, source: Self.umbrellaUse)
    }

    func testUmbrellaHeaderCompilesAsStrictCxx17() throws {
        try compile(language: .cxx, source: Self.umbrellaUse)
    }

    /// Every header includes what it needs, so a guest may include any one of them alone.
    func testEachHeaderStandsAlone() throws {
        let headers = try FileManager.default
            .contentsOfDirectory(atPath: includeDirectory.appendingPathComponent("apphost").path)
            .filter { $0.hasSuffix(".h") }.sorted()
        XCTAssertTrue(headers.contains("apphost.h"), "no headers found under \(includeDirectory.path)")
        // The extensions' headers too: apphost.background/1's and apphost.scenes/1's.
        XCTAssertTrue(headers.contains("background.h"), "\(headers)")
        XCTAssertTrue(headers.contains("scenes.h"), "\(headers)")
        for header in headers {
            for language in [Language.c, .cxx] {
                try compile(language: language, source: "#include <apphost/\(header)>\nint apphost_test_unused;\n")
            }
        }
    }

    /// sdk/README.md's build command, run as written from the package root (only the output
    /// goes to a temporary directory), gives a library whose one exported symbol is
    /// `apphost_entry`.
    func testMinimalExampleBuildsWithReadmeCommandAndExportsOnlyTheEntry() throws {
        let readme = try String(
            contentsOf: Self.packageRoot.appendingPathComponent("sdk/README.md"), encoding: .utf8)
        let commands = readme.split(separator: "\n").map(String.init)
            .filter { $0.hasPrefix("cc ") && $0.contains("sdk/examples/minimal.c") && $0.hasSuffix("-o minimal.so") }
        XCTAssertEqual(commands.count, 1, "sdk/README.md should give one build command for minimal.c")
        guard let command = commands.first else { return }
        // The command needs these; name the one missing rather than let the shell fail.
        _ = try tool("cc", package: "build-essential")
        _ = try tool("pkg-config", package: "pkg-config")

        let library = scratch.appendingPathComponent("minimal.so")
        let build = String(command.dropLast("minimal.so".count)) + shellQuoted(library.path)
        try run("/bin/sh", ["-c", build], in: Self.packageRoot)

        let symbols = try run(try tool("nm", package: "binutils"), ["-D", "--defined-only", library.path])
        let names = symbols.split(separator: "\n").compactMap { $0.split(separator: " ").last.map(String.init) }
        XCTAssertEqual(names, ["apphost_entry"], "exported symbols:\n\(symbols)")
    }

    /// The same entry definition exports `apphost_entry` from a C++ guest: `entry.h` gives the
    /// symbol C linkage, where a `const` object at namespace scope would otherwise be internal.
    func testCxxGuestExportsTheEntry() throws {
        let source = scratch.appendingPathComponent("guest.cpp")
        try Self.umbrellaUse.replacingOccurrences(of: "apphost_test_entry", with: "apphost_entry")
            .write(to: source, atomically: true, encoding: .utf8)
        let library = scratch.appendingPathComponent("guest.so")
        try run(
            try tool("c++", package: "build-essential"),
            ["-std=c++17", "-Wall", "-Wextra", "-pedantic", "-Werror"] + Language.cxx.extraWarnings + [
                "-shared", "-fPIC", "-fvisibility=hidden", "-I", includeDirectory.path, source.path, "-o", library.path,
            ])
        let symbols = try run(try tool("nm", package: "binutils"), ["-D", "--defined-only", library.path])
        XCTAssertEqual(symbols.split(separator: "\n").compactMap { $0.split(separator: " ").last }, ["apphost_entry"])
    }

    // MARK: - Helpers

    /// Uses every kind of declaration, the background and scenes extensions' included (background.h
    /// and scenes.h come with the umbrella header), and every macro, so that unused-parameter and
    /// similar warnings would show. Its own casts are C++ casts in C++, so that -Wold-style-cast
    /// judges the headers alone.
    private static let umbrellaUse = """
        #include <apphost/apphost.h>

        #ifdef __cplusplus
        #define TEST_CAST(type, value) static_cast<type>(value)
        #else
        #define TEST_CAST(type, value) ((type)(value))
        #endif

        static apphost_status_t test_init(const apphost_host_t *host) { return host ? APPHOST_OK : APPHOST_ERROR_INVALID_ARGUMENT; }
        static void test_deinit(void) {}
        static const void *test_query(const char *id) { (void)id; return NULL; }
        static const apphost_guest_descriptor_t test_descriptor = {
            sizeof(apphost_guest_descriptor_t), "org.example.test", "Test", "1.0.0", 0, 0,
            APPHOST_CAPABILITY_MULTIPLE_SCENES, 0 };
        const apphost_entry_t apphost_test_entry = {
            APPHOST_ABI_VERSION_INIT, &test_descriptor, test_init, test_deinit, test_query };

        int apphost_test_names(void);
        int apphost_test_names(void)
        {
            apphost_version_t host = APPHOST_ABI_VERSION_INIT;
            const char *name = apphost_status_name(APPHOST_ERROR_TOO_LARGE);
            apphost_scene_connection_t connection;
            connection.scene = APPHOST_SCENE_INVALID;
            (void)connection;
            return apphost_version_is_compatible(host, apphost_test_entry.abi_version) && name[0] == 't'
                && APPHOST_SCENE_STATE_MAX_BYTES > 0 && APPHOST_LOG_MESSAGE_MAX_BYTES > 0
                && APPHOST_HAS_MEMBER(&test_descriptor, apphost_guest_descriptor_t, capabilities);
        }

        static void test_expired(void *context, apphost_task_t task) { (void)context; (void)task; }
        static void test_work(void *context) { (void)context; }
        int apphost_test_background(const apphost_host_t *host);
        int apphost_test_background(const apphost_host_t *host)
        {
            const apphost_background_t *background =
                TEST_CAST(const apphost_background_t *, host->get_extension(host, APPHOST_BACKGROUND_EXTENSION_ID));
            apphost_timer_t timer = APPHOST_TIMER_INVALID;
            apphost_task_t task;
            double seconds = APPHOST_BACKGROUND_TIME_UNLIMITED;
            char name[APPHOST_TASK_NAME_MAX_BYTES + 1] = "test";

            if (background == NULL || !APPHOST_HAS_MEMBER(background, apphost_background_t, dispatch_async)) {
                return 0;
            }
            task = background->begin_task(host, name, test_expired, 0);
            background->time_remaining(host, &seconds);
            background->schedule_timer(host, 1000000u, 0u, test_work, 0, &timer);
            background->cancel_timer(host, timer);
            background->dispatch_async(host, test_work, 0);
            return task != APPHOST_TASK_INVALID && background->end_task(host, task) == APPHOST_OK && seconds >= 0;
        }

        static void test_size(apphost_scene_t scene, const apphost_scene_size_t *size) { (void)scene; (void)size; }
        static void test_action(apphost_scene_t scene, const char *name, const void *payload, size_t length)
        {
            (void)scene; (void)name; (void)payload; (void)length;
        }
        static int32_t test_should(apphost_scene_t scene, apphost_modal_t modal) { return scene != 0 && modal != 0; }
        static void test_dismissed(apphost_scene_t scene, apphost_modal_t modal) { (void)scene; (void)modal; }
        static void test_discard(const char *session_id) { (void)session_id; }
        static void test_refused(apphost_request_t request, int32_t reason) { (void)request; (void)reason; }
        static const apphost_guest_scenes_t test_scenes_callbacks = {
            sizeof(apphost_guest_scenes_t), test_size, test_action, test_should, test_dismissed, test_discard,
            test_refused };
        int apphost_test_scenes(const apphost_host_t *host, apphost_scene_t scene);
        int apphost_test_scenes(const apphost_host_t *host, apphost_scene_t scene)
        {
            const apphost_scenes_t *scenes =
                TEST_CAST(const apphost_scenes_t *, host->get_extension(host, APPHOST_SCENES_EXTENSION_ID));
            apphost_scene_size_t size;
            apphost_modal_t modal = APPHOST_MODAL_INVALID;
            apphost_request_t request = APPHOST_REQUEST_INVALID;
            apphost_scene_request_t asked;
            char text[APPHOST_SCENES_TEXT_MAX_BYTES + 1] = "title";

            if (scenes == 0 || scenes->struct_size < sizeof(apphost_scenes_t)
                || test_scenes_callbacks.struct_size == 0) {
                return 0;
            }
            size.struct_size = sizeof size;
            scenes->request_scene(host, scene, APPHOST_SCENE_ROLE_AUXILIARY, APPHOST_PRESENTATION_PROMINENT, "s", 1);
            asked.struct_size = sizeof asked;
            asked.activation = APPHOST_ACTIVATION_INVALID;
            asked.from = scene;
            asked.role = APPHOST_SCENE_ROLE_AUXILIARY;
            asked.style = APPHOST_PRESENTATION_STANDARD;
            asked.state = 0;
            asked.length = 0;
            scenes->submit_scene_request(host, &asked, &request);
            scenes->activate_session(host, "session", APPHOST_PRESENTATION_AUTOMATIC);
            scenes->set_loading_progress(host, scene, APPHOST_PROGRESS_INDETERMINATE);
            scenes->set_loading_progress(host, scene, APPHOST_PROGRESS_NONE);
            scenes->present_modal(host, scene, APPHOST_MODAL_FULL_SCREEN, text, &modal);
            scenes->post_notification(host, text, 0);
            return scenes->scene_size(host, scene, &size) == APPHOST_OK && size.size_class == APPHOST_SIZE_CLASS_REGULAR
                && scenes->dismiss_modal(host, scene, modal) == APPHOST_OK && APPHOST_ACTION_PAYLOAD_MAX_BYTES > 0
                && apphost_status_name(APPHOST_ERROR_NO_ACTIVATION)[0] == 'n' && APPHOST_MODAL_SHEET == 0
                && APPHOST_PRESENTATION_STANDARD == 1 && APPHOST_SIZE_CLASS_COMPACT == 0;
        }
        """

    private enum Language {
        case c, cxx

        var compiler: String { self == .c ? "cc" : "c++" }
        var fileExtension: String { self == .c ? "c" : "cpp" }
        var standard: String { self == .c ? "-std=c99" : "-std=c++17" }
        /// Beyond -Wall -Wextra -pedantic: what a C++ guest may turn on and the headers must pass.
        var extraWarnings: [String] { self == .c ? [] : ["-Wold-style-cast", "-Wcast-qual", "-Wconversion"] }
    }

    private func compile(language: Language, source: String, file: StaticString = #filePath, line: UInt = #line) throws
    {
        let input = scratch.appendingPathComponent("test-\(UUID().uuidString).\(language.fileExtension)")
        try source.write(to: input, atomically: true, encoding: .utf8)
        let compiler = try tool(language.compiler, package: "build-essential")
        try run(
            compiler,
            [language.standard, "-Wall", "-Wextra", "-pedantic", "-Werror"] + language.extraWarnings + [
                "-I", includeDirectory.path, "-c", input.path, "-o", input.path + ".o",
            ], in: scratch, file: file, line: line)
    }

    /// The absolute path of `name` on PATH; a missing tool is a test failure, not a skip.
    private func tool(_ name: String, package: String) throws -> String {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        throw ToolMissing(description: "\(name) is not on PATH (\(path)): install Debian's \(package)")
    }

    private struct ToolMissing: Error, CustomStringConvertible {
        let description: String
    }

    private struct CommandFailed: Error, CustomStringConvertible {
        let description: String
    }

    private func shellQuoted(_ string: String) -> String {
        "'" + string.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// Runs `executable`; returns its standard output, and throws with both outputs unless it exits 0.
    @discardableResult
    private func run(
        _ executable: String, _ arguments: [String], in directory: URL? = nil, file: StaticString = #filePath,
        line: UInt = #line
    ) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        let output = scratch.appendingPathComponent("out-\(UUID().uuidString)")
        let errors = scratch.appendingPathComponent("err-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = try FileHandle(forWritingTo: errors)
        try process.run()
        process.waitUntilExit()
        let stdout = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
        let stderr = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            let failure = CommandFailed(
                description: "\(executable) \(arguments.joined(separator: " ")) exited \(process.terminationStatus):\n"
                    + stderr + stdout)
            XCTFail(failure.description, file: file, line: line)
            throw failure
        }
        return stdout
    }
}
