import ApphostModel
import ApphostVocabulary
import CApphost
import Dispatch
import Foundation
import Synchronization
import XCTest

@testable import ApphostChannels
@testable import ApphostLoading

/// CONTRACT X1: every file that is not a loadable guest is refused with its precise cause and a
/// one-line error naming the file, and the host process goes on.
final class LoaderTests: XCTestCase {
    // MARK: Valid guests

    // CONTRACT X1: a valid guest passes and its descriptor is read as declared.
    func testValidGuestIsInspected() throws {
        let path = try GuestFixtures.library("minimal_guest.c")
        let descriptor = try GuestLibrary.inspect(path: path)
        XCTAssertEqual(
            descriptor,
            GuestDescriptor(
                id: "org.apphost.fixtures.minimal", name: "Minimal Fixture", version: "1.0.0", vendor: "apphost tests",
                summary: "A minimal guest for loader tests.", capabilities: [], abiVersion: .current))
    }

    // CONTRACT X1: a file name without a directory is the file in the current directory, never a
    // library found on the search path.
    func testRelativePathIsNotSearchedForOnTheLibraryPath() throws {
        let path = try GuestFixtures.library("minimal_guest.c")
        let previous = FileManager.default.currentDirectoryPath
        XCTAssertTrue(FileManager.default.changeCurrentDirectoryPath(GuestFixtures.directory.path))
        defer { _ = FileManager.default.changeCurrentDirectoryPath(previous) }
        XCTAssertEqual(
            try GuestLibrary.inspect(path: (path as NSString).lastPathComponent).id, "org.apphost.fixtures.minimal")
        assertRefused("libc.so.6", .missingFile)
    }

    // MARK: The file itself

    // CONTRACT X1
    func testMissingFile() {
        assertRefused(GuestFixtures.path("does-not-exist.so"), .missingFile)
        assertRefused(GuestFixtures.path("no-such-directory/guest.so"), .missingFile)
    }

    // CONTRACT X1
    func testDirectory() {
        assertRefused(GuestFixtures.directory.path, .isDirectory)
    }

    // CONTRACT X1: a FIFO is refused without opening it, which would block.
    func testFIFOIsUnreadable() throws {
        let path = GuestFixtures.path("fifo-\(UUID().uuidString)")
        XCTAssertEqual(mkfifo(path, 0o600), 0)
        defer { unlink(path) }
        assertRefused(path, .unreadable("not a regular file"))
    }

    // CONTRACT X1
    func testFileWithoutReadPermissionIsUnreadable() throws {
        try XCTSkipIf(geteuid() == 0, "root reads every file")
        let path = try GuestFixtures.copy(of: try GuestFixtures.library("minimal_guest.c"), as: "unreadable.so") { _ in
        }
        XCTAssertEqual(chmod(path, 0), 0)
        assertRefused(path, .unreadable(String(cString: strerror(EACCES))))
    }

    // CONTRACT X1
    func testTextFileIsNotELF() throws {
        assertRefused(try GuestFixtures.file("notes.txt", bytes: Array("just some text\n".utf8)), .notELF)
        assertRefused(try GuestFixtures.file("empty.so", bytes: []), .notELF)
    }

    // CONTRACT X1: shorter than the ELF header, or tables and segments past the end of the file.
    func testTruncatedFiles() throws {
        let valid = try GuestFixtures.library("minimal_guest.c")
        let size = try Data(contentsOf: URL(fileURLWithPath: valid)).count
        for length in [5, 40, 63, 100, size / 2, size - 1] {
            let path = try GuestFixtures.copy(of: valid, as: "truncated-\(length).so") { $0 = Array($0.prefix(length)) }
            assertRefused(path, .truncated, "cut to \(length) bytes")
        }
    }

    // CONTRACT X1
    func testThirtyTwoBitLibrary() throws {
        let path: String
        do {
            // Without a libc to link: a 32-bit compiler is often there when 32-bit libraries are not.
            path = try GuestFixtures.library("no_entry.c", name: "no_entry_32", flags: ["-m32", "-nostdlib"])
        } catch {
            path = try GuestFixtures.copy(of: try GuestFixtures.library("minimal_guest.c"), as: "class32.so") {
                $0[4] = 1  // EI_CLASS = ELFCLASS32
            }
        }
        assertRefused(path, .wrongELFClass("32-bit"))
    }

    // CONTRACT X1
    func testOtherArchitecture() throws {
        let path = try GuestFixtures.copy(of: try GuestFixtures.library("minimal_guest.c"), as: "aarch64.so") {
            $0[18] = 183  // e_machine = EM_AARCH64, little-endian
            $0[19] = 0
        }
        let host = ElfMachine.name(ElfMachine.host)
        if host == "aarch64" {
            assertRefused(
                try GuestFixtures.copy(of: path, as: "x86_64.so") { $0[18] = 62 },
                .wrongArchitecture(found: "x86_64", expected: host))
        } else {
            assertRefused(path, .wrongArchitecture(found: "aarch64", expected: host))
        }
        let error = refusal(path)
        XCTAssertEqual(error?.description, "\(path): built for aarch64, this host runs \(host)")
    }

    // CONTRACT X1: both kinds of executable: ET_EXEC, and ET_DYN with an interpreter (PIE).
    func testExecutablesAreNotSharedObjects() throws {
        let pie = try GuestFixtures.program("tiny_program.c", name: "program-pie", flags: ["-fPIE", "-pie"])
        let fixed = try GuestFixtures.program("tiny_program.c", name: "program-no-pie", flags: ["-fno-PIE", "-no-pie"])
        assertRefused(pie, .notSharedObject("an executable"))
        assertRefused(fixed, .notSharedObject("an executable"))
        XCTAssertEqual(refusal(pie)?.description, "\(pie): not a shared library but an executable")
    }

    // CONTRACT X1
    func testObjectFileIsNotASharedObject() throws {
        let object = try GuestFixtures.program("tiny_program.c", name: "tiny_program.o", flags: ["-c"])
        assertRefused(object, .notSharedObject("a relocatable object file"))
    }

    // MARK: Linking

    // CONTRACT X1
    func testUnresolvedDependency() throws {
        assertRefused(
            try GuestFixtures.guestWithMissingDependency(), .unresolvedDependency("libapphost_fixture_stub.so"))
    }

    // CONTRACT X1
    func testUnresolvedSymbol() throws {
        let path = try GuestFixtures.library("unresolved_symbol.c")
        assertRefused(path, .unresolvedSymbol("apphost_fixture_function_nobody_defines"))
    }

    // CONTRACT X1
    func testMissingEntrySymbol() throws {
        let path = try GuestFixtures.library("no_entry.c")
        assertRefused(path, .missingEntrySymbol)
        XCTAssertEqual(
            refusal(path)?.description,
            "\(path): no apphost_entry symbol: not an apphost guest (export apphost_entry)")
    }

    // MARK: Entry and descriptor

    // CONTRACT X1: a guest of another major version, newer or older, is refused with a one-line
    // error that names its version and the host's.
    func testOtherMajorVersionsAreRefused() throws {
        for (major, minor) in [(2, 0), (0, 9)] {
            let path = try GuestFixtures.library(
                "minimal_guest.c", name: "abi-\(major).\(minor)",
                flags: ["-DFIXTURE_ABI_MAJOR=\(major)", "-DFIXTURE_ABI_MINOR=\(minor)"])
            let guest = ABIVersion(major: UInt32(major), minor: UInt32(minor), revision: 0)
            assertRefused(path, .unsupportedABIVersion(guest: guest, host: .current))
            XCTAssertEqual(
                refusal(path)?.description,
                "\(path): unsupported ABI version \(major).\(minor).0 (this host implements \(ABIVersion.current) and "
                    + "loads major version \(ABIVersion.current.major) only)")
        }
        XCTAssertEqual(ABIVersion.current.major, 1, "the fixtures above are of other majors than this host's")
    }

    // CONTRACT X1: the host refuses only another major. A guest built against newer headers of
    // the same major (one minor past this host's, which it does not know) loads and runs: it
    // probes what it uses, here with APPHOST_HAS_MEMBER on the host's struct before it logs.
    func testGuestOfANewerMinorLoadsAndRuns() throws {
        let newer = ABIVersion(major: 1, minor: ABIVersion.current.minor + 1, revision: 0)
        let path = try GuestFixtures.library(
            "minimal_guest.c", name: "abi-1.\(newer.minor)-logs",
            flags: ["-DFIXTURE_ABI_MINOR=\(newer.minor)", "-DFIXTURE_LOG_LAUNCH"])
        XCTAssertEqual(try GuestLibrary.inspect(path: path).abiVersion, newer)

        let logs = Mutex<[String]>([])
        let result = try open(path) { event in
            if case .log(_, let message) = event { logs.withLock { $0.append(message) } }
        }
        let opened = try XCTUnwrap(result.success, "\(result.failure?.description ?? "")")
        XCTAssertEqual(opened.descriptor.abiVersion, newer)
        XCTAssertEqual(send(TestMessages.launch, to: opened.channel), .success(0))
        close(opened.channel)
        XCTAssertEqual(logs.withLock { $0 }, ["launched on a host of ABI \(ABIVersion.current)"])
    }

    // CONTRACT X1
    func testInvalidDescriptors() throws {
        let cases: [(name: String, flags: [String], what: String)] = [
            ("null-descriptor", ["-DFIXTURE_NULL_DESCRIPTOR"], "descriptor is NULL"),
            (
                "small-descriptor", ["-DFIXTURE_STRUCT_SIZE=16"],
                "struct_size is 16, smaller than the 1.0 descriptor (\(DescriptorValidator.minimumSize) bytes)"
            ),
            ("null-id", ["-DFIXTURE_NULL_ID"], "id is NULL"),
            ("empty-id", ["-DFIXTURE_ID=\"\""], "id is empty"),
            (
                "bad-id", ["-DFIXTURE_ID=\"not a reverse dns id\""],
                "id \"not a reverse dns id\" is not a reverse-DNS identifier (two or more labels of ASCII letters, "
                    + "digits and '-', such as org.example.notes)"
            ),
            (
                "one-label-id", ["-DFIXTURE_ID=\"notes\""],
                "id \"notes\" is not a reverse-DNS identifier (two or more labels of ASCII letters, digits and '-', "
                    + "such as org.example.notes)"
            ),
            ("empty-name", ["-DFIXTURE_NAME=\"\""], "name is empty"),
            ("bad-utf8-name", ["-DFIXTURE_NAME=\"\\xff\\xfe\""], "name is not valid UTF-8"),
            ("empty-version", ["-DFIXTURE_VERSION=\"\""], "version is empty"),
            ("unknown-capability", ["-DFIXTURE_CAPABILITIES=(1u<<7)"], "unknown capability bits 0x80"),
            ("null-init", ["-DFIXTURE_NULL_INIT"], "init is NULL"),
            ("null-query", ["-DFIXTURE_NULL_QUERY"], "query is NULL"),
        ]
        for (name, flags, what) in cases {
            let path = try GuestFixtures.library("minimal_guest.c", name: "descriptor-\(name)", flags: flags)
            assertRefused(path, .invalidDescriptor(what), name)
        }
    }

    // MARK: Init, through the opener

    // CONTRACT X1 A2: init's error is reported by name; deinit is not called (the fixture's deinit
    // aborts) and the guest can be loaded again.
    func testInitFailureIsReportedAndUnloadsWithoutDeinit() throws {
        let failing = try GuestFixtures.library(
            "minimal_guest.c", name: "init-fails",
            flags: ["-DFIXTURE_INIT_STATUS=APPHOST_ERROR_GUEST_FAILED", "-DFIXTURE_DEINIT_ABORTS"])
        let result = try open(failing)
        XCTAssertEqual(result.failure, LoadError(path: failing, cause: .initFailed(status: 7, name: "guest_failed")))
        XCTAssertEqual(result.failure?.description, "\(failing): init failed with status 7 (guest_failed)")

        let valid = try GuestFixtures.library("minimal_guest.c")
        let opened = try XCTUnwrap(try open(valid).success, "the failed guest's id must be free again")
        close(opened.channel)
    }

    // CONTRACT X1: every guest must offer app callbacks; one without is unloaded after its deinit.
    func testGuestWithoutAppCallbacksIsRefused() throws {
        let path = try GuestFixtures.library(
            "minimal_guest.c", name: "no-app-callbacks", flags: ["-DFIXTURE_NO_APP_CALLBACKS"])
        let result = try open(path)
        XCTAssertEqual(
            result.failure,
            LoadError(
                path: path,
                cause: .invalidDescriptor(
                    "query(\"apphost.guest.app/1\") returned NULL: every guest must provide app callbacks")))
    }

    // CONTRACT X1: the opener reports refusals on the host queue, like successes.
    func testOpenerReportsRefusalOnHostQueue() throws {
        let result = try open(GuestFixtures.path("missing.so"))
        XCTAssertEqual(result.failure?.cause, .missingFile)
    }

    // MARK: Helpers

    private func refusal(_ path: String) -> LoadError? {
        do throws(LoadError) {
            _ = try GuestLibrary.inspect(path: path)
            return nil
        } catch {
            return error
        }
    }

    private func assertRefused(
        _ path: String, _ cause: LoadError.Cause, _ note: String = "", file: StaticString = #filePath,
        line: UInt = #line
    ) {
        guard let error = refusal(path) else {
            return XCTFail("\(path) was loaded, expected \(cause) \(note)", file: file, line: line)
        }
        XCTAssertEqual(error.cause, cause, note, file: file, line: line)
        XCTAssertEqual(error.path, path, note, file: file, line: line)
        XCTAssertTrue(error.description.hasPrefix("\(path): "), error.description, file: file, line: line)
        XCTAssertFalse(error.description.contains("\n"), "one line: \(error.description)", file: file, line: line)
    }

    private func open(_ path: String, onEvent: @escaping @Sendable (GuestEvent) -> Void = { _ in }) throws
        -> OpenResult
    {
        let hostQueue = DispatchQueue(label: "apphost.test.host")
        let result = Mutex<OpenResult?>(nil)
        let done = DispatchSemaphore(value: 0)
        InProcessOpener().open(
            path: path, guestsDirectory: GuestFixtures.path("guests"), hostQueue: hostQueue, onEvent: onEvent,
            completion: { opened in
                dispatchPrecondition(condition: .onQueue(hostQueue))
                result.withLock { $0 = OpenResult(opened) }
                done.signal()
            })
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success, "open completes")
        return try XCTUnwrap(result.withLock { $0 })
    }

    private func send(_ message: GuestMessage, to channel: any GuestChannel) -> GuestReply? {
        let reply = Mutex<GuestReply?>(nil)
        let done = DispatchSemaphore(value: 0)
        channel.send(message) { answer in
            reply.withLock { $0 = answer }
            done.signal()
        }
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success, "the reply arrives")
        return reply.withLock { $0 }
    }

    private func close(_ channel: any GuestChannel) {
        let done = DispatchSemaphore(value: 0)
        channel.close { done.signal() }
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success, "close completes")
    }
}

/// An open's result, with accessors for assertions.
struct OpenResult: Sendable {
    let result: Result<OpenedGuest, LoadError>
    init(_ result: Result<OpenedGuest, LoadError>) { self.result = result }
    var success: OpenedGuest? { try? result.get() }
    var failure: LoadError? {
        guard case .failure(let error) = result else { return nil }
        return error
    }
}
