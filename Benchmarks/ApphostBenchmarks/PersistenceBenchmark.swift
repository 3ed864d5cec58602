import ApphostStore
import ApphostVocabulary
import Dispatch
import Foundation
import GRDB

/// Durable saves of scene state (CONTRACT S12) beside a bare SQLite insert loop with the same
/// durability (WAL, synchronous=FULL, one transaction a row), interleaved in batches; then the
/// time to read back 10,000 sessions, as a host does at start.
struct PersistenceBenchmark {
    let directory: String

    func saves(iterations: Int) throws -> (store: Samples, bare: Samples) {
        let store = try SQLiteSessionStore(path: directory + "/sessions.sqlite")
        try store.create(StoredSession(sessionID: "bench", role: .primary, state: nil), of: "org.apphost.bench")
        var configuration = Configuration()
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
        let bare = try DatabaseQueue(path: directory + "/bare.sqlite", configuration: configuration)
        try bare.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: "CREATE TABLE row (id INTEGER PRIMARY KEY, state BLOB NOT NULL)")
        }
        let state = Data((0..<4096).map { UInt8(truncatingIfNeeded: $0) })
        var storeDurations: [Double] = []
        var bareDurations: [Double] = []
        for _ in 0..<max(1, iterations / 100) {
            for _ in 0..<100 {
                let done = DispatchSemaphore(value: 0)
                let failure = FailureBox()
                let start = monotonicNanoseconds()
                store.save(state, session: "bench") { result in
                    if case .failure(let error) = result { failure.error = error }
                    done.signal()
                }
                done.wait()
                storeDurations.append(monotonicNanoseconds() - start)
                if let error = failure.error { throw BenchmarkFailure("save failed: \(error)") }
            }
            for _ in 0..<100 {
                let start = monotonicNanoseconds()
                try bare.write { db in try db.execute(sql: "INSERT INTO row (state) VALUES (?)", arguments: [state]) }
                bareDurations.append(monotonicNanoseconds() - start)
            }
        }
        return (Samples(storeDurations), Samples(bareDurations))
    }

    /// Stores `count` sessions of 1 KB state over 100 guests, then times a fresh store opening
    /// and reading every guest's sessions back.
    func restore(count: Int) throws -> Double {
        let path = directory + "/restore.sqlite"
        do {
            let store = try SQLiteSessionStore(path: path)
            let state = Data(repeating: 7, count: 1024)
            let group = DispatchGroup()
            for index in 0..<count {
                let session = "session-\(index)"
                try store.create(
                    StoredSession(sessionID: session, role: .primary, state: nil),
                    of: "org.apphost.bench.\(index % 100)")
                group.enter()
                store.save(state, session: session) { _ in group.leave() }
            }
            group.wait()
        }
        let start = monotonicNanoseconds()
        let store = try SQLiteSessionStore(path: path)
        var restored = 0
        for guest in 0..<100 { restored += try sessions(of: "org.apphost.bench.\(guest)", in: store).count }
        let elapsed = monotonicNanoseconds() - start
        guard restored == count else { throw BenchmarkFailure("restored \(restored) of \(count) sessions") }
        return elapsed
    }

    /// The sessions of `guest`, waited for, as a host's launch waits for them.
    private func sessions(of guest: String, in store: SQLiteSessionStore) throws -> [StoredSession] {
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var outcome: Result<[StoredSession], StoreError>?
        store.sessions(of: guest) { result in
            outcome = result
            done.signal()
        }
        done.wait()
        return try outcome!.get()
    }
}

/// A save's failure, written before the semaphore is signalled and read after it.
private final class FailureBox: @unchecked Sendable {
    var error: StoreError?
}
