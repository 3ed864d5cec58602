import ApphostWire
import Foundation
import XCTest

@testable import ApphostHost

/// The host's side of apphost_wire.h: frames, fields and messages, byte for byte.
final class WorkerWireCodecTests: XCTestCase {
    // MARK: Frames

    func testFrameIsLittleEndianLengthThenTypeThenPayload() {
        let frame = WorkerToHostMessage.hello(version: 1, pid: 0x0102_0304).frame
        XCTAssertEqual(frame.encoded, [9, 0, 0, 0, 64, 1, 0, 0, 0, 4, 3, 2, 1])
        XCTAssertEqual(HostToWorkerMessage.stop.frame.encoded, [1, 0, 0, 0, 4])
    }

    func testDecoderReassemblesFramesFromAnyPieces() throws {
        let frames = [
            WorkerToHostMessage.log(.info, "hello").frame, WorkerToHostMessage.reply(sequence: 7, status: -3).frame,
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
        var writer = WirePayloadWriter()
        writer.u8(0xAB)
        writer.bool(true)
        writer.u32(0xDEAD_BEEF)
        writer.i32(-2)
        writer.u64(0x0102_0304_0506_0708)
        writer.string("héllo")
        writer.optionalString(nil)
        writer.optionalData([UInt8]())
        XCTAssertEqual(Array(writer.bytes[6..<10]), [0xFE, 0xFF, 0xFF, 0xFF], "i32 -2, little-endian")
        var reader = WirePayloadReader(writer.bytes)
        XCTAssertEqual(try reader.u8(), 0xAB)
        XCTAssertEqual(try reader.bool(), true)
        XCTAssertEqual(try reader.u32(), 0xDEAD_BEEF)
        XCTAssertEqual(try reader.i32(), -2)
        XCTAssertEqual(try reader.u64(), 0x0102_0304_0506_0708)
        XCTAssertEqual(try reader.string(), "héllo")
        XCTAssertNil(try reader.optionalData())
        XCTAssertEqual(try reader.optionalData(), [])
        XCTAssertNoThrow(try reader.finish())
    }

    func testMalformedPayloadsAreProtocolErrors() {
        // A string whose length runs past the frame.
        var reader = WirePayloadReader(le32(10) + [1, 2])
        XCTAssertThrowsError(try reader.string())
        // A bool that is neither 0 nor 1.
        reader = WirePayloadReader([2])
        XCTAssertThrowsError(try reader.bool())
        // Trailing bytes.
        XCTAssertThrowsError(try WorkerToHostMessage(WireFrame(type: 71, payload: [0])))
        // Unknown types, and a host frame type from the worker.
        XCTAssertThrowsError(try WorkerToHostMessage(WireFrame(type: 99, payload: [])))
        XCTAssertThrowsError(try WorkerToHostMessage(WireFrame(type: 4, payload: [])))
        // A log level outside the ABI's.
        XCTAssertThrowsError(try WorkerToHostMessage(WireFrame(type: 69, payload: [9] + le32(0))))
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
        for message in messages + callbacks {
            XCTAssertEqual(try HostToWorkerMessage(message.frame), message)
        }
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
            .reply(sequence: .max, status: Int32.min), .log(.error, "x"), .saveState(scene: 3, Data()),
            .saveState(scene: 3, Data([0, 1])), .stopped,
        ]
        for message in messages {
            XCTAssertEqual(try WorkerToHostMessage(message.frame), message)
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
        let newer = RawGuestEntry(
            abiVersion: ABIVersion(major: 1, minor: 5, revision: 0), descriptor: nil, hasInit: true, hasDeinit: true,
            hasQuery: true)
        XCTAssertThrowsError(try DescriptorValidator.descriptor(of: newer, path: "/g.so")) { error in
            XCTAssertEqual(
                (error as? LoadError)?.cause,
                .unsupportedABIVersion(guest: ABIVersion(major: 1, minor: 5, revision: 0), host: .current))
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
