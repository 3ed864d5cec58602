import ApphostModel
import Foundation

/// Where scene sessions and the state they saved outlive the host (CONTRACT S6, S8, S12): a
/// session keeps its id for good, and what it saved comes back when it reconnects, even after
/// the host was killed. The host core calls it on the host queue and waits for nothing but
/// `create`: reads and writes run elsewhere, in the order asked, and call back.
public protocol SessionStore: Sendable {
    /// Reads the sessions of `guest`, oldest first, each with what it last saved (discarded ones
    /// are not among them), after what was asked before; then calls `completion`, on any thread.
    func sessions(
        of guest: String, completion: @escaping @Sendable (Result<[StoredSession], StoreError>) -> Void)

    /// Records a new session, durably, before it first connects.
    func create(_ session: StoredSession, of guest: String) throws(StoreError)

    /// Replaces what `session` saved, atomically and durably, after the saves asked for before
    /// it; then calls `completion`, on any thread.
    func save(_ state: Data, session: String, completion: @escaping @Sendable (Result<Void, StoreError>) -> Void)

    /// Discards `session` for good (S7), after the saves asked for before it: what it saved is
    /// deleted, durably, and later saves of it are dropped. It is remembered as discarded until
    /// `forget`, so that its guest can be told at its next launch. Then calls `completion`, on
    /// any thread.
    func discard(session: String, completion: @escaping @Sendable (Result<Void, StoreError>) -> Void)

    /// Reads the sessions of `guest` discarded and not yet forgotten, oldest first, after what was
    /// asked before; then calls `completion`, on any thread.
    func discardedSessions(of guest: String, completion: @escaping @Sendable (Result<[String], StoreError>) -> Void)

    /// Forgets a discarded session once its guest has been told (did-discard), after what was
    /// asked before (its discard among it); then calls `completion`, on any thread.
    func forget(session: String, completion: @escaping @Sendable (Result<Void, StoreError>) -> Void)

    /// Calls `completion`, on any thread, once every save asked for before has completed (and
    /// its completion has run).
    func flush(completion: @escaping @Sendable () -> Void)
}

/// One scene session as the store keeps it.
public struct StoredSession: Sendable, Equatable {
    public var sessionID: String
    public var role: SceneRole
    /// What it last saved; nil when it saved nothing.
    public var state: Data?

    public init(sessionID: String, role: SceneRole, state: Data?) {
        self.sessionID = sessionID
        self.role = role
        self.state = state
    }
}

/// Why the store could not do what was asked; `description` is one line.
public struct StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
