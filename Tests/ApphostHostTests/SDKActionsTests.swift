import ApphostGuestRuntime
import ApphostModel
import ApphostVocabulary
import CApphost
import Foundation
import XCTest

/// The Swift SDK's actions (apphost.actions/1, sdk/Sources/ApphostSDK/Actions.swift), through the
/// guest runtime in process: the table the SDK builds from a guest's typed closures, as ahr_load
/// reads it, and calls through the runtime's libffi call interfaces into the SDK's libffi
/// closures. The guests are built products of this package: the Swift Notes sample, and
/// Plugins/Fixtures/SwiftActionsGuest, whose actions cover every type code.
final class SDKActionsTests: XCTestCase {
    typealias Recorder = GuestRuntimeCTests.ReporterRecorder

    private var runtimes: [OpaquePointer] = []
    private var recorders: [Recorder] = []

    override func tearDown() {
        for runtime in runtimes { ahr_stop(runtime) }
        runtimes = []
        recorders = []
    }

    // MARK: The Swift Notes sample

    // CONTRACT F1: the sample's table, as the host reads it at load: each signature derived from
    // its closure's types.
    func testTheNotesSampleDeclaresItsActions() throws {
        let runtime = try loaded(Self.notes)
        let descriptor = ahr_descriptor(runtime).pointee
        XCTAssertTrue(descriptor.has_actions)
        XCTAssertEqual(RawText.string(descriptor.actions_id), APPHOST_ACTIONS_ID)
        XCTAssertEqual(descriptor.actions_struct_size, UInt32(MemoryLayout<apphost_guest_actions_t>.size))
        XCTAssertEqual(descriptor.action_size, UInt32(MemoryLayout<apphost_action_t>.size))
        XCTAssertEqual(descriptor.action_count, 3)
        XCTAssertEqual(
            Self.declared(runtime),
            [
                DeclaredAction("add", "s", "", "Adds a note with the given title."),
                DeclaredAction("count", "", "i", "How many notes there are."),
                DeclaredAction(
                    "search", "s", "s", "The title of the first note holding the text, or \"\" when none does."),
            ])
    }

    // CONTRACT F2: add, count and search on the running sample, each result reported before
    // ahr_handle returns.
    func testTheNotesSampleAddsCountsAndSearches() throws {
        let (runtime, recorder) = try launched(Self.notes)
        let actions = Self.indexes(runtime)
        let add = try XCTUnwrap(actions["add"])
        let count = try XCTUnwrap(actions["count"])
        let search = try XCTUnwrap(actions["search"])

        XCTAssertEqual(call(runtime, count), 0)
        XCTAssertEqual(call(runtime, add, .s("milk")), 0)
        XCTAssertEqual(call(runtime, add, .s("bread")), 0)
        XCTAssertEqual(call(runtime, count), 0)
        XCTAssertEqual(call(runtime, search, .s("rea")), 0)
        XCTAssertEqual(call(runtime, search, .s("groceries")), 0)
        XCTAssertEqual(
            Self.results(recorder),
            [
                .actionResult(type: "i", value: "0"), .actionResult(type: "", value: ""),
                .actionResult(type: "", value: ""), .actionResult(type: "i", value: "2"),
                .actionResult(type: "s", value: "bread"), .actionResult(type: "s", value: ""),
            ])
        XCTAssertEqual(recorder.lines.suffix(2), ["list: milk", "list: milk, bread"])
    }

    // MARK: Every type code

    // The signatures the SDK derived from the fixture's closures: each type of ActionArgument and
    // ActionResult, ay and a Void result included, and the foreground flag.
    func testSignaturesAreDerivedFromTheClosuresTypes() throws {
        let runtime = try loaded(Self.fixture)
        let echoes = ["b", "y", "n", "q", "i", "u", "x", "t", "d", "s", "ay"].map { code in
            DeclaredAction("echo.\(code)", code, code, nil)
        }
        let foreground = UInt64(APPHOST_ACTION_FOREGROUND.rawValue)
        XCTAssertEqual(
            Self.declared(runtime).map { DeclaredAction($0.name, $0.arguments, $0.result, nil, flags: $0.flags) },
            echoes + [
                DeclaredAction("mix", "sayibd", "s", nil), DeclaredAction("touch", "", "", nil, flags: foreground),
                DeclaredAction("touches", "", "t", nil), DeclaredAction("bytes", "u", "ay", nil),
                DeclaredAction("text", "u", "s", nil),
            ])
        XCTAssertEqual(Self.declared(runtime).first?.description, "Returns its bool.")
        XCTAssertTrue(Self.declared(runtime).allSatisfy(\.hasFunction))
    }

    // CONTRACT F2: each type's values, its limits included, reach the closure and come back as
    // they were: narrow integers widened (and sign-extended) as libffi's caller reads them, strings
    // as UTF-8, bytes as a struct returned by value.
    func testEveryTypeCodeRoundTrips() throws {
        let (runtime, recorder) = try launched(Self.fixture)
        let actions = Self.indexes(runtime)
        let cases: [(String, Value, String)] = [
            ("b", .b(true), "true"), ("b", .b(false), "false"),
            ("y", .y(0), "0"), ("y", .y(255), "255"),
            ("n", .n(-32768), "-32768"), ("n", .n(32767), "32767"), ("n", .n(-1), "-1"),
            ("q", .q(65535), "65535"),
            ("i", .i(.min), "\(Int32.min)"), ("i", .i(.max), "\(Int32.max)"), ("i", .i(-1), "-1"),
            ("u", .u(.max), "\(UInt32.max)"),
            ("x", .x(.min), "\(Int64.min)"), ("x", .x(.max), "\(Int64.max)"),
            ("t", .t(.max), "\(UInt64.max)"),
            ("d", .d(-2.5), "-2.5"), ("d", .d(1e300), "1e+300"),
            ("s", .s(""), ""), ("s", .s("héllo ✓"), "héllo ✓"),
            ("ay", .ay([]), "[]"), ("ay", .ay([0, 1, 255]), "[0, 1, 255]"),
        ]
        for (code, argument, expected) in cases {
            let index = try XCTUnwrap(actions["echo.\(code)"])
            let mark = recorder.timeline.count
            XCTAssertEqual(call(runtime, index, argument), 0, "echo.\(code) \(argument)")
            XCTAssertEqual(
                Self.results(recorder, since: mark), [.actionResult(type: code, value: expected)],
                "echo.\(code) \(argument)")
        }
    }

    // Arguments after ay, which is two C parameters, read right; a Void action runs and reports a
    // result of no type; results of variable size are each the call's own.
    func testArgumentsInOrderVoidResultsAndResultBuffers() throws {
        let (runtime, recorder) = try launched(Self.fixture)
        let actions = Self.indexes(runtime)
        let mix = try XCTUnwrap(actions["mix"])
        let touch = try XCTUnwrap(actions["touch"])
        let touches = try XCTUnwrap(actions["touches"])
        let bytes = try XCTUnwrap(actions["bytes"])
        let text = try XCTUnwrap(actions["text"])

        XCTAssertEqual(call(runtime, mix, .s("a b"), .ay([1, 2]), .i(-7), .b(true), .d(0.5)), 0)
        XCTAssertEqual(call(runtime, touch), 0)
        XCTAssertEqual(call(runtime, touch), 0)
        XCTAssertEqual(call(runtime, touches), 0)
        XCTAssertEqual(call(runtime, bytes, .u(0)), 0)
        XCTAssertEqual(call(runtime, bytes, .u(300)), 0)
        XCTAssertEqual(call(runtime, text, .u(5)), 0)
        XCTAssertEqual(call(runtime, text, .u(2)), 0)
        XCTAssertEqual(call(runtime, text, .u(0)), 0)
        let counting = (0..<300).map { UInt8(truncatingIfNeeded: $0) }
        XCTAssertEqual(
            Self.results(recorder),
            [
                .actionResult(type: "s", value: "a b [1, 2] -7 true 0.5"),
                .actionResult(type: "", value: ""), .actionResult(type: "", value: ""),
                .actionResult(type: "t", value: "2"),
                .actionResult(type: "ay", value: "[]"), .actionResult(type: "ay", value: "\(counting)"),
                .actionResult(type: "s", value: "xxxxx"), .actionResult(type: "s", value: "xx"),
                .actionResult(type: "s", value: ""),
            ])
    }

    // A result too long for the ABI is the guest's mistake: the runtime reports the call broken,
    // and the next call works.
    func testAResultPastTheLimitIsABrokenCall() throws {
        let (runtime, recorder) = try launched(Self.fixture)
        let text = try XCTUnwrap(Self.indexes(runtime)["text"])
        let limit = UInt32(APPHOST_ACTION_VALUE_MAX_BYTES)
        XCTAssertEqual(call(runtime, text, .u(limit + 1)), Int32(APPHOST_ERROR_GUEST_FAILED.rawValue))
        XCTAssertEqual(call(runtime, text, .u(limit)), 0)
        let results = Self.results(recorder)
        XCTAssertEqual(results.count, 2)
        guard case .actionBroken(let problem) = results.first else { return XCTFail("\(results)") }
        XCTAssertTrue(problem.contains("longer than APPHOST_ACTION_VALUE_MAX_BYTES"), problem)
        XCTAssertEqual(results.last, .actionResult(type: "s", value: String(repeating: "x", count: Int(limit))))
    }

    // MARK: Harness

    private static let notes = "libSwiftNotesGuest.so"
    private static let fixture = "libSwiftActionsFixture.so"

    /// A guest's action as the runtime read it from the table.
    struct DeclaredAction: Equatable {
        var name: String
        var arguments: String
        var result: String
        var description: String?
        var flags: UInt64 = 0
        var hasFunction = true

        init(_ name: String, _ arguments: String, _ result: String, _ description: String?, flags: UInt64 = 0) {
            (self.name, self.arguments, self.result, self.description, self.flags) =
                (name, arguments, result, description, flags)
        }
    }

    /// One argument, by its type code.
    enum Value: CustomStringConvertible {
        case b(Bool)
        case y(UInt8)
        case n(Int16)
        case q(UInt16)
        case i(Int32)
        case u(UInt32)
        case x(Int64)
        case t(UInt64)
        case d(Double)
        case s(String)
        case ay([UInt8])

        var description: String {
            switch self {
            case .b(let value): "\(value)"
            case .y(let value): "\(value)"
            case .n(let value): "\(value)"
            case .q(let value): "\(value)"
            case .i(let value): "\(value)"
            case .u(let value): "\(value)"
            case .x(let value): "\(value)"
            case .t(let value): "\(value)"
            case .d(let value): "\(value)"
            case .s(let value): "\"\(value)\""
            case .ay(let value): "\(value)"
            }
        }
    }

    /// ahr_text as a String; nil for NULL.
    enum RawText {
        static func string(_ text: ahr_text) -> String? {
            text.bytes.map { String(cString: $0) }
        }
    }

    /// The product `name` loaded, stopped in tearDown.
    private func loaded(_ name: String, file: StaticString = #filePath, line: UInt = #line) throws -> OpaquePointer {
        let path = try BuiltProduct.path(name, file: file, line: line)
        var error = [CChar](repeating: 0, count: 4096)
        var runtime: OpaquePointer?
        let result = ahr_load(path, &runtime, &error, error.count)
        let text = String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        XCTAssertEqual(result, AHR_LOAD_OK, text, file: file, line: line)
        let loaded = try XCTUnwrap(runtime, text, file: file, line: line)
        runtimes.append(loaded)
        return loaded
    }

    /// The product `name` loaded, started and launched (did_finish_launching, in the foreground).
    private func launched(_ name: String, file: StaticString = #filePath, line: UInt = #line) throws -> (
        OpaquePointer, Recorder
    ) {
        let runtime = try loaded(name, file: file, line: line)
        let recorder = Recorder()
        recorders.append(recorder)
        var status: Int32 = -1
        XCTAssertEqual(
            ahr_start(runtime, NSTemporaryDirectory(), "apphost", "9.8.7", recorder.reporter, &status), AHR_START_OK,
            file: file, line: line)
        XCTAssertEqual(status, 0, file: file, line: line)
        var call = ahr_call()
        call.kind = AHR_CALL_DID_FINISH_LAUNCHING
        call.app_state = Int32(APPHOST_APP_STATE_ACTIVE.rawValue)
        XCTAssertEqual(ahr_handle(runtime, &call), 0, "did_finish_launching", file: file, line: line)
        return (runtime, recorder)
    }

    /// The actions the runtime read from the guest's table, in order.
    private static func declared(_ runtime: OpaquePointer) -> [DeclaredAction] {
        var descriptor = ahr_descriptor(runtime).pointee
        let count = Int(descriptor.actions_read)
        return withUnsafeBytes(of: &descriptor.actions) { buffer in
            buffer.bindMemory(to: ahr_raw_action.self).prefix(count).map { raw in
                var action = DeclaredAction(
                    RawText.string(raw.name) ?? "<NULL>", RawText.string(raw.arguments) ?? "<NULL>",
                    RawText.string(raw.result) ?? "<NULL>", RawText.string(raw.description), flags: raw.flags)
                action.hasFunction = raw.has_function
                return action
            }
        }
    }

    /// Each action's index in the table, by name.
    private static func indexes(_ runtime: OpaquePointer) -> [String: UInt32] {
        Dictionary(uniqueKeysWithValues: declared(runtime).enumerated().map { ($1.name, UInt32($0)) })
    }

    /// An ACTION_RESULT as these tests compare it: the result's type code ("" for none) and its
    /// value as text (a number as Swift prints it, bytes as an array of numbers), or why it broke.
    enum Result: Equatable {
        case actionResult(type: String, value: String)
        case actionBroken(String)

        init(_ outcome: ActionOutcome) {
            switch outcome {
            case .broke(let why): self = .actionBroken(why)
            case .returned(nil): self = .actionResult(type: "", value: "")
            case .returned(let value?):
                let text =
                    switch value {
                    case .bool(let flag): "\(flag)"
                    case .uint8(let number): "\(number)"
                    case .int16(let number): "\(number)"
                    case .uint16(let number): "\(number)"
                    case .int32(let number): "\(number)"
                    case .uint32(let number): "\(number)"
                    case .int64(let number): "\(number)"
                    case .uint64(let number): "\(number)"
                    case .double(let number): "\(number)"
                    case .string(let string): string
                    case .bytes(let data): "\(Array(data))"
                    }
                self = .actionResult(type: value.type.rawValue, value: text)
            }
        }
    }

    /// The ACTION_RESULT reports since the timeline's entry `mark`.
    private static func results(_ recorder: Recorder, since mark: Int = 0) -> [Result] {
        recorder.timeline.dropFirst(mark).compactMap {
            if case .action(let outcome) = $0 { Result(outcome) } else { nil }
        }
    }

    /// Calls action `index` with `arguments` through ahr_handle, in the foreground.
    private func call(_ runtime: OpaquePointer, _ index: UInt32, _ arguments: Value...) -> Int32 {
        var buffers: [UnsafeMutableRawPointer] = []
        defer { for buffer in buffers { free(buffer) } }
        func storage(_ bytes: [UInt8]) -> UnsafeRawPointer {
            let buffer = malloc(max(bytes.count, 1))!
            bytes.withUnsafeBytes { source in
                if let base = source.baseAddress { buffer.copyMemory(from: base, byteCount: source.count) }
            }
            buffers.append(buffer)
            return UnsafeRawPointer(buffer)
        }
        let values = arguments.map { argument -> ahr_value in
            var value = ahr_value()
            switch argument {
            case .b(let bool): (value.type, value.boolean) = (AHR_VALUE_BOOL, bool)
            case .y(let integer): (value.type, value.unsigned_integer) = (AHR_VALUE_UINT8, UInt64(integer))
            case .n(let integer): (value.type, value.integer) = (AHR_VALUE_INT16, Int64(integer))
            case .q(let integer): (value.type, value.unsigned_integer) = (AHR_VALUE_UINT16, UInt64(integer))
            case .i(let integer): (value.type, value.integer) = (AHR_VALUE_INT32, Int64(integer))
            case .u(let integer): (value.type, value.unsigned_integer) = (AHR_VALUE_UINT32, UInt64(integer))
            case .x(let integer): (value.type, value.integer) = (AHR_VALUE_INT64, integer)
            case .t(let integer): (value.type, value.unsigned_integer) = (AHR_VALUE_UINT64, integer)
            case .d(let real): (value.type, value.real) = (AHR_VALUE_DOUBLE, real)
            case .s(let string):
                (value.type, value.bytes, value.length) = (
                    AHR_VALUE_STRING, storage(Array(string.utf8)), string.utf8.count
                )
            case .ay(let bytes):
                (value.type, value.bytes, value.length) = (AHR_VALUE_BYTES, storage(bytes), bytes.count)
            }
            return value
        }
        return values.withUnsafeBufferPointer { buffer in
            var call = ahr_call()
            call.kind = AHR_CALL_ACTION
            call.app_state = Int32(APPHOST_APP_STATE_ACTIVE.rawValue)
            call.action.index = index
            call.action.arguments = buffer.baseAddress
            call.action.arguments_count = buffer.count
            return ahr_handle(runtime, &call)
        }
    }
}
