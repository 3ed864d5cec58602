import ApphostGuestRuntime
import ApphostModel
import ApphostVocabulary
import ApphostWire
import CApphost
import Foundation
import XCTest

@testable import ApphostChannels
@testable import ApphostLoading

/// The guest runtime's side of actions (CONTRACT F2), without a host: Plugins/Fixtures/
/// actions_guest.c loaded in this process and called through `ahr_handle`, the refusals of
/// values that are not the declared ones, and fuzzing of both conversions: the host's of an
/// operator's JSON, and the runtime's and the wire's of whatever values arrive.
final class ActionRuntimeTests: XCTestCase {
    private var runtime: OpaquePointer?
    private var recorder: GuestRuntimeCTests.ReporterRecorder?

    override func tearDown() {
        if let runtime { ahr_stop(runtime) }
        runtime = nil
        recorder = nil
    }

    // The table as read at load: names, signatures, functions present, and nothing past them.
    func testF1TheRawTableIsWhatTheGuestDeclared() throws {
        let runtime = try started()
        let raw = ahr_descriptor(runtime).pointee
        XCTAssertTrue(raw.has_actions)
        XCTAssertEqual(raw.action_count, 23)
        XCTAssertEqual(raw.actions_read, 23)
        XCTAssertEqual(raw.action_size, UInt32(MemoryLayout<apphost_action_t>.size))
        let descriptor = try DescriptorValidatorProbe.actions(of: raw)
        XCTAssertEqual(descriptor.first?.signature, "echo-b(b)b")
        XCTAssertEqual(descriptor.first { $0.name == "text" }?.signature, "text(dsayi)s")
    }

    // F2: each type's extremes through libffi and back, as values of the declared C types.
    func testF2ValuesAtTheirLimitsComeBackAsTheyWent() throws {
        let runtime = try started()
        let cases: [(String, ActionValue)] = [
            ("echo-b", .bool(true)), ("echo-b", .bool(false)), ("echo-y", .uint8(255)), ("echo-n", .int16(.min)),
            ("echo-q", .uint16(.max)), ("echo-i", .int32(.min)), ("echo-u", .uint32(.max)), ("echo-x", .int64(.min)),
            ("echo-t", .uint64(.max)), ("echo-d", .double(-0.0)), ("echo-d", .double(.leastNonzeroMagnitude)),
            ("echo-s", .string("")), ("echo-s", .string("🎈 ✓")), ("echo-ay", .bytes(Data())),
            ("echo-ay", .bytes(Data([0, 255, 0]))),
        ]
        for (name, value) in cases {
            XCTAssertEqual(try call(runtime, name, [value]), .returned(value), name)
        }
        XCTAssertEqual(
            try call(
                runtime, "mix",
                [
                    .bool(true), .uint8(1), .int16(-2), .uint16(3), .int32(-4), .uint32(5), .int64(-6), .uint64(7),
                ]),
            .returned(.string("b=1 y=1 n=-2 q=3 i=-4 u=5 x=-6 t=7")))
        XCTAssertEqual(try call(runtime, "touch", []), .returned(nil))
        XCTAssertEqual(try call(runtime, "null-string", []), .broke("returned NULL as its string"))
    }

    // F2: the runtime refuses, without running anything, what is not the declaration.
    func testF2TheRuntimeRefusesValuesThatAreNotDeclared() throws {
        let runtime = try started()
        let index = try XCTUnwrap(index(of: "echo-y", in: runtime))
        let refused: [[ahr_value]] = [
            [],
            [raw(.uint8(1)), raw(.uint8(2))],
            [raw(.int32(1))],
            [
                {
                    var value = raw(.uint8(1))
                    value.unsigned_integer = 256
                    return value
                }()
            ],
        ]
        for arguments in refused {
            XCTAssertEqual(deliver(runtime, index: index, arguments), Int32(APPHOST_ERROR_INVALID_ARGUMENT.rawValue))
        }
        XCTAssertEqual(deliver(runtime, index: 999, [raw(.uint8(1))]), Int32(APPHOST_ERROR_INVALID_HANDLE.rawValue))
        let text = try XCTUnwrap(self.index(of: "echo-s", in: runtime))
        let invalid: [[UInt8]] = [[0xFF], [0x61, 0x00, 0x62], [0xED, 0xA0, 0x80], [0xC0, 0x80]]
        for bytes in invalid {
            bytes.withUnsafeBytes { buffer in
                var value = raw(.string(""))
                value.bytes = buffer.baseAddress
                value.length = buffer.count
                XCTAssertEqual(
                    deliver(runtime, index: text, [value]), Int32(APPHOST_ERROR_INVALID_ARGUMENT.rawValue), "\(bytes)")
            }
        }
        XCTAssertEqual(try call(runtime, "touches", []), .returned(.uint32(0)), "nothing refused ran")
    }

    // MARK: - Fuzzing (a fixed seed: a failure reproduces)

    // The host's conversion: 5000 random JSON arrays against random signatures. Each either is
    // refused with one line that names an argument or the count, or gives values the runtime takes
    // as valid for exactly the declared types.
    func testF2FuzzTheHostsConversionOfJSON() throws {
        var random = SeededRandom(seed: 0x5EED)
        var accepted = 0
        for _ in 0..<5000 {
            let types = (0..<random.next(upTo: 4)).map { _ in ActionType.allCases.randomElement(using: &random)! }
            let action = GuestAction(name: "fuzz", arguments: types, result: nil, summary: "x", foreground: false)
            let count = random.next(upTo: 10) < 8 ? types.count : random.next(upTo: 5)
            let json = (0..<count).map { _ in JSONValue.random(using: &random) }
            do {
                let values = try ActionArguments.json(json).values(for: action)
                accepted += 1
                XCTAssertEqual(values.map(\.type), types)
                ActionABI.withValues(values) { converted in
                    for value in converted { XCTAssertTrue(ahr_value_is_valid([value]), "\(json)") }
                }
            } catch {
                XCTAssertFalse(error.message.contains("\n"), error.message)
                XCTAssertTrue(error.message.hasPrefix("fuzz("), error.message)
            }
        }
        XCTAssertGreaterThan(accepted, 200, "the fuzzing reaches the guest's side too")
    }

    // The runtime's: 3000 random values, of any type and any bits, against the fixture's actions:
    // a value that is not the declared one is refused, the others run; nothing crashes.
    func testF2FuzzTheRuntimesChecks() throws {
        let runtime = try started()
        var random = SeededRandom(seed: 0xF00D)
        let callable = (0..<Int(ahr_descriptor(runtime).pointee.actions_read)).filter { index in
            !["crash", "hang", "long-string"].contains(name(of: index, in: runtime))
        }
        var ran = 0
        for _ in 0..<3000 {
            let index = callable.randomElement(using: &random)!
            let arguments = (0..<random.next(upTo: 5)).map { _ in ahr_value.random(using: &random) }
            let status = withBacking(arguments) { deliver(runtime, index: UInt32(index), $0) }
            XCTAssertTrue(
                [APPHOST_OK, APPHOST_ERROR_INVALID_ARGUMENT, APPHOST_ERROR_GUEST_FAILED].map { Int32($0.rawValue) }
                    .contains(status),
                "status \(status)")
            if status != Int32(APPHOST_ERROR_INVALID_ARGUMENT.rawValue) { ran += 1 }
        }
        XCTAssertGreaterThan(ran, 20, "some random calls are valid ones")
    }

    // The wire's: 3000 random ACTION payloads for the worker's decoder; whatever it accepts the
    // runtime's checks accept too.
    func testF2FuzzTheWiresDecoder() {
        var random = SeededRandom(seed: 0xC0DE)
        var decoded = 0
        for _ in 0..<3000 {
            var payload: [UInt8] = [1, 0, 0, 0, 0, 0, 0, 0, UInt8(APPHOST_APP_STATE_ACTIVE.rawValue), 0, 0]
            payload.append(UInt8(APPHOST_WIRE_CALL_ACTION.rawValue))
            payload += [UInt8(random.next(upTo: 3)), 0, 0, 0, UInt8(random.next(upTo: 4))]
            for _ in 0..<random.next(upTo: 5) {
                payload.append(
                    [0, 98, 121, 110, 113, 105, 117, 120, 116, 100, 115, 97, 122].randomElement(using: &random)!)
                payload += (0..<random.next(upTo: 12)).map { _ in UInt8(random.next(upTo: 256)) }
            }
            var message = wire_message()
            var problem = wire_problem()
            let accepted = payload.withUnsafeBufferPointer { bytes in
                wire_decode(
                    WIRE_TO_WORKER, UInt8(APPHOST_WIRE_CALL.rawValue), bytes.baseAddress, bytes.count, nil, &message,
                    &problem)
            }
            guard accepted else { continue }
            decoded += 1
            let call = message.body.call.call.action
            for index in 0..<call.arguments_count {
                XCTAssertTrue(ahr_value_is_valid(call.arguments + index))
            }
        }
        XCTAssertGreaterThan(decoded, 10)
    }

    // MARK: - Harness

    private func started() throws -> OpaquePointer {
        let path = try GuestFixtures.library("actions_guest.c", name: "actions-runtime", flags: ["-lm"])
        var error = [CChar](repeating: 0, count: 4096)
        var loaded: OpaquePointer?
        XCTAssertEqual(ahr_load(path, &loaded, &error, error.count), AHR_LOAD_OK)
        let runtime = try XCTUnwrap(loaded)
        self.runtime = runtime
        let recorder = GuestRuntimeCTests.ReporterRecorder()
        self.recorder = recorder
        var status: Int32 = -1
        XCTAssertEqual(ahr_start(runtime, "/data/actions", "apphost", "1.0", recorder.reporter, &status), AHR_START_OK)
        return runtime
    }

    private func name(of index: Int, in runtime: OpaquePointer) -> String {
        withUnsafeBytes(of: ahr_descriptor(runtime).pointee.actions) { buffer in
            let action = buffer.bindMemory(to: ahr_raw_action.self)[index]
            return String(
                decoding: UnsafeRawBufferPointer(start: action.name.bytes, count: action.name.length), as: UTF8.self)
        }
    }

    private func index(of name: String, in runtime: OpaquePointer) -> UInt32? {
        (0..<Int(ahr_descriptor(runtime).pointee.actions_read)).first { self.name(of: $0, in: runtime) == name }
            .map(UInt32.init)
    }

    private func deliver(_ runtime: OpaquePointer, index: UInt32, _ arguments: [ahr_value]) -> Int32 {
        var call = ahr_call()
        call.kind = AHR_CALL_ACTION
        call.app_state = Int32(APPHOST_APP_STATE_ACTIVE.rawValue)
        call.action.index = index
        return arguments.withUnsafeBufferPointer { buffer in
            call.action.arguments = buffer.baseAddress
            call.action.arguments_count = buffer.count
            return ahr_handle(runtime, &call)
        }
    }

    /// Calls `name` with `values` as the host would; the outcome its runtime reported.
    private func call(_ runtime: OpaquePointer, _ name: String, _ values: [ActionValue]) throws -> ActionOutcome? {
        let index = try XCTUnwrap(index(of: name, in: runtime), name)
        let before = recorder?.timeline.count ?? 0
        _ = ActionABI.withValues(values) { deliver(runtime, index: index, Array($0)) }
        return recorder?.timeline.dropFirst(before).compactMap { entry -> ActionOutcome? in
            if case .action(let outcome) = entry { outcome } else { nil }
        }.first
    }

    private func raw(_ value: ActionValue) -> ahr_value { ActionABI.withValues([value]) { $0[0] } }

    /// Calls `body` with `values`, whose byte pointers (random ones) are made to point at real
    /// memory of their length.
    private func withBacking(_ values: [ahr_value], _ body: ([ahr_value]) -> Int32) -> Int32 {
        let storage = values.map { [UInt8](repeating: 0x41, count: $0.length) }
        var backed = values
        return storage.withUnsafeBufferPointers { pointers in
            for index in backed.indices where backed[index].bytes != nil {
                backed[index].bytes = UnsafeRawPointer(pointers[index])
            }
            return body(backed)
        }
    }
}

/// DescriptorValidator's action checks on a raw descriptor the runtime read.
enum DescriptorValidatorProbe {
    static func actions(of raw: ahr_raw_descriptor) throws -> [GuestAction] {
        try DescriptorValidator.actions(RawGuestEntry(raw).descriptor?.actions)
    }
}

/// A small deterministic generator (SplitMix64), so that a fuzz failure reproduces.
struct SeededRandom: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func next(upTo bound: Int) -> Int { Int(next() % UInt64(bound)) }
}

extension JSONValue {
    /// Values near every type's limits, and of every JSON kind.
    static func random(using random: inout SeededRandom) -> JSONValue {
        let edges: [Int64] = [
            0, 1, -1, 127, 128, 255, 256, -32768, -32769, 65535, 65536, .max, .min, 2_147_483_647, 2_147_483_648,
            -2_147_483_649,
        ]
        switch random.next(upTo: 9) {
        case 0: return .null
        case 1: return .bool(random.next(upTo: 2) == 1)
        case 2: return .integer(edges.randomElement(using: &random)!)
        case 3: return .integer(Int64(bitPattern: random.next()))
        case 4: return .unsigned(random.next() | 1 << 63)
        case 5: return .double([0.5, -0.0, 1e308, .nan, .infinity, 255.0, 3.0e19].randomElement(using: &random)!)
        case 6:
            let pieces = ["a", "\u{0}", "é", "🎈", "AAEC", "=", "/", " "]
            return .string((0..<random.next(upTo: 8)).map { _ in pieces.randomElement(using: &random)! }.joined())
        case 7: return .array([.integer(1)])
        default: return .object(["a": .bool(true)])
        }
    }
}

extension ahr_value {
    /// A value of any type code (known or not) with random bits in every member.
    static func random(using random: inout SeededRandom) -> ahr_value {
        var value = ahr_value()
        let codes: [UInt32] = [0, 98, 121, 110, 113, 105, 117, 120, 116, 100, 115, 97, 122]
        value.type = ahr_value_type(codes.randomElement(using: &random)!)
        value.boolean = random.next(upTo: 2) == 1
        value.integer =
            random.next(upTo: 2) == 1 ? Int64(bitPattern: random.next()) : Int64(random.next(upTo: 600)) - 300
        value.unsigned_integer = random.next(upTo: 2) == 1 ? random.next() : UInt64(random.next(upTo: 70_000))
        value.real = [0.5, .nan, .infinity, -1e300].randomElement(using: &random)!
        let length = random.next(upTo: 3) == 0 ? 0 : random.next(upTo: 70_000)
        value.bytes = length == 0 && random.next(upTo: 2) == 0 ? nil : UnsafeRawPointer(bitPattern: 0x1000)
        value.length = length
        return value
    }
}

extension Array {
    /// Calls `body` with a pointer to each element's buffer, all valid at once.
    func withUnsafeBufferPointers<Result>(_ body: ([UnsafeMutableRawPointer]) -> Result) -> Result
    where Element == [UInt8] {
        let copies = map { bytes -> UnsafeMutableRawPointer in
            let pointer = UnsafeMutableRawPointer.allocate(byteCount: Swift.max(bytes.count, 1), alignment: 1)
            bytes.withUnsafeBytes {
                if let base = $0.baseAddress { pointer.copyMemory(from: base, byteCount: $0.count) }
            }
            return pointer
        }
        defer { copies.forEach { $0.deallocate() } }
        return body(copies)
    }
}
