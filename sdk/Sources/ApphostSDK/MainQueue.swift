import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The guest's main queue, as the SDK sees it: the thread on which the host is delivering a
/// call to the guest (a callback, or a callout's closure), while it does.
///
/// The queue is not a thread of the SDK's: the worker's main thread, or a host thread for a
/// guest in the host's process. So the SDK cannot run code there on its own; it knows it is
/// there only while the host calls in, and ``GuestActor``'s executor asks the host to call in
/// (`dispatch_async`) to run its jobs.
enum MainQueue {
    /// The thread of the call under way; nil between the host's calls.
    private static let thread = Mutex<pthread_t?>(nil)

    /// Runs `body`, which the host called on the guest's main queue. While it runs,
    /// ``isCurrent`` is true on its thread, and ``GuestActor`` code may run there.
    static func run<T>(_ body: () throws -> T) rethrows -> T {
        let outer = thread.withLock { thread in
            defer { thread = pthread_self() }
            return thread
        }
        defer { thread.withLock { $0 = outer } }
        return try body()
    }

    /// True on the main queue, inside a call from the host: no other call into the guest is
    /// under way then.
    static var isCurrent: Bool {
        thread.withLock { thread in thread.map { pthread_equal($0, pthread_self()) != 0 } ?? false }
    }
}
