import ApphostGuestRuntime
import ApphostModel
import ApphostPolicy
import ApphostVocabulary
import ApphostWire
import Foundation
import XCTest

@testable import ApphostChannels
@testable import ApphostLoading

/// The host's side of apphost_wire.h: frames, fields and messages, byte for byte.
final class WorkerWireCodecTests: XCTestCase {
    // MARK: Frames

    func testFrameIsLittleEndianLengthThenTypeThenPayload() {
        let frame = WorkerToHostMessage.hello(version: 1, pid: 0x0102_0304).frame
        XCTAssertEqual(frame.encoded, [9, 0, 0, 0, 64, 1, 0, 0, 0, 4, 3, 2, 1])
        XCTAssertEqual(HostToWorkerMessage.stop.encoded, [1, 0, 0, 0, 4])
    }

    func testDecoderReassemblesFramesFromAnyPieces() throws {
        let frames = [
            WorkerToHostMessage.report(.log(.info, "hello")).frame,
            WorkerToHostMessage.reply(sequence: 7, status: -3).frame,
            WorkerToHostMessage.stopped.frame,
        ]
        let stream = frames.flatMap(\.encoded)
        for pieceSize in [1, 2, 3, 5, 8, stream.count] {
            var decoder = WireFrameDecoder()
            var decoded: [WireFrame] = []
            for start in stride(from: 0, to: stream.count, by: pieceSize) {
                decoder.append(stream[start..<min(start + pieceSize, stream.count)])
                while let frame = try decoder.next() { decoded.append(frame) }
            }
            XCTAssertEqual(decoded, frames, "pieces of \(pieceSize)")
            XCTAssertEqual(decoder.bufferedCount, 0)
        }
    }

    // The maximum is enforced on read, as soon as the length arrives: a broken peer cannot make
    // the host wait for (and buffer) a frame it will refuse.
    func testOversizedLengthIsAProtocolErrorBeforeTheBodyArrives() {
        var decoder = WireFrameDecoder()
        decoder.append(le32(UInt32(APPHOST_WIRE_MAX_FRAME) + 1))
        XCTAssertThrowsError(try decoder.next()) { error in
            XCTAssertTrue("\(error)".contains("exceeds the maximum"), "\(error)")
        }
    }

    func testLargestFrameIsAccepted() throws {
        var decoder = WireFrameDecoder()
        let length = Int(APPHOST_WIRE_MAX_FRAME)
        decoder.append(le32(UInt32(length)) + [70] + [UInt8](repeating: 0, count: length - 2))
        XCTAssertNil(try decoder.next(), "one byte short")
        decoder.append([0])
        XCTAssertEqual(try decoder.next()?.payload.count, length - 1)
    }

    func testZeroLengthIsAProtocolError() {
        var decoder = WireFrameDecoder()
        decoder.append(le32(0))
        XCTAssertThrowsError(try decoder.next())
    }

    // MARK: Fields

    func testPayloadFieldsRoundTrip() throws {
        let text = Array("héllo".utf8)
        let empty: [UInt8] = [0]
        let bytes = text.withUnsafeBufferPointer { text in
            empty.withUnsafeBufferPointer { empty in
                withUnsafeTemporaryAllocation(of: frame_builder.self, capacity: 1) { builder in
                    let frame = builder.baseAddress!
                    frame_begin(frame, 70)
                    frame_put_u8(frame, 0xAB)
                    frame_put_bool(frame, true)
                    frame_put_u32(frame, 0xDEAD_BEEF)
                    frame_put_i32(frame, -2)
                    frame_put_u64(frame, 0x0102_0304_0506_0708)
                    frame_put_bytes(frame, text.baseAddress, text.count)
                    frame_put_optional_bytes(frame, nil, 0)
                    frame_put_optional_bytes(frame, empty.baseAddress, 0)
                    frame_finish(frame)
                    return [UInt8](unsafeUninitializedCapacity: frame_size(frame)) { buffer, count in
                        frame_copy(frame, buffer.baseAddress)
                        count = frame_size(frame)
                    }
                }
            }
        }
        let payload = Array(bytes[5...])
        XCTAssertEqual(Array(payload[6..<10]), [0xFE, 0xFF, 0xFF, 0xFF], "i32 -2, little-endian")
        XCTAssertEqual(Array(bytes[..<4]), le32(UInt32(bytes.count - 4)), "the length prefix counts type and payload")
        payload.withUnsafeBufferPointer { payload in
            var cursor = wire_cursor_make(payload.baseAddress, payload.count)
            XCTAssertEqual(wire_read_u8(&cursor), 0xAB)
            XCTAssertEqual(wire_read_bool(&cursor), true)
            XCTAssertEqual(wire_read_u32(&cursor), 0xDEAD_BEEF)
            XCTAssertEqual(Int32(bitPattern: wire_read_u32(&cursor)), -2)
            XCTAssertEqual(wire_read_u64(&cursor), 0x0102_0304_0506_0708)
            XCTAssertEqual(String(decoding: UnsafeBufferPointer(wire_read_bytes(&cursor)), as: UTF8.self), "héllo")
            var absent = wire_bytes()
            XCTAssertFalse(wire_read_optional_bytes(&cursor, &absent))
            var present = wire_bytes()
            XCTAssertTrue(wire_read_optional_bytes(&cursor, &present))
            XCTAssertEqual(present.length, 0)
            XCTAssertTrue(wire_cursor_finished(&cursor))
        }
    }

    func testMalformedPayloadsAreProtocolErrors() {
        func fails(_ bytes: [UInt8], _ read: (inout wire_cursor) -> Void) -> Bool {
            bytes.withUnsafeBufferPointer { payload in
                var cursor = wire_cursor_make(payload.baseAddress, payload.count)
                read(&cursor)
                return cursor.failed
            }
        }
        // A string whose length runs past the frame.
        XCTAssertTrue(fails(le32(10) + [1, 2]) { _ = wire_read_bytes(&$0) })
        // A bool that is neither 0 nor 1.
        XCTAssertTrue(fails([2]) { _ = wire_read_bool(&$0) })
        // Trailing bytes.
        XCTAssertThrowsError(try WorkerToHostMessage(WireFrame(type: 71, payload: [0])))
        // Unknown types, and a host frame type from the worker.
        XCTAssertThrowsError(try WorkerToHostMessage(WireFrame(type: 99, payload: [])))
        XCTAssertThrowsError(try WorkerToHostMessage(WireFrame(type: 4, payload: [])))
        // A log level outside the ABI's.
        XCTAssertThrowsError(try WorkerToHostMessage(WireFrame(type: 69, payload: [9] + le32(0))))
        // A REPLY, decoded apart from the other frames (wire_decode_reply), cut short or too long.
        let reply = UInt8(APPHOST_WIRE_REPLY.rawValue)
        let sequenceAndStatus: [UInt8] = [7, 0, 0, 0, 0, 0, 0, 0] + le32(UInt32(bitPattern: -2))
        XCTAssertEqual(
            try WorkerToHostMessage(WireFrame(type: reply, payload: sequenceAndStatus)), .reply(sequence: 7, status: -2)
        )
        XCTAssertThrowsError(
            try WorkerToHostMessage(WireFrame(type: reply, payload: Array(sequenceAndStatus.dropLast()))))
        XCTAssertThrowsError(try WorkerToHostMessage(WireFrame(type: reply, payload: sequenceAndStatus + [0]))) {
            XCTAssertEqual(($0 as? WireProtocolError)?.description, "1 unexpected bytes after the last field")
        }
    }

    // MARK: Messages

    func testHostMessagesRoundTrip() throws {
        let messages: [HostToWorkerMessage] = [
            .load(path: "/g/lib.so", guestsDirectory: "/data/guests", hostName: "apphost", hostVersion: "0.1.0"),
            .start(dataDirectory: "/data/guests/org.example.a"),
            .call(sequence: 1, GuestMessage(call: .didFinishLaunching, appState: .inactive)),
            .call(sequence: 2, GuestMessage(call: .willTerminate, appState: .background)),
            .call(sequence: 3, GuestMessage(call: .didReceiveMemoryWarning, appState: .background)),
            .call(
                sequence: 4,
                GuestMessage(
                    call: .sceneWillConnect(
                        SceneConnection(
                            scene: 9, sessionID: "s-1", role: .auxiliary, initialState: .background,
                            restorationData: Data([1, 2, 3]))), appState: .background, sceneState: .background)),
            .call(
                sequence: 5,
                GuestMessage(
                    call: .sceneWillConnect(
                        SceneConnection(
                            scene: 9, sessionID: "s-1", role: .primary, initialState: .foregroundInactive,
                            restorationData: nil)), appState: .inactive, sceneState: .unattached)),
            .stop,
        ]
        let callbacks = SceneCallback.allCases.enumerated().map { index, callback in
            HostToWorkerMessage.call(
                sequence: UInt64(10 + index),
                GuestMessage(call: .scene(3, callback), appState: .active, sceneState: .foregroundActive))
        }
        let background: [GuestCall] = [
            .expireTask(1), .expireTask(.max), .fireTimer(7), .runWork(3), .backgroundTime(nil),
            .backgroundTime(.zero), .backgroundTime(.seconds(30)), .backgroundTime(.nanoseconds(1_500_000_001)),
        ]
        let backgroundCalls = background.enumerated().map { index, call in
            HostToWorkerMessage.call(sequence: UInt64(20 + index), GuestMessage(call: call, appState: .background))
        }
        let scenes: [GuestCall] = [
            .sceneSize(3, SceneSize(width: 0, height: 0, sizeClass: .compact)),
            .sceneSize(.max, SceneSize(width: .max, height: 768, sizeClass: .regular)),
            .performAction(3, name: "tap", payload: Data(), activation: .seconds(5), token: 7),
            .performAction(3, name: "", payload: Data([0, 0xFF]), activation: .nanoseconds(1), token: 7),
            .shouldDismissModal(3, 1), .shouldDismissModal(0, .max), .didDismissModal(3, 2),
            .didDiscard(sessionID: "closed-1"), .didDiscard(sessionID: ""),
            .notificationLimit(count: 5, window: .seconds(60)), .notificationLimit(count: 1, window: .nanoseconds(7)),
            .saveStatus(3, failed: true), .saveStatus(.max, failed: false),
            .saveConfirmation(1, stored: true), .saveConfirmation(.max, stored: false),
        ]
        let scenesCalls = scenes.enumerated().map { index, call in
            HostToWorkerMessage.call(
                sequence: UInt64(40 + index), GuestMessage(call: call, appState: .active, sceneState: .foregroundActive)
            )
        }
        for message in messages + callbacks + backgroundCalls + scenesCalls {
            XCTAssertEqual(try HostToWorkerMessage(message.frame), message)
        }
    }

    // The scenes calls as apphost_wire.h lays them out.
    func testScenesCallLayoutsMatchTheHeader() {
        func payload(_ call: GuestCall) -> [UInt8] {
            let frame = HostToWorkerMessage.call(sequence: 2, GuestMessage(call: call, appState: .active)).frame
            XCTAssertEqual(frame.type, UInt8(APPHOST_WIRE_CALL.rawValue))
            return frame.payload
        }
        let head = le64(2) + [UInt8(AppState.active.rawValue), 0, 0]
        XCTAssertEqual(
            payload(.sceneSize(5, SceneSize(width: 1024, height: 768, sizeClass: .regular))),
            head + [UInt8(APPHOST_WIRE_CALL_SCENE_SIZE.rawValue)] + le64(5) + le32(1024) + le32(768) + [1])
        XCTAssertEqual(
            payload(.performAction(5, name: "go", payload: Data([9]), activation: .milliseconds(1500), token: 7)),
            head + [UInt8(APPHOST_WIRE_CALL_PERFORM_ACTION.rawValue)] + le64(5) + le32(2) + Array("go".utf8) + le32(1)
                + [9] + le64(1_500_000_000) + le64(7))
        XCTAssertEqual(
            payload(.shouldDismissModal(5, 6)),
            head + [UInt8(APPHOST_WIRE_CALL_SHOULD_DISMISS_MODAL.rawValue)] + le64(5) + le64(6))
        XCTAssertEqual(
            payload(.saveStatus(5, failed: true)),
            head + [UInt8(APPHOST_WIRE_CALL_SAVE_STATUS.rawValue)] + le64(5) + [1])
        XCTAssertEqual(
            payload(.saveConfirmation(5, stored: false)),
            head + [UInt8(APPHOST_WIRE_CALL_SAVE_CONFIRMATION.rawValue)] + le64(5) + [1])
        // CONTRACT S9: the host's refusal of scene request 5, with its reason (ABI 1.8, wire 11).
        XCTAssertEqual(
            payload(.sceneRequestRefused(5, reason: .noActivation)),
            head + [UInt8(APPHOST_WIRE_CALL_SCENE_REQUEST_REFUSED.rawValue)] + le64(5) + le32(1))
        XCTAssertEqual(
            payload(.didDismissModal(5, 6)),
            head + [UInt8(APPHOST_WIRE_CALL_DID_DISMISS_MODAL.rawValue)] + le64(5) + le64(6))
        XCTAssertEqual(
            payload(.didDiscard(sessionID: "s")),
            head + [UInt8(APPHOST_WIRE_CALL_DID_DISCARD.rawValue)] + le32(1) + Array("s".utf8))
    }

    // The background calls as apphost_wire.h lays them out: an id, or an opt u64 of nanoseconds.
    func testBackgroundCallLayoutsMatchTheHeader() {
        func payload(_ call: GuestCall) -> [UInt8] {
            let frame = HostToWorkerMessage.call(sequence: 2, GuestMessage(call: call, appState: .background)).frame
            XCTAssertEqual(frame.type, UInt8(APPHOST_WIRE_CALL.rawValue))
            return frame.payload
        }
        let head = le64(2) + [UInt8(AppState.background.rawValue), 0, 0]
        XCTAssertEqual(payload(.expireTask(5)), head + [UInt8(APPHOST_WIRE_CALL_EXPIRE_TASK.rawValue)] + le64(5))
        XCTAssertEqual(payload(.fireTimer(6)), head + [UInt8(APPHOST_WIRE_CALL_FIRE_TIMER.rawValue)] + le64(6))
        XCTAssertEqual(payload(.runWork(7)), head + [UInt8(APPHOST_WIRE_CALL_RUN_WORK.rawValue)] + le64(7))
        let time = UInt8(APPHOST_WIRE_CALL_BACKGROUND_TIME.rawValue)
        XCTAssertEqual(payload(.backgroundTime(nil)), head + [time, 0])
        XCTAssertEqual(payload(.backgroundTime(.zero)), head + [time, 1] + le64(0))
        XCTAssertEqual(payload(.backgroundTime(.milliseconds(1500))), head + [time, 1] + le64(1_500_000_000))
    }

    // Durations travel as u64 nanoseconds: below a nanosecond is dropped, negative is 0, and more
    // than a u64 holds is its maximum.
    func testDurationsAsNanoseconds() {
        XCTAssertEqual(WireDuration.nanoseconds(.seconds(30)), 30_000_000_000)
        XCTAssertEqual(
            WireDuration.nanoseconds(.nanoseconds(7) + Duration(secondsComponent: 0, attosecondsComponent: 999)), 7)
        XCTAssertEqual(WireDuration.nanoseconds(.seconds(-1)), 0)
        XCTAssertEqual(WireDuration.nanoseconds(.seconds(Int64.max)), .max)
        XCTAssertEqual(WireDuration.duration(30_000_000_001), .seconds(30) + .nanoseconds(1))
        XCTAssertEqual(WireDuration.nanoseconds(WireDuration.duration(.max)), .max)
    }

    func testCallLayoutMatchesTheHeader() {
        let frame = HostToWorkerMessage.call(
            sequence: 2,
            GuestMessage(call: .scene(5, .didBecomeActive), appState: .active, sceneState: .foregroundActive)
        ).frame
        XCTAssertEqual(frame.type, UInt8(APPHOST_WIRE_CALL.rawValue))
        XCTAssertEqual(
            frame.payload,
            le64(2) + [UInt8(AppState.active.rawValue), 1, UInt8(SceneState.foregroundActive.rawValue)]
                + [UInt8(APPHOST_WIRE_CALL_SCENE_CALLBACK.rawValue)] + le64(5)
                + [UInt8(APPHOST_WIRE_SCENE_DID_BECOME_ACTIVE.rawValue)])
    }

    func testWorkerMessagesRoundTrip() throws {
        let entry = RawGuestEntry(
            abiVersion: ABIVersion(major: 1, minor: 0, revision: 2),
            descriptor: RawGuestDescriptor(
                structSize: 56, id: Array("org.example.a".utf8), name: [0xFF], version: Array("1".utf8), vendor: nil,
                description: [], capabilities: 2), hasInit: true, hasDeinit: false, hasQuery: true)
        let messages: [WorkerToHostMessage] = [
            .hello(version: 1, pid: 42), .loaded(entry),
            .loaded(
                RawGuestEntry(abiVersion: .current, descriptor: nil, hasInit: false, hasDeinit: true, hasQuery: false)),
            .loadFailed(.dlopen, detail: "libx.so: cannot open shared object file"), .loadFailed(.noEntry, detail: ""),
            .started(.ok, initStatus: 0), .started(.initFailed, initStatus: 7),
            .started(.noAppCallbacks, initStatus: 0),
            .reply(sequence: .max, status: Int32.min), .stopped,
        ]
        let reports: [GuestEvent] = [
            .log(.error, "x"), .saveSceneState(3, Data()), .saveSceneState(3, Data([0, 1])),
            .saveSceneState(3, Data([2]), confirmation: 1), .saveSceneState(.max, Data(), confirmation: .max),
            .taskBegan(1, name: "upload"), .taskBegan(.max, name: ""),
            .taskEnded(1), .timerScheduled(2, delay: .milliseconds(5), interval: nil),
            .timerScheduled(3, delay: .zero, interval: .seconds(1)), .timerCancelled(2), .workSubmitted(9),
            .sceneRequested(
                activation: 7, from: 1, role: .auxiliary, style: .prominent, state: Data([1, 2]), request: 1),
            .sceneRequested(
                activation: 7, from: .max, role: .primary, style: .automatic, state: Data(), request: .max),
            .sessionActivationRequested(sessionID: "s-1", style: .standard), .loadingProgress(1, .none),
            .loadingProgress(1, .indeterminate), .loadingProgress(1, .fraction(0)), .loadingProgress(1, .fraction(1)),
            .loadingProgress(2, .fraction(0.42)), .modalPresented(1, 1, style: .sheet, title: "Sheet"),
            .modalPresented(1, .max, style: .fullScreen, title: ""), .modalDismissed(1, 2),
            .notificationPosted(title: "Hi", body: ""), .notificationPosted(title: "T", body: "B"),
            .sessionCloseRequested(sessionID: "s-2"), .sceneTitleChanged(4, title: "Inbox"),
            .sceneTitleChanged(.max, title: ""),
        ]
        for message in messages + reports.map(WorkerToHostMessage.report) {
            XCTAssertEqual(try WorkerToHostMessage(message.frame), message)
        }
    }

    // The largest LOADED, a table of APPHOST_ACTIONS_MAX actions each with its longest strings,
    // fits one frame builder (its parts and fixed fields) and decodes as it was.
    func testLoadedCarriesAFullActionsTable() throws {
        let count = Int(APPHOST_ACTIONS_MAX)
        let strings: [[UnsafeMutablePointer<CChar>]] = (0..<count).map { index in
            let name = "action-\(index)" + String(repeating: "n", count: Int(APPHOST_ACTION_NAME_MAX_BYTES) - 10)
            let arguments = String(repeating: "ay", count: Int(APPHOST_ACTION_ARGUMENTS_MAX))
            let description = String(repeating: "d", count: Int(APPHOST_ACTION_DESCRIPTION_MAX_BYTES))
            return [name, arguments, "s", description].map { (string: String) in strdup(string)! }
        }
        let names: [String] = ["org.example.a", "A", "1", "vendor", "description", APPHOST_ACTIONS_ID]
        let texts = names.map { (string: String) in strdup(string)! }
        defer { for text in strings.joined() + texts { free(text) } }
        func text(_ pointer: UnsafeMutablePointer<CChar>) -> ahr_text {
            ahr_text(bytes: pointer, length: strlen(pointer))
        }
        var message = wire_message()
        message.type = UInt8(APPHOST_WIRE_LOADED.rawValue)
        message.body.loaded.has_descriptor = true
        message.body.loaded.id = text(texts[0])
        message.body.loaded.name = text(texts[1])
        message.body.loaded.version = text(texts[2])
        message.body.loaded.vendor = text(texts[3])
        message.body.loaded.description = text(texts[4])
        message.body.loaded.has_actions = true
        message.body.loaded.actions_id = text(texts[5])
        message.body.loaded.action_count = UInt32(count)
        message.body.loaded.actions_read = UInt32(count)
        withUnsafeMutableBytes(of: &message.body.loaded.actions) { buffer in
            let actions = buffer.bindMemory(to: ahr_raw_action.self)
            for index in 0..<count {
                let texts = strings[index]
                actions[index] = ahr_raw_action(
                    name: text(texts[0]), arguments: text(texts[1]), result: text(texts[2]),
                    description: text(texts[3]), flags: UInt64(index), has_function: true, function: nil)
            }
        }
        let frame = withUnsafeTemporaryAllocation(of: frame_builder.self, capacity: 1) { builder in
            let frame = builder.baseAddress!
            wire_encode(&message, frame)
            return [UInt8](unsafeUninitializedCapacity: frame_size(frame)) { buffer, count in
                frame_copy(frame, buffer.baseAddress)
                count = frame_size(frame)
            }
        }
        var decoded = wire_message()
        var problem = wire_problem()
        let payload = Array(frame[5...])
        // The decoded texts point into the payload.
        payload.withUnsafeBufferPointer { payload in
            XCTAssertTrue(
                wire_decode(WIRE_TO_HOST, frame[4], payload.baseAddress, payload.count, nil, &decoded, &problem))
            let loaded = decoded.body.loaded
            XCTAssertEqual(loaded.actions_read, UInt32(APPHOST_ACTIONS_MAX))
            var actions = loaded.actions
            withUnsafeBytes(of: &actions) { buffer in
                for (index, action) in buffer.bindMemory(to: ahr_raw_action.self).enumerated() {
                    let read = [action.name, action.arguments, action.result, action.description].map {
                        String(decoding: UnsafeRawBufferPointer(start: $0.bytes, count: $0.length), as: UTF8.self)
                    }
                    XCTAssertEqual(read, strings[index].map { String(cString: $0) }, "action \(index)")
                    XCTAssertEqual(action.flags, UInt64(index))
                }
            }
        }
    }

    // The background frames as apphost_wire.h lays them out, and as the channel reports them.
    func testBackgroundFrameLayoutsMatchTheHeader() throws {
        func frame(_ type: apphost_wire_type, _ payload: [UInt8]) throws -> WorkerToHostMessage {
            try WorkerToHostMessage(WireFrame(type: UInt8(type.rawValue), payload: payload))
        }
        let began = try frame(APPHOST_WIRE_TASK_BEGAN, le64(4) + le32(2) + Array("up".utf8))
        XCTAssertEqual(began, .report(.taskBegan(4, name: "up")))
        XCTAssertEqual(began.event, .taskBegan(4, name: "up"))
        let repaired = try frame(APPHOST_WIRE_TASK_BEGAN, le64(4) + le32(2) + [0x61, 0xFF])
        XCTAssertEqual(repaired.event, .taskBegan(4, name: "a\u{FFFD}"), "invalid UTF-8 is repaired")
        XCTAssertEqual(try frame(APPHOST_WIRE_TASK_ENDED, le64(4)).event, .taskEnded(4))
        XCTAssertEqual(
            try frame(APPHOST_WIRE_TIMER_SCHEDULED, le64(5) + le64(2_000_000) + le64(0)).event,
            .timerScheduled(5, delay: .milliseconds(2), interval: nil), "an interval of 0 fires once")
        XCTAssertEqual(
            try frame(APPHOST_WIRE_TIMER_SCHEDULED, le64(5) + le64(0) + le64(1_000_000_000)).event,
            .timerScheduled(5, delay: .zero, interval: .seconds(1)))
        XCTAssertEqual(try frame(APPHOST_WIRE_TIMER_CANCELLED, le64(5)).event, .timerCancelled(5))
        XCTAssertEqual(try frame(APPHOST_WIRE_WORK_SUBMITTED, le64(6)).event, .workSubmitted(6))
        XCTAssertNil(WorkerToHostMessage.stopped.event)
        XCTAssertNil(WorkerToHostMessage.reply(sequence: 1, status: 0).event)
    }

    // CONTRACT X5 (ABI 1.7, wire 10): SAVE_STATE ends with the id of the save's confirmation, 0
    // for none, as apphost_wire.h lays it out; SAVE_CONFIRMATION of id 0 is a protocol error.
    func testSaveFramesMatchTheHeader() throws {
        func frame(_ payload: [UInt8]) throws -> GuestEvent? {
            try WorkerToHostMessage(WireFrame(type: UInt8(APPHOST_WIRE_SAVE_STATE.rawValue), payload: payload)).event
        }
        XCTAssertEqual(try frame(le64(3) + le32(2) + [0, 1] + le64(0)), .saveSceneState(3, Data([0, 1])))
        XCTAssertEqual(
            try frame(le64(3) + le32(1) + [9] + le64(7)), .saveSceneState(3, Data([9]), confirmation: 7))
        XCTAssertEqual(
            WorkerToHostMessage.report(.saveSceneState(3, Data([9]), confirmation: 7)).frame.payload,
            le64(3) + le32(1) + [9] + le64(7))
        XCTAssertThrowsError(try frame(le64(3) + le32(1) + [9]), "wire 9's frame, without the confirmation")
        let head = le64(1) + [UInt8(AppState.active.rawValue), 0, 0]
        let body = [UInt8(APPHOST_WIRE_CALL_SAVE_CONFIRMATION.rawValue)] + le64(0) + [0]
        XCTAssertThrowsError(
            try HostToWorkerMessage(WireFrame(type: UInt8(APPHOST_WIRE_CALL.rawValue), payload: head + body)))
    }

    // An id of 0 (never valid), a frame cut short or with bytes left over is a protocol error.
    func testMalformedBackgroundFramesAreProtocolErrors() {
        let cases: [(apphost_wire_type, [UInt8])] = [
            (APPHOST_WIRE_TASK_BEGAN, le64(0) + le32(0)), (APPHOST_WIRE_TASK_ENDED, le64(0)),
            (APPHOST_WIRE_TIMER_SCHEDULED, le64(0) + le64(1) + le64(0)), (APPHOST_WIRE_TIMER_CANCELLED, le64(0)),
            (APPHOST_WIRE_WORK_SUBMITTED, le64(0)), (APPHOST_WIRE_TASK_BEGAN, le64(1)),
            (APPHOST_WIRE_TIMER_SCHEDULED, le64(1) + le64(1)), (APPHOST_WIRE_TASK_ENDED, le64(1) + [0]),
        ]
        for (type, payload) in cases {
            XCTAssertThrowsError(try WorkerToHostMessage(WireFrame(type: UInt8(type.rawValue), payload: payload))) {
                _ in
            }
        }
        XCTAssertThrowsError(
            try HostToWorkerMessage(
                WireFrame(
                    type: UInt8(APPHOST_WIRE_CALL.rawValue),
                    payload: le64(1) + [3, 0, 0, UInt8(APPHOST_WIRE_CALL_BACKGROUND_TIME.rawValue), 2] + le64(1))))
    }

    // A name or payload past the runtime's limits travels cut to one byte past them: the runtime
    // answers as it would to the whole (a cut name, TOO_LARGE), and the frame stays within
    // APPHOST_WIRE_MAX_FRAME whatever the host was asked to send.
    func testOversizedActionsAreCutToOneBytePastTheLimits() throws {
        let payload = Data(count: Int(APPHOST_WIRE_MAX_FRAME) * 2)
        let name = String(repeating: "é", count: 1000)
        let frame = HostToWorkerMessage.call(
            sequence: 1,
            GuestMessage(
                call: .performAction(1, name: name, payload: payload, activation: .seconds(5), token: 7),
                appState: .active)
        ).frame
        XCTAssertLessThanOrEqual(frame.encoded.count, Int(APPHOST_WIRE_MAX_FRAME))
        guard case .call(_, let message) = try HostToWorkerMessage(frame),
            case .performAction(_, let sent, let data, _, _) = message.call
        else { return XCTFail("not a PERFORM_ACTION") }
        XCTAssertEqual(data.count, Int(APPHOST_ACTION_PAYLOAD_MAX_BYTES) + 1)
        XCTAssertEqual(sent, String(repeating: "é", count: 128) + "\u{FFFD}", "257 bytes, half an é repaired")
    }

    // The scenes frames as apphost_wire.h lays them out, and as the channel reports them: CONTRACT
    // S9 (a scene requested), N2 (progress, its f64 as the u64 of its bits), N3 (modals), N1.
    func testScenesFrameLayoutsMatchTheHeader() throws {
        func frame(_ type: apphost_wire_type, _ payload: [UInt8]) throws -> WorkerToHostMessage {
            try WorkerToHostMessage(WireFrame(type: UInt8(type.rawValue), payload: payload))
        }
        XCTAssertEqual(
            try frame(APPHOST_WIRE_SCENE_REQUESTED, le64(7) + le64(3) + [1, 2] + le32(2) + [7, 8] + le64(4)).event,
            .sceneRequested(
                activation: 7, from: 3, role: .auxiliary, style: .prominent, state: Data([7, 8]), request: 4))
        XCTAssertEqual(
            try frame(APPHOST_WIRE_SESSION_ACTIVATION_REQUESTED, le32(3) + Array("s-1".utf8) + [1]).event,
            .sessionActivationRequested(sessionID: "s-1", style: .standard))
        XCTAssertEqual(
            try frame(APPHOST_WIRE_LOADING_PROGRESS, le64(3) + le64((0.25).bitPattern)).event,
            .loadingProgress(3, .fraction(0.25)))
        XCTAssertEqual(
            try frame(APPHOST_WIRE_LOADING_PROGRESS, le64(3) + le64((-2.0).bitPattern)).event,
            .loadingProgress(3, .none))
        XCTAssertEqual(
            try frame(APPHOST_WIRE_LOADING_PROGRESS, le64(3) + le64((-1.0).bitPattern)).event,
            .loadingProgress(3, .indeterminate))
        XCTAssertEqual(
            try frame(APPHOST_WIRE_MODAL_PRESENTED, le64(3) + le64(4) + [1] + le32(2) + [0x61, 0xFF]).event,
            .modalPresented(3, 4, style: .fullScreen, title: "a\u{FFFD}"), "invalid UTF-8 is repaired")
        XCTAssertEqual(try frame(APPHOST_WIRE_MODAL_DISMISSED, le64(3) + le64(4)).event, .modalDismissed(3, 4))
        XCTAssertEqual(
            try frame(APPHOST_WIRE_NOTIFICATION_POSTED, le32(2) + Array("Hi".utf8) + le32(0)).event,
            .notificationPosted(title: "Hi", body: ""))
        XCTAssertEqual(
            try frame(APPHOST_WIRE_SCENE_TITLE_CHANGED, le64(3) + le32(2) + [0x61, 0xFF]).event,
            .sceneTitleChanged(3, title: "a\u{FFFD}"), "invalid UTF-8 is repaired")
        XCTAssertEqual(
            WorkerToHostMessage.report(.loadingProgress(3, .fraction(0.5))).frame.payload,
            le64(3) + le64((0.5).bitPattern))
    }

    // A value outside the ABI's enums or ranges, a modal id of 0, a state past the ABI's limit, a
    // frame cut short or with bytes left over: a protocol error, as for the older frames.
    func testMalformedScenesFramesAreProtocolErrors() {
        let tooLarge = [UInt8](repeating: 0, count: Int(APPHOST_SCENE_STATE_MAX_BYTES) + 1)
        let cases: [(String, apphost_wire_type, [UInt8])] = [
            ("role 2", APPHOST_WIRE_SCENE_REQUESTED, le64(1) + [2, 0] + le32(0)),
            ("style 3", APPHOST_WIRE_SCENE_REQUESTED, le64(1) + [0, 3] + le32(0)),
            (
                "a state too large", APPHOST_WIRE_SCENE_REQUESTED,
                le64(1) + [0, 0] + le32(UInt32(tooLarge.count)) + tooLarge
            ),
            ("cut short", APPHOST_WIRE_SCENE_REQUESTED, le64(1) + [0, 0]),
            ("style 3", APPHOST_WIRE_SESSION_ACTIVATION_REQUESTED, le32(1) + [0x73, 3]),
            ("NaN", APPHOST_WIRE_LOADING_PROGRESS, le64(1) + le64(Double.nan.bitPattern)),
            ("1.5", APPHOST_WIRE_LOADING_PROGRESS, le64(1) + le64((1.5).bitPattern)),
            ("-0.5", APPHOST_WIRE_LOADING_PROGRESS, le64(1) + le64((-0.5).bitPattern)),
            ("-3", APPHOST_WIRE_LOADING_PROGRESS, le64(1) + le64((-3.0).bitPattern)),
            ("a byte left over", APPHOST_WIRE_LOADING_PROGRESS, le64(1) + le64(0) + [0]),
            ("modal 0", APPHOST_WIRE_MODAL_PRESENTED, le64(1) + le64(0) + [0] + le32(1) + [0x74]),
            ("modal style 2", APPHOST_WIRE_MODAL_PRESENTED, le64(1) + le64(1) + [2] + le32(1) + [0x74]),
            ("modal 0", APPHOST_WIRE_MODAL_DISMISSED, le64(1) + le64(0)),
            ("cut short", APPHOST_WIRE_MODAL_DISMISSED, le64(1)),
            ("no body", APPHOST_WIRE_NOTIFICATION_POSTED, le32(1) + [0x74]),
            ("no title", APPHOST_WIRE_SCENE_TITLE_CHANGED, le64(1)),
        ]
        for (what, type, payload) in cases {
            XCTAssertThrowsError(
                try WorkerToHostMessage(WireFrame(type: UInt8(type.rawValue), payload: payload)), "\(type): \(what)")
        }
        let head = le64(1) + [UInt8(AppState.active.rawValue), 0, 0]
        let calls: [(String, [UInt8])] = [
            ("size class 2", [UInt8(APPHOST_WIRE_CALL_SCENE_SIZE.rawValue)] + le64(1) + le32(1) + le32(1) + [2]),
            ("no activation", [UInt8(APPHOST_WIRE_CALL_PERFORM_ACTION.rawValue)] + le64(1) + le32(0) + le32(0)),
            ("no modal", [UInt8(APPHOST_WIRE_CALL_SHOULD_DISMISS_MODAL.rawValue)] + le64(1)),
            ("a call of 15", [15]),
        ]
        for (what, body) in calls {
            XCTAssertThrowsError(
                try HostToWorkerMessage(WireFrame(type: UInt8(APPHOST_WIRE_CALL.rawValue), payload: head + body)), what)
        }
    }

    // The audio messages (ABI 1.4, wire version 6) cross the wire as they were sent, both ways.
    func testAudioMessagesRoundTrip() throws {
        let headphones = AudioRoute(output: .headphones, input: .headsetMic)
        let calls: [GuestCall] =
            [
                .audioSetup(.standard, AudioRoute(output: .speaker, input: .none)),
                .audioSetup(AudioFormat(sampleRate: 44_100, periodFrames: 1, channelCount: 8), .none),
                .audioActivationFinished(1, refusal: nil), .audioActivationFinished(.max, refusal: .callInProgress),
                .audioActivationFinished(2, refusal: .nonMixingInBackground),
                .audioActivationFinished(3, refusal: .notRunning),
            ]
            + AudioInterruptionReason.allCases.flatMap { reason in
                [
                    GuestCall.audioInterruptionBegan(reason), .audioInterruptionEnded(reason, shouldResume: true),
                    .audioInterruptionEnded(reason, shouldResume: false),
                ]
            }
            + AudioRouteChangeReason.allCases.map { .audioRouteChanged($0, previous: .none, current: headphones) }
            + [
                .audioRouteChanged(
                    .override, previous: AudioRoute(output: .lineOut, input: .lineIn),
                    current: AudioRoute(output: .bluetooth, input: .bluetooth)),
                .secondaryAudioHint(silence: true), .secondaryAudioHint(silence: false), .mediaServicesReset,
            ]
        for (index, call) in calls.enumerated() {
            let message = HostToWorkerMessage.call(
                sequence: UInt64(index + 1), GuestMessage(call: call, appState: .background))
            XCTAssertEqual(try HostToWorkerMessage(message.frame), message)
        }
        let reports: [GuestEvent] = [
            .audioConfigured(.initial),
            .audioConfigured(try AudioConfiguration(category: .playAndRecord, mode: .voiceChat, options: .all)),
            .audioConfigured(try AudioConfiguration(category: .playback, mode: .spokenAudio, options: .duckOthers)),
            .audioActivationRequested(1), .audioActivationRequested(.max), .audioDeactivated(notifyOthers: true),
            .audioDeactivated(notifyOthers: false), .audioRendering(true), .audioRendering(false), .audioGainChanged(0),
            .audioGainChanged(0.25), .audioGainChanged(1), .audioOutputOverridden(.speaker),
            .audioOutputOverridden(.none), .audioThread(id: 4242, realtime: true), .audioThread(id: 1, realtime: false),
        ]
        for event in reports {
            let message = WorkerToHostMessage.report(event)
            XCTAssertEqual(try WorkerToHostMessage(message.frame), message)
        }
    }

    // The audio frames as apphost_wire.h lays them out.
    func testAudioLayoutsMatchTheHeader() throws {
        func payload(_ call: GuestCall) -> [UInt8] {
            HostToWorkerMessage.call(sequence: 2, GuestMessage(call: call, appState: .active)).frame.payload
        }
        let head = le64(2) + [UInt8(AppState.active.rawValue), 0, 0]
        XCTAssertEqual(
            payload(.audioSetup(.standard, AudioRoute(output: .speaker, input: .builtInMic))),
            head + [UInt8(APPHOST_WIRE_CALL_AUDIO_SETUP.rawValue)] + le32(48_000) + le32(480) + le32(2) + [1, 1])
        XCTAssertEqual(
            payload(.audioActivationFinished(7, refusal: .nonMixingInBackground)),
            head + [UInt8(APPHOST_WIRE_CALL_AUDIO_ACTIVATION_FINISHED.rawValue)] + le64(7) + [2])
        XCTAssertEqual(
            payload(.audioInterruptionEnded(.call, shouldResume: true)),
            head + [UInt8(APPHOST_WIRE_CALL_AUDIO_INTERRUPTION_ENDED.rawValue), 2, 1])
        XCTAssertEqual(
            payload(
                .audioRouteChanged(
                    .oldDeviceUnavailable, previous: AudioRoute(output: .headphones, input: .headsetMic),
                    current: AudioRoute(output: .speaker, input: .none))),
            head + [UInt8(APPHOST_WIRE_CALL_AUDIO_ROUTE_CHANGED.rawValue), 2, 2, 2, 1, 0])
        func frame(_ type: apphost_wire_type, _ payload: [UInt8]) throws -> GuestEvent? {
            try WorkerToHostMessage(WireFrame(type: UInt8(type.rawValue), payload: payload)).event
        }
        XCTAssertEqual(
            try frame(APPHOST_WIRE_AUDIO_CONFIGURED, [2, 1] + le32(3)),
            .audioConfigured(try AudioConfiguration(category: .playback, mode: .spokenAudio, options: .duckOthers)))
        XCTAssertEqual(try frame(APPHOST_WIRE_AUDIO_GAIN, le64((0.5).bitPattern)), .audioGainChanged(0.5))
        XCTAssertEqual(try frame(APPHOST_WIRE_AUDIO_DEACTIVATED, [1]), .audioDeactivated(notifyOthers: true))
    }

    // CONTRACT C3, X1: values outside audio.h's enums and ranges are protocol errors, and so is a
    // combination the C table refuses, which the runtime never lets through.
    func testMalformedAudioFramesAreProtocolErrors() {
        let cases: [(String, apphost_wire_type, [UInt8])] = [
            ("category 5", APPHOST_WIRE_AUDIO_CONFIGURED, [5, 0] + le32(0)),
            ("mode 5", APPHOST_WIRE_AUDIO_CONFIGURED, [2, 5] + le32(0)),
            ("option 16", APPHOST_WIRE_AUDIO_CONFIGURED, [2, 0] + le32(16)),
            ("request 0", APPHOST_WIRE_AUDIO_ACTIVATION_REQUESTED, le64(0)),
            ("flag 2", APPHOST_WIRE_AUDIO_RENDERING, [2]),
            ("gain 1.5", APPHOST_WIRE_AUDIO_GAIN, le64((1.5).bitPattern)),
            ("gain NaN", APPHOST_WIRE_AUDIO_GAIN, le64(Double.nan.bitPattern)),
            ("override 2", APPHOST_WIRE_AUDIO_OUTPUT_OVERRIDDEN, [2]),
            ("thread 0", APPHOST_WIRE_AUDIO_THREAD, le64(0) + [1]),
            ("thread past INT32_MAX", APPHOST_WIRE_AUDIO_THREAD, le64(UInt64(Int32.max) + 1) + [1]),
            ("realtime 2", APPHOST_WIRE_AUDIO_THREAD, le64(7) + [2]),
        ]
        for (what, type, payload) in cases {
            XCTAssertThrowsError(
                try WorkerToHostMessage(WireFrame(type: UInt8(type.rawValue), payload: payload)), "\(type): \(what)")
        }
        XCTAssertThrowsError(
            try WorkerToHostMessage(
                WireFrame(type: UInt8(APPHOST_WIRE_AUDIO_CONFIGURED.rawValue), payload: [0, 0] + le32(1))),
            "C3: ambient with mixWithOthers is no configuration")
        let head = le64(1) + [UInt8(AppState.active.rawValue), 0, 0]
        let calls: [(String, [UInt8])] = [
            ("rate 0", [UInt8(APPHOST_WIRE_CALL_AUDIO_SETUP.rawValue)] + le32(0) + le32(1) + le32(1) + [0, 0]),
            ("output 5", [UInt8(APPHOST_WIRE_CALL_AUDIO_SETUP.rawValue)] + le32(1) + le32(1) + le32(1) + [5, 0]),
            ("request 0", [UInt8(APPHOST_WIRE_CALL_AUDIO_ACTIVATION_FINISHED.rawValue)] + le64(0) + [0]),
            ("result 4", [UInt8(APPHOST_WIRE_CALL_AUDIO_ACTIVATION_FINISHED.rawValue)] + le64(1) + [4]),
            ("reason 0", [UInt8(APPHOST_WIRE_CALL_AUDIO_INTERRUPTION_BEGAN.rawValue), 0]),
            ("reason 6", [UInt8(APPHOST_WIRE_CALL_AUDIO_INTERRUPTION_ENDED.rawValue), 6, 0]),
            ("route reason 5", [UInt8(APPHOST_WIRE_CALL_AUDIO_ROUTE_CHANGED.rawValue), 5, 0, 0, 0, 0]),
            ("a call of 24", [24]),
            ("a call of 26", [26]),
        ]
        for (what, body) in calls {
            XCTAssertThrowsError(
                try HostToWorkerMessage(WireFrame(type: UInt8(APPHOST_WIRE_CALL.rawValue), payload: head + body)), what)
        }
    }

    func testEnumCodesAreTheHeaders() {
        XCTAssertEqual(UInt32(WorkerToHostMessage.LoadFailure.dlopen.rawValue), APPHOST_WIRE_LOAD_DLOPEN.rawValue)
        XCTAssertEqual(UInt32(WorkerToHostMessage.LoadFailure.noEntry.rawValue), APPHOST_WIRE_LOAD_NO_ENTRY.rawValue)
        XCTAssertEqual(UInt32(WorkerToHostMessage.StartOutcome.ok.rawValue), APPHOST_WIRE_STARTED_OK.rawValue)
        XCTAssertEqual(
            UInt32(WorkerToHostMessage.StartOutcome.initFailed.rawValue), APPHOST_WIRE_STARTED_INIT_FAILED.rawValue)
        XCTAssertEqual(
            UInt32(WorkerToHostMessage.StartOutcome.noAppCallbacks.rawValue),
            APPHOST_WIRE_STARTED_NO_APP_CALLBACKS.rawValue)
        // The runtime's call kinds are the wire's, so that the worker passes them on as they are.
        XCTAssertEqual(AHR_CALL_EXPIRE_TASK.rawValue, APPHOST_WIRE_CALL_EXPIRE_TASK.rawValue)
        XCTAssertEqual(AHR_CALL_FIRE_TIMER.rawValue, APPHOST_WIRE_CALL_FIRE_TIMER.rawValue)
        XCTAssertEqual(AHR_CALL_RUN_WORK.rawValue, APPHOST_WIRE_CALL_RUN_WORK.rawValue)
        XCTAssertEqual(AHR_CALL_BACKGROUND_TIME.rawValue, APPHOST_WIRE_CALL_BACKGROUND_TIME.rawValue)
        XCTAssertEqual(AHR_CALL_SCENE_SIZE.rawValue, APPHOST_WIRE_CALL_SCENE_SIZE.rawValue)
        XCTAssertEqual(AHR_CALL_PERFORM_ACTION.rawValue, APPHOST_WIRE_CALL_PERFORM_ACTION.rawValue)
        XCTAssertEqual(AHR_CALL_SHOULD_DISMISS_MODAL.rawValue, APPHOST_WIRE_CALL_SHOULD_DISMISS_MODAL.rawValue)
        XCTAssertEqual(AHR_CALL_DID_DISMISS_MODAL.rawValue, APPHOST_WIRE_CALL_DID_DISMISS_MODAL.rawValue)
        XCTAssertEqual(AHR_CALL_DID_DISCARD.rawValue, APPHOST_WIRE_CALL_DID_DISCARD.rawValue)
        // The worker->host frames count on from WORK_SUBMITTED.
        XCTAssertEqual(
            [
                APPHOST_WIRE_SCENE_REQUESTED, APPHOST_WIRE_SESSION_ACTIVATION_REQUESTED, APPHOST_WIRE_LOADING_PROGRESS,
                APPHOST_WIRE_MODAL_PRESENTED, APPHOST_WIRE_MODAL_DISMISSED, APPHOST_WIRE_NOTIFICATION_POSTED,
            ].map(\.rawValue), Array(77...82))
        XCTAssertEqual(
            [
                APPHOST_WIRE_AUDIO_CONFIGURED, APPHOST_WIRE_AUDIO_ACTIVATION_REQUESTED, APPHOST_WIRE_AUDIO_DEACTIVATED,
                APPHOST_WIRE_AUDIO_RENDERING, APPHOST_WIRE_AUDIO_GAIN, APPHOST_WIRE_AUDIO_OUTPUT_OVERRIDDEN,
                APPHOST_WIRE_AUDIO_THREAD,
            ].map(\.rawValue), Array(85...91))
        XCTAssertEqual(
            APPHOST_WIRE_VERSION, 12,
            "version 4 added activation tokens, 5 scene titles, 6 audio, 7 audio streams, 8 audio threads, 9 actions,"
                + " 10 save confirmations, 11 scene request ids, 12 sandbox refusals")
    }

    // CONTRACT X1: a descriptor that crossed the wire is judged as a mapped one is.
    func testDescriptorFromTheWireIsValidated() {
        func problem(_ descriptor: RawGuestDescriptor?) -> String? {
            let entry = RawGuestEntry(
                abiVersion: .current, descriptor: descriptor, hasInit: true, hasDeinit: true, hasQuery: true)
            do {
                _ = try DescriptorValidator.descriptor(of: entry, path: "/g.so")
                return nil
            } catch {
                return error.reason
            }
        }
        var valid = RawGuestDescriptor(
            structSize: UInt32(DescriptorValidator.minimumSize), id: Array("org.example.a".utf8),
            name: Array("A".utf8), version: Array("1".utf8), vendor: nil, description: nil, capabilities: 0)
        XCTAssertNil(problem(valid))
        XCTAssertEqual(problem(nil), "invalid descriptor: descriptor is NULL")
        valid.name = [0x41, 0xFF]
        XCTAssertEqual(problem(valid), "invalid descriptor: name is not valid UTF-8")
        // The version first: another major is refused whatever the rest; a newer minor of the
        // host's major passes to the descriptor's checks.
        for (version, cause) in [
            (
                ABIVersion(major: 2, minor: 0, revision: 0),
                LoadError.Cause.unsupportedABIVersion(
                    guest: ABIVersion(major: 2, minor: 0, revision: 0), host: .current)
            ),
            (ABIVersion(major: 1, minor: 5, revision: 0), .invalidDescriptor("descriptor is NULL")),
        ] {
            let entry = RawGuestEntry(
                abiVersion: version, descriptor: nil, hasInit: true, hasDeinit: true, hasQuery: true)
            XCTAssertThrowsError(try DescriptorValidator.descriptor(of: entry, path: "/g.so")) { error in
                XCTAssertEqual((error as? LoadError)?.cause, cause, "\(version)")
            }
        }
    }

    // MARK: Exit causes

    // CONTRACT X2: the causes events and errors show.
    func testExitCauses() {
        XCTAssertEqual(WorkerExit(waitStatus: 0).description, "exited normally")
        XCTAssertEqual(WorkerExit(waitStatus: 3 << 8).description, "exited with status 3")
        XCTAssertEqual(WorkerExit(waitStatus: SIGSEGV).description, "killed by SIGSEGV")
        XCTAssertEqual(WorkerExit(waitStatus: SIGABRT | 0x80).description, "killed by SIGABRT", "core dumped")
        XCTAssertEqual(WorkerExit(waitStatus: SIGKILL).description, "killed by SIGKILL")
        XCTAssertEqual(WorkerExit(waitStatus: 34).description, "killed by signal 34")
    }

    private func le32(_ value: UInt32) -> [UInt8] { withUnsafeBytes(of: value.littleEndian) { Array($0) } }
    private func le64(_ value: UInt64) -> [UInt8] { withUnsafeBytes(of: value.littleEndian) { Array($0) } }
}
