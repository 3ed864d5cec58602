import ApphostModel
import ApphostVocabulary
import Foundation

/// Scene sessions and what they saved, in the store (CONTRACT S6, S7, S8, S12, X5): a new
/// session is stored before it first connects, a save is reported once the store has it for
/// good, saves the store could not take are tried again, and a closed session is discarded and
/// forgotten once its guest has been told. It alone touches the store; the core asks it and
/// tells the guests what it finds.
///
/// Confined to the host queue, like the core: call every method there. Completions run there too.
final class SessionKeeper: @unchecked Sendable {
    /// X5: while a save could not be stored, the keeper tries again this often.
    static let saveRetryInterval: Duration = .seconds(5)

    /// The core: its guests, whose failed saves are tried again, and their runtimes, which hear
    /// how their saves go.
    weak var delegate: (any SessionKeeperDelegate)?
    /// Where sessions and saved state outlive the host; nil keeps them in memory only.
    private var store: (any SessionStore)?
    /// The next try of the saves that could not be stored; nil when none waits.
    private var saveRetry: (any ScheduledAction)?
    private let clock: any HostClock
    private let hostQueue: any HostExecutor
    /// Where new sessions get their ids.
    private let sessionIDs: any SessionIDSource
    private let log: HostEventLog

    init(
        store: (any SessionStore)?, clock: any HostClock, hostQueue: any HostExecutor,
        sessionIDs: any SessionIDSource, log: HostEventLog
    ) {
        self.store = store
        self.clock = clock
        self.hostQueue = hostQueue
        self.sessionIDs = sessionIDs
        self.log = log
    }

    /// Keeps sessions and saved state in `store` from now on; call it before launching guests.
    func use(_ store: any SessionStore) {
        self.store = store
    }

    /// Reads what the store holds of guest `id` for its launch (S7, S8): with `restoring` (a
    /// guest the host does not know yet), the sessions it had in earlier runs; always, those
    /// closed and not yet announced. Then runs `then` on the host queue; at once without a store.
    func readForLaunch(of id: String, restoring: Bool, then: @escaping @Sendable (StoredGuest) -> Void) {
        guard let store else { return then(StoredGuest()) }
        let hostQueue = hostQueue
        let readDiscarded: @Sendable (Result<[StoredSession], StoreError>?) -> Void = { sessions in
            store.discardedSessions(of: id) { discarded in
                hostQueue.execute { then(StoredGuest(sessions: sessions, discarded: discarded)) }
            }
        }
        if restoring { store.sessions(of: id) { readDiscarded($0) } } else { readDiscarded(nil) }
    }

    /// The sessions a guest had in earlier runs of the host, with what they saved (S8, S12), as
    /// read for its launch.
    func restoreSessions(of guest: GuestRecord, from stored: StoredGuest) {
        switch stored.sessions {
        case nil:
            return
        case .success(let sessions):
            guest.scenes = sessions.map {
                SceneRecord(sessionID: $0.sessionID, role: $0.role, savedState: $0.state, storedBytes: $0.state?.count)
            }
        case .failure(let error):
            log.record(.error, guest: guest.id, message: "cannot read its saved sessions: \(error)")
        }
    }

    /// A new session of `guest`, stored before it first connects (S8), as its last scene.
    func createSession(of guest: GuestRecord, role: SceneRole, state: Data? = nil) {
        var session = SceneRecord(
            sessionID: sessionIDs.next(), role: role, savedState: state, storedBytes: state?.count)
        do throws(StoreError) {
            try store?.create(StoredSession(sessionID: session.sessionID, role: role, state: state), of: guest.id)
        } catch {
            // Kept in memory, marked, and stored when the store can take it (X5).
            session.stored = false
            session.storedBytes = nil
            session.saveFailure = error.description
            log.record(
                .error, guest: guest.id, session: session.sessionID, message: "cannot store a new session: \(error)")
            scheduleSaveRetry()
        }
        guest.scenes.append(session)
    }

    /// S12: scene `handle` of `guest` saved `data`: kept in memory at once, for a reconnection,
    /// and in the store. With a `confirmation` (ABI 1.7), its runtime hears once the store has it
    /// for good or could not take it, after the event that says so (X5); a save of a scene whose
    /// session is gone is not stored, and its confirmation says so at once.
    func sceneSaved(
        _ data: Data, scene handle: SceneHandle, of guest: GuestRecord, confirmation: SaveConfirmationID? = nil
    ) {
        let ticket = confirmation.flatMap { id in
            let ticket = guest.saveConfirmations.open(id)
            if ticket == nil {
                log.record(
                    .error, guest: guest.id, scene: handle,
                    message: "a save asked for a confirmation past the \(SaveConfirmations.limit) waiting: it gets none"
                )
            }
            return ticket
        }
        guard let index = guest.sceneIndex(handle: handle) else {
            guard let ticket else { return }
            guest.saveConfirmations.close(ticket, stored: false)
            return tellSaveStatus(guest)
        }
        guest.scenes[index].savedState = data
        persist(data, of: guest, scene: handle, session: guest.scenes[index].sessionID, confirmation: ticket)
    }

    /// Runs `body` on the host queue once every save asked for so far is in the store.
    func afterSaves(_ body: @escaping @Sendable () -> Void) {
        guard let store else { return body() }
        let hostQueue = hostQueue
        store.flush { hostQueue.execute(body) }
    }

    // MARK: Closed sessions (S7)

    /// Discards `session` of `guest` in the store, with what it saved, after the saves asked for
    /// before; then runs `then` on the host queue, once a failure is recorded.
    func discard(_ session: String, of guest: GuestRecord, then: @escaping @Sendable () -> Void) {
        let hostQueue = hostQueue
        let discarded: @Sendable (Result<Void, StoreError>) -> Void = { result in
            hostQueue.execute { [weak self] in
                guard let self else { return }
                if case .failure(let error) = result {
                    self.log.record(
                        .error, guest: guest.id, session: session, message: "cannot delete its state: \(error)")
                }
                then()
            }
        }
        if let store { store.discard(session: session, completion: discarded) } else { discarded(.success(())) }
    }

    /// The sessions closed while the guest was not running, this host's and earlier hosts' (as
    /// read for its launch), to announce at launch: `closed` are this host's (`SessionClosing`),
    /// the only ones that can be pending on resume.
    func pendingDiscards(of guest: GuestRecord, closed: [String], stored: StoredGuest) -> [String] {
        var sessions = closed
        switch stored.discarded {
        case .success(let discarded):
            for session in discarded where !sessions.contains(session) { sessions.append(session) }
        case .failure(let error):
            log.record(.error, guest: guest.id, message: "cannot read its closed sessions: \(error)")
        }
        return sessions
    }

    /// Forgets a discarded session for good, once its guest has heard did-discard.
    func forget(_ session: String, of guest: GuestRecord) {
        guard let store else { return }
        let hostQueue = hostQueue
        store.forget(session: session) { result in
            guard case .failure(let error) = result else { return }
            hostQueue.execute { [weak self] in
                self?.log.record(.error, guest: guest.id, session: session, message: "cannot forget it: \(error)")
            }
        }
    }

    // MARK: Saves (S12, X5)

    /// S12: the event says a save is saved once the store has it for good (X5), or that it could
    /// not be stored and why. A `retry` is the keeper's own try of what a scene saved last.
    private func persist(
        _ data: Data?, of guest: GuestRecord, scene: SceneHandle?, session: String, retry: Bool = false,
        confirmation: SaveConfirmations.Ticket? = nil
    ) {
        // On the host queue: at once, or when the store is done.
        let finish: @Sendable (Result<Void, StoreError>) -> Void = { [weak self] result in
            self?.finishSave(
                result, size: data?.count, of: guest, scene: scene, session: session, retry: retry,
                confirmation: confirmation)
        }
        guard let store else { return finish(.success(())) }
        if let index = guest.sceneIndex(session: session), !guest.scenes[index].stored {
            // Its session could not be stored when it was made: stored now, with this state. None
            // of its saves goes to the store's queue until then, so none can overtake this.
            let role = guest.scenes[index].role
            do throws(StoreError) {
                try store.create(StoredSession(sessionID: session, role: role, state: data), of: guest.id)
                guest.scenes[index].stored = true
                finish(.success(()))
            } catch {
                finish(.failure(error))
            }
            return
        }
        guard let data else { return }
        let hostQueue = hostQueue
        store.save(data, session: session) { result in
            hostQueue.execute { finish(result) }
        }
    }

    /// X5: `savedBytes` and the failure `ctl ps` shows follow the saves as the store finishes
    /// them, in the order asked; the guest's runtime hears when its scene's saves fail and when
    /// they work again. A retry that fails as before says nothing new. A save that asked for a
    /// confirmation gets it after the event (ABI 1.7), and after the save status it changes.
    private func finishSave(
        _ result: Result<Void, StoreError>, size: Int?, of guest: GuestRecord, scene: SceneHandle?, session: String,
        retry: Bool, confirmation: SaveConfirmations.Ticket?
    ) {
        let index = guest.sceneIndex(session: session)
        let bytes = size.map { $0 == 1 ? "1 byte" : "\($0) bytes" }
        switch result {
        case .success:
            if let index {
                guest.scenes[index].storedBytes = size
                guest.scenes[index].saveFailure = nil
            }
            log.record(
                .stateSaved, guest: guest.id, scene: scene, session: session,
                message: bytes ?? "its session, no state yet")
        case .failure(let error):
            let before = index.flatMap { guest.scenes[$0].saveFailure }
            if let index { guest.scenes[index].saveFailure = error.description }
            if !retry || before != error.description {
                log.record(
                    .stateSaveFailed, guest: guest.id, scene: scene, session: session,
                    message: bytes.map { "\($0) not saved: \(error)" } ?? "its session not stored: \(error)")
            }
            scheduleSaveRetry()
        }
        if let confirmation {
            let stored = if case .success = result { true } else { false }
            guest.saveConfirmations.close(confirmation, stored: stored)
        }
        tellSaveStatus(guest)
    }

    private func tellSaveStatus(_ guest: GuestRecord) {
        delegate?.tellSaveStatus(guest)
    }

    /// Tries again, in a while, to store what the scenes whose saves failed saved last, so that
    /// it is stored once the store can take it even if the guest saves no more (a suspended or
    /// terminated guest cannot).
    private func scheduleSaveRetry() {
        guard saveRetry == nil else { return }
        saveRetry = clock.schedule(after: Self.saveRetryInterval) { [weak self] in
            // On the host queue, as every scheduled action.
            guard let self else { return }
            self.saveRetry = nil
            for guest in self.delegate?.guests ?? [] {
                for scene in guest.scenes where scene.saveFailure != nil {
                    self.persist(
                        scene.savedState, of: guest, scene: scene.handle, session: scene.sessionID, retry: true)
                }
            }
        }
    }

    /// X5: which of the guest's connected scenes' last save could not be stored, and which work
    /// again, since its runtime was last told, then the confirmations its saves asked for that
    /// are ready (ABI 1.7): the calls that tell it, each taken as told. None while the guest is
    /// stopped, or not running: it hears them when it resumes.
    func saveStatusChanges(of guest: GuestRecord) -> [GuestCall] {
        guard guest.phase == .running, !guest.stopped else { return [] }
        var calls: [GuestCall] = []
        for index in guest.scenes.indices {
            guard let handle = guest.scenes[index].handle else { continue }
            let failed = guest.scenes[index].saveFailure != nil
            guard failed != guest.scenes[index].saveFailureTold else { continue }
            guest.scenes[index].saveFailureTold = failed
            calls.append(.saveStatus(handle, failed: failed))
        }
        return calls + guest.saveConfirmations.take()
    }
}

/// What the session keeper needs of the core it serves.
protocol SessionKeeperDelegate: AnyObject {
    /// Every guest, in the order the core keeps them.
    var guests: [GuestRecord] { get }
    /// Some scene of `guest` had a save fail, or work again: its runtime is to hear it (X5).
    func tellSaveStatus(_ guest: GuestRecord)
}
