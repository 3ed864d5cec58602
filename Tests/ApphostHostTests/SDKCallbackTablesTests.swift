import CApphost
import Foundation
import Synchronization
import XCTest

/// The Swift SDK's answer to apphost_entry.query (sdk/Sources/ApphostSDK/GuestCallbacks.swift):
/// the four callback tables every Swift guest gives the host, read as the runtime reads them
/// (guest_callbacks.c), straight from the built guest libraries in this process. Each table's
/// struct_size is the ABI's struct as the SDK was built, so that an older host reads only what it
/// knows; every member is set; the address is the same at every query, from any thread, as query
/// is [thread-safe] (entry.h); any other id gets NULL.
final class SDKCallbackTablesTests: XCTestCase {
    /// Built products of this package: the Swift samples, one of them the audio one.
    static let guests = ["libSwiftSampleGuest.so", "libSwiftGameGuest.so"]

    typealias Query = @convention(c) (UnsafePointer<CChar>?) -> UnsafeRawPointer?

    func testEveryTableHasTheABIsSizeAndEveryMember() throws {
        for guest in Self.guests {
            let query = try Self.query(of: guest)

            let app = try table(query, APPHOST_GUEST_APP_CALLBACKS_ID, apphost_app_callbacks_t.self, guest)
            XCTAssertNotNil(app.did_finish_launching, guest)
            XCTAssertNotNil(app.will_terminate, guest)
            XCTAssertNotNil(app.did_receive_memory_warning, guest)

            let scene = try table(query, APPHOST_GUEST_SCENE_CALLBACKS_ID, apphost_scene_callbacks_t.self, guest)
            XCTAssertNotNil(scene.will_connect, guest)
            XCTAssertNotNil(scene.will_enter_foreground, guest)
            XCTAssertNotNil(scene.did_become_active, guest)
            XCTAssertNotNil(scene.will_resign_active, guest)
            XCTAssertNotNil(scene.did_enter_background, guest)
            XCTAssertNotNil(scene.did_disconnect, guest)

            let scenes = try table(query, APPHOST_GUEST_SCENES_CALLBACKS_ID, apphost_guest_scenes_t.self, guest)
            XCTAssertNotNil(scenes.did_change_size, guest)
            XCTAssertNotNil(scenes.perform_action, guest)
            XCTAssertNotNil(scenes.should_dismiss_modal, guest)
            XCTAssertNotNil(scenes.did_dismiss_modal, guest)
            XCTAssertNotNil(scenes.did_discard, guest)
            XCTAssertNotNil(scenes.did_refuse_request, guest)

            let audio = try table(query, APPHOST_GUEST_AUDIO_CALLBACKS_ID, apphost_guest_audio_t.self, guest)
            XCTAssertNotNil(audio.activation_finished, guest)
            XCTAssertNotNil(audio.interruption_began, guest)
            XCTAssertNotNil(audio.interruption_ended, guest)
            XCTAssertNotNil(audio.route_changed, guest)
            XCTAssertNotNil(audio.secondary_audio_hint, guest)
            XCTAssertNotNil(audio.media_services_reset, guest)
            XCTAssertNotNil(audio.render, guest)
            XCTAssertNotNil(audio.render_demoted, guest)
        }
    }

    /// Each member is a distinct function: a table whose closures were swapped or repeated would
    /// call the wrong callback.
    func testNoTwoMembersAreTheSameFunction() throws {
        for guest in Self.guests {
            let query = try Self.query(of: guest)
            var members: [UnsafeRawPointer?] = []
            members += Self.members(
                of: try XCTUnwrap(query(APPHOST_GUEST_APP_CALLBACKS_ID)), apphost_app_callbacks_t.self)
            members += Self.members(
                of: try XCTUnwrap(query(APPHOST_GUEST_SCENE_CALLBACKS_ID)), apphost_scene_callbacks_t.self)
            members += Self.members(
                of: try XCTUnwrap(query(APPHOST_GUEST_SCENES_CALLBACKS_ID)), apphost_guest_scenes_t.self)
            members += Self.members(
                of: try XCTUnwrap(query(APPHOST_GUEST_AUDIO_CALLBACKS_ID)), apphost_guest_audio_t.self)
            XCTAssertEqual(members.count, 3 + 6 + 6 + 8, guest)
            XCTAssertFalse(members.contains(nil), guest)
            XCTAssertEqual(Set(members.compactMap { $0 }).count, members.count, "\(guest): a member repeated")
        }
    }

    func testTheSameTablesFromEveryThreadAndNothingForOtherIDs() throws {
        let ids = [
            APPHOST_GUEST_APP_CALLBACKS_ID, APPHOST_GUEST_SCENE_CALLBACKS_ID, APPHOST_GUEST_SCENES_CALLBACKS_ID,
            APPHOST_GUEST_AUDIO_CALLBACKS_ID,
        ]
        for guest in Self.guests {
            let query = try Self.query(of: guest)
            // Eight threads ask for all four at once (the first queries of a library loaded here
            // fresh, unless another test loaded it before): every thread gets the same addresses.
            let answers = Mutex<[[UInt]]>([])
            DispatchQueue.concurrentPerform(iterations: 8) { _ in
                let addresses = ids.map { id in UInt(bitPattern: query(id)) }
                answers.withLock { $0.append(addresses) }
            }
            let all = answers.withLock { $0 }
            XCTAssertEqual(all.count, 8, guest)
            XCTAssertEqual(Set(all).count, 1, "\(guest): \(all)")
            XCTAssertFalse(all[0].contains(0), guest)
            XCTAssertEqual(Set(all[0]).count, 4, guest)
            XCTAssertEqual(ids.map { UInt(bitPattern: query($0)) }, all[0], "\(guest): asked again")

            XCTAssertNil(query(nil), guest)
            for other in [
                "", "apphost.guest.app/2", "apphost.guest.app", APPHOST_SCENES_EXTENSION_ID, "apphost.nope/1",
            ] {
                XCTAssertNil(query(other), "\(guest): \(other)")
            }
        }
    }

    // MARK: - Helpers

    /// The table `id` of `query`, whose struct_size must be `Table`'s size as this package built it.
    private func table<Table>(
        _ query: Query, _ id: String, _: Table.Type, _ guest: String, file: StaticString = #filePath,
        line: UInt = #line
    ) throws -> Table {
        let raw = try XCTUnwrap(query(id), "\(guest): query(\(id))", file: file, line: line)
        XCTAssertEqual(
            raw.load(as: UInt32.self), UInt32(MemoryLayout<Table>.size), "\(guest): \(id)'s struct_size", file: file,
            line: line)
        XCTAssertEqual(
            Int(bitPattern: raw) % MemoryLayout<Table>.alignment, 0, "\(guest): \(id)", file: file, line: line)
        return raw.load(as: Table.self)
    }

    /// The function pointers of the table at `raw`: every pointer-sized word after struct_size.
    private static func members<Table>(of raw: UnsafeRawPointer, _: Table.Type) -> [UnsafeRawPointer?] {
        let size = MemoryLayout<UnsafeRawPointer>.size
        return stride(from: size, to: MemoryLayout<Table>.size, by: size).map {
            raw.load(fromByteOffset: $0, as: UnsafeRawPointer?.self)
        }
    }

    /// `guest`'s apphost_entry.query, the library loaded (and kept: a Swift guest pins itself).
    private static func query(of guest: String, file: StaticString = #filePath, line: UInt = #line) throws -> Query {
        let path = try BuiltProduct.path(guest, file: file, line: line)
        guard let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL) else {
            XCTFail("dlopen \(path): \(String(cString: dlerror()))", file: file, line: line)
            throw CocoaError(.fileReadUnknown)
        }
        let symbol = try XCTUnwrap(dlsym(handle, APPHOST_ENTRY_SYMBOL), path, file: file, line: line)
        let entry = symbol.assumingMemoryBound(to: apphost_entry_t.self).pointee
        XCTAssertEqual(entry.abi_version.major, UInt32(APPHOST_ABI_VERSION_MAJOR), file: file, line: line)
        return try XCTUnwrap(entry.query, path, file: file, line: line)
    }
}
