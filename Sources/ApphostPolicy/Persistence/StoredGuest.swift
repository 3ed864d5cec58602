import ApphostVocabulary

/// What the store held of one guest as its launch began (CONTRACT S7, S8), read before the
/// launch goes on so that no step of it waits for the store.
struct StoredGuest: Sendable {
    /// Its sessions from earlier runs of the host, with what they saved; nil when not read (the
    /// host knows the guest already, or keeps no store).
    var sessions: Result<[StoredSession], StoreError>?
    /// Its sessions closed and not yet announced to it.
    var discarded: Result<[String], StoreError> = .success([])
}
