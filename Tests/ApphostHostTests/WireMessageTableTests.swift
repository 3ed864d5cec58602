import ApphostGuestRuntime
import ApphostMessages
import ApphostPolicy
import ApphostVocabulary
import ApphostWire
import Foundation
import XCTest

@testable import ApphostChannels

/// apphost_messages.h's table, as the C compiler reads it (`apphost_messages[]`), against the
/// Swift that WireMessageGenerator made of it: each side has every message, by the same number
/// and name, and each report and call maps to the Swift case the table names.
final class WireMessageTableTests: XCTestCase {
    private struct Entry: Equatable, CustomStringConvertible {
        var number: UInt8
        var name: String
        var swiftCase: String
        var description: String { "\(number) \(name) \(swiftCase)" }
    }

    /// Every entry of the C table, in its order.
    private var all: [apphost_message_info] {
        Array(UnsafeBufferPointer(start: apphost_message_table(), count: apphost_message_count))
    }

    private func cTable(_ kind: apphost_message_kind) -> [Entry] {
        all.filter { $0.kind == kind }.map {
            Entry(number: $0.number, name: String(cString: $0.name), swiftCase: String(cString: $0.swift_case))
        }
    }

    private func entries(_ table: [(number: UInt8, name: String, swiftCase: String)]) -> [Entry] {
        table.map { Entry(number: $0.number, name: $0.name, swiftCase: $0.swiftCase) }
    }

    /// The case of an enum value, as Swift names it ("sceneTitleChanged").
    private func caseName(_ value: Any) -> String {
        Mirror(reflecting: value).children.first?.label ?? String(describing: value)
    }

    func testSwiftHasEveryCallAndReportOfTheCTable() {
        XCTAssertEqual(entries(WireMessageTable.calls), cTable(APPHOST_MESSAGE_CALL))
        XCTAssertEqual(entries(WireMessageTable.reports), cTable(APPHOST_MESSAGE_REPORT))
        XCTAssertFalse(cTable(APPHOST_MESSAGE_REPORT).isEmpty)
    }

    func testNumbersAndNamesAreUniqueAndDirectionsFollowTheNumbers() {
        let frames = all.filter { $0.kind != APPHOST_MESSAGE_CALL }
        let calls = all.filter { $0.kind == APPHOST_MESSAGE_CALL }
        // A frame's type is one byte for frames and reports alike; calls number on their own.
        XCTAssertEqual(Set(frames.map(\.number)).count, frames.count)
        XCTAssertEqual(Set(calls.map(\.number)).count, calls.count)
        XCTAssertEqual(Set(frames.map { String(cString: $0.name) }).count, frames.count)
        XCTAssertEqual(Set(calls.map { String(cString: $0.name) }).count, calls.count)
        let cases = all.filter { $0.kind != APPHOST_MESSAGE_FRAME }.map { String(cString: $0.swift_case) }
        XCTAssertEqual(Set(cases).count, cases.count, "two messages map to one Swift case")
        // The decoder takes a type from HELLO on as the worker's.
        for message in frames {
            XCTAssertEqual(
                message.direction == APPHOST_MESSAGE_TO_HOST, message.number >= UInt8(APPHOST_WIRE_HELLO.rawValue),
                String(cString: message.name))
            XCTAssertEqual(String(cString: wire_type_name(message.number)), String(cString: message.name))
        }
        XCTAssertEqual(String(cString: wire_type_name(200)), "unknown")
    }

    /// Every report of the C table becomes the GuestEvent case the table names, in the host's
    /// mapping, and that case's `area` (the part of the policy HostCore hands it to) is the
    /// entry's AREA; a kind outside the table becomes none.
    func testEveryReportMapsToItsGuestEvent() throws {
        let areas = Dictionary(
            uniqueKeysWithValues: all.filter { $0.kind == APPHOST_MESSAGE_REPORT }.map {
                (String(cString: $0.name), String(cString: $0.area))
            })
        for entry in cTable(APPHOST_MESSAGE_REPORT) {
            var report = ahr_report()
            report.kind = ahr_report_kind(rawValue: UInt32(entry.number))
            // Values every converter takes: a known enum value, a configuration audio allows.
            switch entry.name {
            case "LOG": report.log.level = 2
            case "ACTION_RESULT": report.action_result.flag = true
            default: break
            }
            do {
                let event = try RuntimeReport.tableEvent(of: report)
                XCTAssertEqual(caseName(event), entry.swiftCase, entry.name)
                let area = try XCTUnwrap(areas[entry.name])
                XCTAssertFalse(area.isEmpty, entry.name)
                XCTAssertEqual("\(event.area)".lowercased(), area.lowercased().filter { $0 != "_" }, entry.name)
            } catch {
                XCTFail("\(entry.name): \(error)")
            }
        }
        var unknown = ahr_report()
        unknown.kind = ahr_report_kind(rawValue: 200)
        XCTAssertThrowsError(try RuntimeReport.tableEvent(of: unknown)) {
            XCTAssertEqual($0 as? WireFieldError, .unknownKind)
        }
    }

    /// Every call of the C table comes back as the GuestCall case the table names, in the tests'
    /// mapping the other way (whose GuestCall side the host's, a switch over every case, mirrors).
    func testEveryCallMapsToItsGuestCall() {
        for entry in cTable(APPHOST_MESSAGE_CALL) {
            var call = ahr_call()
            call.kind = ahr_call_kind(rawValue: UInt32(entry.number))
            // Each call's own members (its member of the union), with values its converters take.
            switch entry.name {
            case "SCENE_CALLBACK": call.scene_callback.scene_callback = AHR_SCENE_DID_BECOME_ACTIVE
            case "WILL_CONNECT": (call.will_connect.role, call.will_connect.initial_state) = (1, 1)
            case "AUDIO_INTERRUPTION_BEGAN": call.audio_interruption_began.interruption_reason = 1
            case "AUDIO_INTERRUPTION_ENDED": call.audio_interruption_ended.interruption_reason = 1
            case "AUDIO_ROUTE_CHANGED": call.audio_route_changed.route_change_reason = 1
            case "SCENE_REQUEST_REFUSED": call.scene_request_refused.request_refusal = 1
            case "AUDIO_RENDER_DEMOTED": call.audio_render_demoted.demotion_reason = 1
            default: break
            }
            do {
                let guestCall = try HostToWorkerMessage.tableCall(of: call)
                XCTAssertEqual(caseName(guestCall), entry.swiftCase, entry.name)
            } catch .notOnTheWire {
                // An action's declaration and a stream's descriptors are not rebuilt from the
                // members; their round trips are WorkerWireCodecTests'.
                XCTAssertTrue(["ACTION", "AUDIO_STREAM"].contains(entry.name), entry.name)
            } catch {
                XCTFail("\(entry.name): \(error)")
            }
        }
        var unknown = ahr_call()
        unknown.kind = ahr_call_kind(rawValue: 200)
        XCTAssertThrowsError(try HostToWorkerMessage.tableCall(of: unknown)) {
            XCTAssertEqual($0 as? WireFieldError, .unknownKind)
        }
    }

    /// Each call and report is a type of its own, made of the table's fields (ahr_call_<name>,
    /// ahr_report_<name>, members of the unions of ahr_call and ahr_report): its C members are
    /// exactly those its Swift mapping reads and writes, so that which fields a message uses is
    /// the table's to say, and a member that no mapping carries cannot hide in it.
    func testEachMessageIsATypeOfItsOwnWithTheMembersItsMappingUses() {
        let types = WireMessageTable.callTypes + WireMessageTable.reportTypes
        XCTAssertEqual(
            types.map(\.name), entries(WireMessageTable.calls + WireMessageTable.reports).map(\.name),
            "a type for every message")
        for type in types {
            let members = Mirror(reflecting: type.value).children.compactMap(\.label)
            XCTAssertEqual(members, type.members, type.name)
        }
        // The flat structs they replace had 46 and 23 members: a call now takes its header and its
        // largest message, no more.
        let largestCall = WireMessageTable.callTypes.map(\.size).max() ?? 0
        XCTAssertLessThanOrEqual(MemoryLayout<ahr_call>.size, 16 + largestCall)
        let largestReport = WireMessageTable.reportTypes.map(\.size).max() ?? 0
        XCTAssertLessThanOrEqual(MemoryLayout<ahr_report>.size, 8 + largestReport)
    }

    /// The events the channel makes itself, no report of the table, have their area beside them
    /// (`GuestEvent.channelArea`): the core's.
    func testTheChannelsOwnEventsGoToTheCore() {
        XCTAssertEqual(GuestEvent.identified(guestID: "com.example.a").area, .core)
        XCTAssertEqual(GuestEvent.died("killed by SIGSEGV").area, .core)
        // Every area the table lists takes a report.
        let taken = Set(all.filter { $0.kind == APPHOST_MESSAGE_REPORT }.map { String(cString: $0.area).lowercased() })
        XCTAssertEqual(taken, Set(GuestEventArea.allCases.map { "\($0)" }))
    }

    // MARK: The generator on bad input

    /// The generator the build plugin runs, built next to the test bundle.
    private func generator() throws -> String {
        let bundle = Bundle(for: WireMessageTableTests.self).bundleURL
        let candidates = [bundle.deletingLastPathComponent(), bundle]
        guard
            let directory = candidates.first(where: {
                FileManager.default.isExecutableFile(atPath: $0.appendingPathComponent("WireMessageGeneratorTool").path)
            })
        else {
            throw XCTSkip("no WireMessageGeneratorTool next to the test bundle")
        }
        return directory.appendingPathComponent("WireMessageGeneratorTool").path
    }

    /// Runs the generator on `table` (a file's text) and returns its exit status and its error output.
    private func generate(_ table: String?) throws -> (status: Int32, error: String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("table.h")
        if let table { try table.write(to: input, atomically: true, encoding: .utf8) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try generator())
        process.arguments = [input.path, "channels", directory.appendingPathComponent("out.swift").path]
        let error = Pipe()
        process.standardError = error
        try process.run()
        let text = String(decoding: error.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text)
    }

    func testTheGeneratorRefusesABadTableInOneLine() throws {
        let cases: [(String?, String)] = [
            (nil, "cannot open"),
            ("#define APPHOST_MESSAGES_REPORTS(X, F, A, S) \\\n", "no #define APPHOST_MESSAGES_CALLS"),
            (
                "#define APPHOST_MESSAGES_CALLS(X, F, A, S) X(1, TWO_FIELDS)\n"
                    + "#define APPHOST_MESSAGES_REPORTS(X, F, A, S) X(69, LOG, log, , )\n",
                "is not X(number, NAME, name, AREA, swiftCase, fields, arguments)"
            ),
            (
                "#define APPHOST_MESSAGES_CALLS(X, F, A, S) X(1, A, a, CALLBACKS, a, , A(_))\n"
                    + "#define APPHOST_MESSAGES_REPORTS(X, F, A, S)\n",
                "has no converter"
            ),
            ("/* never closed\n", "an unterminated comment"),
            (
                "#define APPHOST_MESSAGES_CALLS(X, F, A, S)\n"
                    + "#define APPHOST_MESSAGES_REPORTS(X, F, A, S) X(69, LOG, log, CORE, log, , )\n",
                "no #define APPHOST_MESSAGES_REPORT_AREAS(X)"
            ),
            // A report without an area, with an empty one, with one the table does not list.
            (
                "#define APPHOST_MESSAGES_CALLS(X, F, A, S)\n#define APPHOST_MESSAGES_REPORT_AREAS(X) X(CORE)\n"
                    + "#define APPHOST_MESSAGES_REPORTS(X, F, A, S) X(69, LOG, log, log, , )\n",
                "an entry of APPHOST_MESSAGES_REPORTS is not X(number, NAME, name, AREA, swiftCase, fields, arguments)"
            ),
            (
                "#define APPHOST_MESSAGES_CALLS(X, F, A, S)\n#define APPHOST_MESSAGES_REPORT_AREAS(X) X(CORE)\n"
                    + "#define APPHOST_MESSAGES_REPORTS(X, F, A, S) X(69, LOG, log, , log, , )\n",
                "LOG names the area \"\", not one of CORE"
            ),
            (
                "#define APPHOST_MESSAGES_CALLS(X, F, A, S)\n"
                    + "#define APPHOST_MESSAGES_REPORT_AREAS(X) X(CORE) X(SCENES)\n"
                    + "#define APPHOST_MESSAGES_REPORTS(X, F, A, S) X(69, LOG, log, CORE, log, , ) "
                    + "X(84, SCENE_TITLE_CHANGED, scene_title_changed, SOUND, sceneTitleChanged, , )\n",
                "SCENE_TITLE_CHANGED names the area \"SOUND\", not one of CORE SCENES"
            ),
        ]
        for (table, reason) in cases {
            let (status, error) = try generate(table)
            XCTAssertEqual(status, 1, reason)
            XCTAssertTrue(error.hasPrefix("wire-message-generator: "), error)
            XCTAssertTrue(error.contains(reason), error)
            XCTAssertEqual(error.split(separator: "\n").count, 1, error)
        }
    }
}
