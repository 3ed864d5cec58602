import Glibc

/// A plain mutex for state that several threads reach (the caller's, the event loop's, the
/// freezer's), each for a short time and never while waiting for anything.
final class WorkerLock: @unchecked Sendable {
    // The pthread mutex is only used through pthread calls, which synchronise it.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}
