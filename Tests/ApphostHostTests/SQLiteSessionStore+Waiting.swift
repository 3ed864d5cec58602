import ApphostStore
import ApphostVocabulary
import Dispatch

/// The store's reads and forgets, waited for: a test has what they return, in the store's order,
/// before it goes on, as the host core has it in their completions.
extension SQLiteSessionStore {
    func sessions(of guest: String) throws(StoreError) -> [StoredSession] {
        try waitFor { sessions(of: guest, completion: $0) }.get()
    }

    func discardedSessions(of guest: String) throws(StoreError) -> [String] {
        try waitFor { discardedSessions(of: guest, completion: $0) }.get()
    }

    func forget(session: String) throws(StoreError) {
        try waitFor { forget(session: session, completion: $0) }.get()
    }

    private func waitFor<T: Sendable>(
        _ body: (@escaping @Sendable (Result<T, StoreError>) -> Void) -> Void
    ) -> Result<T, StoreError> {
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var outcome: Result<T, StoreError>?
        body { result in
            outcome = result
            done.signal()
        }
        done.wait()
        return outcome!
    }
}
