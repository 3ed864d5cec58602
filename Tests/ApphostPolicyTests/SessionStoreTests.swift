import ApphostModel
import ApphostPolicy
import ApphostPolicyTesting
import ApphostVocabulary
import Foundation
import Synchronization
import XCTest

/// Scene sessions that outlive the host (CONTRACT S6, S8, S12): a second host core on the same
/// store stands for the host after a restart.
final class SessionStoreTests: XCTestCase {
    private let id = "org.test.a"

    private func host(on store: MemoryStore) -> CoreHarness {
        let host = CoreHarness(store: store)
        _ = host.opener.add(id)
        return host
    }

    // CONTRACT S8, S12: a session keeps its id across host restarts, and reconnects with what it
    // saved; the event says "saved" only once the store has it.
    func testSessionsAndStateSurviveARestart() throws {
        let store = MemoryStore()
        let first = host(on: store)
        first.run { $0.launch(path: id, foreground: true) }
        let session = try XCTUnwrap(first.guest(id)?.scenes.first?.session)
        XCTAssertEqual(store.sessions.withLock { $0.map(\.sessionID) }, [session], "stored before it connects")

        store.holdSaves = true
        first.opener.guests[id]?.emit(.saveSceneState(1, Data("42".utf8)))
        first.settle()
        XCTAssertTrue(first.events.of(.stateSaved).isEmpty, "not saved until the store has it")
        store.releaseSaves()
        first.settle()
        XCTAssertEqual(first.events.of(.stateSaved).map(\.message), ["2 bytes"])

        let second = host(on: store)
        second.run { $0.launch(path: id, foreground: true) }
        XCTAssertEqual(second.guest(id)?.scenes.map(\.session), [session], "S8: the same session")
        let connect = try XCTUnwrap(second.calls.calls.first { $0.message.call.callbackName == "will_connect" })
        guard case .sceneWillConnect(let connection) = connect.message.call else { return XCTFail("\(connect)") }
        XCTAssertEqual(connection.sessionID, session)
        XCTAssertEqual(connection.restorationData, Data("42".utf8), "S12: as if it never left")
    }

    // CONTRACT A3, S12: a guest is reported terminated only once what it saved last, in
    // will_terminate or before, is in the store.
    func testTerminationWaitsForTheLastSave() throws {
        let store = MemoryStore()
        let host = host(on: store)
        host.run { $0.launch(path: id, foreground: true) }
        store.holdSaves = true
        host.opener.guests[id]?.emit(.saveSceneState(1, Data("last".utf8)))
        host.run { $0.terminate(id) }
        XCTAssertTrue(host.events.of(.terminated).isEmpty, "not before the save is stored")
        store.releaseSaves()
        host.settle()
        XCTAssertEqual(
            host.events.all.map(\.kind).filter { $0 == .stateSaved || $0 == .terminated }, [.stateSaved, .terminated])
        XCTAssertEqual(try store.sessions(of: id).first?.state, Data("last".utf8))
    }

    // CONTRACT X2, X5: a guest that saves and then crashes is reported terminated (crash) only
    // once what it saved is in the store, as a terminated one is: the stream never says
    // terminated before its last state-saved.
    func testACrashIsReportedTerminatedAfterTheLastSave() throws {
        let store = MemoryStore()
        let host = host(on: store)
        host.run { $0.launch(path: id, foreground: true) }
        store.holdSaves = true
        host.run { _ in
            host.opener.guests[id]?.emit(.saveSceneState(1, Data("last".utf8)))
            host.opener.guests[id]?.emit(.died("killed by SIGSEGV"))
        }
        XCTAssertEqual(host.guest(id)?.appState, .notRunning, "it is down at once")
        XCTAssertTrue(host.events.of(.terminated).isEmpty, "not reported before the save is stored")
        store.releaseSaves()
        host.settle()
        XCTAssertEqual(
            host.events.all.map(\.kind).filter { $0 == .stateSaved || $0 == .terminated }, [.stateSaved, .terminated])
        XCTAssertEqual(host.events.of(.terminated).first?.reason, .crash)
    }

    // CONTRACT X5: a save the store cannot take (the disk is full) is said, with its cause, each
    // time the guest saves; `ctl ps` shows the size of the last state stored, not of the one that
    // failed, and why the last save failed. The host tries again with what the scene saved last
    // (a retry that fails as before says nothing new) until the store takes it.
    func testASaveTheStoreCannotTakeIsShownSaidAndTriedAgain() throws {
        let store = MemoryStore()
        let host = host(on: store)
        host.run { $0.launch(path: id, foreground: true) }
        let session = try XCTUnwrap(host.guest(id)?.scenes.first?.session)
        host.opener.guests[id]?.emit(.saveSceneState(1, Data("ok".utf8)))
        host.settle()
        XCTAssertEqual(host.guest(id)?.scenes.first?.savedBytes, 2)

        store.failSaves = "disk full"
        host.opener.guests[id]?.emit(.saveSceneState(1, Data("12345".utf8)))
        host.opener.guests[id]?.emit(.saveSceneState(1, Data("1234567".utf8)))
        host.settle()
        XCTAssertEqual(
            host.events.of(.stateSaveFailed).map { "\($0.session ?? "?") \($0.message ?? "?")" },
            ["\(session) 5 bytes not saved: disk full", "\(session) 7 bytes not saved: disk full"])
        var scene = try XCTUnwrap(host.guest(id)?.scenes.first)
        XCTAssertEqual(scene.savedBytes, 2, "the size of the last state stored, not of the one that failed")
        XCTAssertEqual(scene.saveFailure, "disk full")
        XCTAssertEqual(try store.sessions(of: id).first?.state, Data("ok".utf8))

        host.advance(by: .seconds(5))
        XCTAssertEqual(host.events.of(.stateSaveFailed).count, 2, "a retry that fails as before says nothing new")
        XCTAssertEqual(host.guest(id)?.scenes.first?.saveFailure, "disk full")

        store.failSaves = nil
        host.advance(by: .seconds(5))
        XCTAssertEqual(host.events.of(.stateSaved).compactMap(\.message), ["2 bytes", "7 bytes"])
        scene = try XCTUnwrap(host.guest(id)?.scenes.first)
        XCTAssertEqual(scene.savedBytes, 7)
        XCTAssertNil(scene.saveFailure)
        XCTAssertEqual(try store.sessions(of: id).first?.state, Data("1234567".utf8), "what it saved last")
        host.advance(by: .seconds(30))
        XCTAssertEqual(host.events.of(.stateSaved).count, 2, "no retry once stored")
    }

    // CONTRACT X5: the guest's runtime hears when its scene's saves cannot be stored (so that
    // save_scene_state returns APPHOST_ERROR_INTERNAL) and when they are again, once each; a
    // scene that reconnects meanwhile hears it after its will-connect.
    func testTheGuestHearsWhenItsSavesFailAndWhenTheyWorkAgain() throws {
        let store = MemoryStore()
        let host = host(on: store)
        host.run { $0.launch(path: id, foreground: true) }
        func told() -> [String] {
            host.calls.allNames(id).filter { $0.contains("save_status") || $0.contains("will_connect") }
        }
        store.failSaves = "disk full"
        host.opener.guests[id]?.emit(.saveSceneState(1, Data("a".utf8)))
        host.opener.guests[id]?.emit(.saveSceneState(1, Data("b".utf8)))
        host.settle()
        XCTAssertEqual(told(), ["\(id):will_connect@1", "\(id):save_status@1=failed"], "once")

        host.run { $0.terminate(id) }
        host.run { $0.launch(path: id, foreground: true) }
        XCTAssertEqual(told().suffix(2), ["\(id):will_connect@2", "\(id):save_status@2=failed"])

        store.failSaves = nil
        host.advance(by: .seconds(5))
        XCTAssertEqual(told().last, "\(id):save_status@2=works")
        XCTAssertEqual(told().count, 5)
    }

    // CONTRACT X5 (ABI 1.7): a save that asks for a confirmation gets it once the store is done
    // with it, stored after its state-saved, failed after its state-save-failed and the save
    // status that says so; a suspended guest hears it when it resumes; a save of a scene that is
    // gone is failed at once; a launch that ended takes its confirmations with it, so the next
    // one, whose runtime counts from 1 again, hears none of them; past 64 waiting, a save is kept
    // and its confirmation is not.
    func testConfirmedSavesAreConfirmedOnceTheStoreIsDone() throws {
        let store = MemoryStore()
        let host = host(on: store)
        host.run { $0.launch(path: id, foreground: true) }
        func told() -> [String] { host.calls.allNames(id).filter { $0.contains(":save_") } }
        func emit(_ event: GuestEvent) {
            host.opener.guests[id]?.emit(event)
            host.settle()
        }
        store.holdSaves = true
        emit(.saveSceneState(1, Data("a".utf8), confirmation: 1))
        XCTAssertEqual(told(), [], "not before the store has it")
        store.releaseSaves()
        host.settle()
        XCTAssertEqual(host.events.of(.stateSaved).count, 1)
        XCTAssertEqual(told(), ["\(id):save_confirmation#1=stored"])

        store.failSaves = "disk full"
        emit(.saveSceneState(1, Data("b".utf8), confirmation: 2))
        XCTAssertEqual(told().dropFirst(), ["\(id):save_status@1=failed", "\(id):save_confirmation#2=failed"])

        store.failSaves = nil
        host.run { $0.suspend(id) }
        emit(.saveSceneState(1, Data("c".utf8), confirmation: 3))
        XCTAssertEqual(told().count, 3, "not while it is suspended")
        host.run { $0.resume(id) }
        XCTAssertEqual(told().dropFirst(3), ["\(id):save_status@1=works", "\(id):save_confirmation#3=stored"])

        emit(.saveSceneState(9, Data("d".utf8), confirmation: 4))
        XCTAssertEqual(told().last, "\(id):save_confirmation#4=failed", "no such scene: nothing stored")
        XCTAssertEqual(try store.sessions(of: id).first?.state, Data("c".utf8))

        store.holdSaves = true
        emit(.saveSceneState(1, Data("e".utf8), confirmation: 5))
        host.run { $0.terminate(id) }
        store.releaseSaves()
        host.settle()
        host.run { $0.launch(path: id, foreground: true) }
        XCTAssertEqual(try store.sessions(of: id).first?.state, Data("e".utf8))
        XCTAssertEqual(told().count, 6, "the ended launch's confirmation goes nowhere: \(told())")

        store.holdSaves = true
        for confirmation in 1...65 { emit(.saveSceneState(2, Data("f".utf8), confirmation: UInt64(confirmation))) }
        store.releaseSaves()
        host.settle()
        XCTAssertEqual(told().count, 6 + 64)
        XCTAssertEqual(told().last, "\(id):save_confirmation#64=stored")
        XCTAssertEqual(
            host.events.of(.error).compactMap(\.message).filter { $0.contains("confirmation") },
            ["a save asked for a confirmation past the 64 waiting: it gets none"])
        XCTAssertEqual(host.events.of(.stateSaved).count, 3 + 65, "every save stored all the same")
    }

    // CONTRACT S8, X5: a session the store could not take when it was made is kept, marked, and
    // stored with what it saved once the store can take it.
    func testANewSessionTheStoreCannotTakeIsStoredOnceItCan() throws {
        let store = MemoryStore()
        store.failing = true
        let host = host(on: store)
        host.run { $0.launch(path: id, foreground: true) }
        let session = try XCTUnwrap(host.guest(id)?.scenes.first?.session)
        XCTAssertEqual(host.guest(id)?.scenes.first?.saveFailure, "disk on fire")
        XCTAssertNil(host.guest(id)?.scenes.first?.savedBytes)

        host.opener.guests[id]?.emit(.saveSceneState(1, Data("abc".utf8)))
        host.settle()
        XCTAssertEqual(host.events.of(.stateSaveFailed).compactMap(\.message), ["3 bytes not saved: disk on fire"])

        store.failing = false
        host.advance(by: .seconds(5))
        XCTAssertEqual(host.events.of(.stateSaved).compactMap(\.message), ["3 bytes"])
        XCTAssertEqual(
            store.sessions.withLock {
                $0.map { "\($0.sessionID) \(String(decoding: $0.state ?? Data(), as: UTF8.self))" }
            },
            ["\(session) abc"])
        XCTAssertNil(host.guest(id)?.scenes.first?.saveFailure)
        host.opener.guests[id]?.emit(.saveSceneState(1, Data("abcd".utf8)))
        host.settle()
        XCTAssertEqual(try store.sessions(of: id).first?.state, Data("abcd".utf8))
        XCTAssertEqual(host.guest(id)?.scenes.first?.savedBytes, 4)
    }

    // CONTRACT S7, S8: the core waits for no read: a launch goes on once the store has read
    // what it holds of the guest, in the store's order, and then connects the stored session.
    func testALaunchGoesOnOnceTheStoreHasReadTheGuest() throws {
        let store = MemoryStore()
        let first = host(on: store)
        first.run { $0.launch(path: id, foreground: true) }
        let session = try XCTUnwrap(first.guest(id)?.scenes.first?.session)

        let second = host(on: store)
        store.holdSaves = true
        second.run { $0.launch(path: id, foreground: true) }
        XCTAssertNil(second.guest(id), "not loaded before the store has read it")
        XCTAssertEqual(second.calls.names(id), [])
        store.releaseSaves()
        second.settle()
        XCTAssertEqual(second.guest(id)?.appState, .active)
        XCTAssertEqual(second.guest(id)?.scenes.map(\.session), [session])
    }

    // A store that cannot be read is reported; the guest still launches, with a new session.
    func testAStoreThatFailsIsReportedAndTheGuestStillLaunches() throws {
        let store = MemoryStore()
        store.failing = true
        let host = host(on: store)
        host.run { $0.launch(path: id, foreground: true) }
        XCTAssertEqual(host.guest(id)?.appState, .active)
        XCTAssertEqual(
            host.events.of(.error).compactMap(\.message),
            ["cannot read its saved sessions: disk on fire", "cannot store a new session: disk on fire"])
    }
}

/// A store in memory, shared by host cores as a database file is by host processes, with the
/// semantics of SQLiteSessionStore: reads, saves, discards and forgets complete in the order
/// asked (held while `holdSaves`); a save of an unknown session fails, a save of a discarded one
/// is dropped and succeeds (S7); a discarded session is listed by `discardedSessions` until
/// `forget`. The test reads what it holds at once, with the methods that return it.
final class MemoryStore: SessionStore, @unchecked Sendable {
    // `sessions` and `discarded` are locked; the rest is set by the test while the host queue is
    // idle.
    let sessions = Mutex<[(guest: String, sessionID: String, role: SceneRole, state: Data?)]>([])
    /// Closed sessions (S7), with their guests, oldest first, until forgotten.
    let discarded = Mutex<[(guest: String, sessionID: String)]>([])
    var failing = false
    /// Saves fail with this cause while it is set.
    var failSaves: String?
    var holdSaves = false
    private var held: [() -> Void] = []

    func sessions(of guest: String) throws(StoreError) -> [StoredSession] {
        if failing { throw StoreError("disk on fire") }
        return sessions.withLock { all in
            all.filter { $0.guest == guest }.map {
                StoredSession(sessionID: $0.sessionID, role: $0.role, state: $0.state)
            }
        }
    }

    func sessions(
        of guest: String, completion: @escaping @Sendable (Result<[StoredSession], StoreError>) -> Void
    ) {
        enqueue { [self] in
            do throws(StoreError) {
                completion(.success(try sessions(of: guest)))
            } catch {
                completion(.failure(error))
            }
        }
    }

    func create(_ session: StoredSession, of guest: String) throws(StoreError) {
        if failing { throw StoreError("disk on fire") }
        sessions.withLock { $0.append((guest, session.sessionID, session.role, session.state)) }
    }

    func save(_ state: Data, session: String, completion: @escaping @Sendable (Result<Void, StoreError>) -> Void) {
        enqueue { [self] in
            if let cause = failSaves { return completion(.failure(StoreError(cause))) }
            let found = sessions.withLock { all in
                guard let index = all.firstIndex(where: { $0.sessionID == session }) else { return false }
                all[index].state = state
                return true
            }
            if found || isDiscarded(session) {
                completion(.success(()))
            } else {
                completion(.failure(StoreError("no session \(session)")))
            }
        }
    }

    func flush(completion: @escaping @Sendable () -> Void) {
        enqueue(completion)
    }

    func discard(session: String, completion: @escaping @Sendable (Result<Void, StoreError>) -> Void) {
        enqueue { [self] in
            let guest = sessions.withLock { all in
                defer { all.removeAll { $0.sessionID == session } }
                return all.first { $0.sessionID == session }?.guest
            }
            if let guest {
                discarded.withLock { $0.append((guest, session)) }
            } else if !isDiscarded(session) {
                return completion(.failure(StoreError("no session \(session)")))
            }
            completion(.success(()))
        }
    }

    func discardedSessions(of guest: String) throws(StoreError) -> [String] {
        discardedIDs(of: guest)
    }

    func discardedSessions(of guest: String, completion: @escaping @Sendable (Result<[String], StoreError>) -> Void) {
        enqueue { [self] in completion(.success(discardedIDs(of: guest))) }
    }

    func forget(session: String, completion: @escaping @Sendable (Result<Void, StoreError>) -> Void) {
        enqueue { [self] in
            discarded.withLock { $0.removeAll { $0.sessionID == session } }
            completion(.success(()))
        }
    }

    func releaseSaves() {
        holdSaves = false
        held.forEach { $0() }
        held = []
    }

    private func discardedIDs(of guest: String) -> [String] {
        discarded.withLock { $0.filter { $0.guest == guest }.map(\.sessionID) }
    }

    private func isDiscarded(_ session: String) -> Bool {
        discarded.withLock { $0.contains { $0.sessionID == session } }
    }

    /// Runs `work` now, or once the test releases saves, after what was held before it.
    private func enqueue(_ work: @escaping () -> Void) {
        if holdSaves { held.append(work) } else { work() }
    }
}
