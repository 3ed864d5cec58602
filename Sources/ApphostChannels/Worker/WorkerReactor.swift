import CEpoll
import Glibc
import Synchronization

/// The one thread that reads every worker socket of the process: an epoll loop over each
/// channel's socket and exit descriptor. A worker's reply is read, decoded and handed to the host
/// queue from here, with no Dispatch source and no queue hop in between.
///
/// Registrations are named by tokens, never by descriptor: a descriptor closed and reused by
/// another channel cannot reach the old one's handler. A handler may still run once after it was
/// unregistered (the loop fetched it just before); channels check their own state under their
/// lock, so such a late call does nothing.
final class WorkerReactor: Sendable {
    typealias Token = UInt64
    /// Runs on the reactor thread with the epoll events and a buffer that only this thread uses,
    /// for the handler's reads.
    typealias Handler = @Sendable (_ events: UInt32, _ buffer: UnsafeMutableRawBufferPointer) -> Void

    static let shared = WorkerReactor()

    private let epoll: Int32
    private let handlers = Mutex<(next: Token, byToken: [Token: Handler])>((1, [:]))

    private init() {
        epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        precondition(epoll >= 0, "epoll_create1: \(String(cString: strerror(errno)))")
        // A plain pthread, never joined: the reactor lives as long as the process. Its priority is
        // chosen, not inherited from whichever thread first touched `shared` (a Dispatch thread
        // at user-initiated QoS runs at nice -2 where it may, a thawing thread is SCHED_FIFO):
        // the normal policy, at the nice of the host's main thread (`run`). It delivers replies
        // and runs the host queue's work on them, so it weighs as the host does: above the
        // workers (`--worker-nice`), and not above the host queue's own threads, which it would
        // otherwise preempt when a reply wakes it beside them.
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        var parameters = sched_param()
        parameters.sched_priority = 0
        pthread_attr_setinheritsched(&attributes, Int32(PTHREAD_EXPLICIT_SCHED))
        pthread_attr_setschedpolicy(&attributes, SCHED_OTHER)
        pthread_attr_setschedparam(&attributes, &parameters)
        let context = Unmanaged.passRetained(self).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(
            &thread, &attributes,
            { context in
                let reactor = Unmanaged<WorkerReactor>.fromOpaque(context!).takeRetainedValue()
                reactor.run()
                return nil
            }, context)
        precondition(status == 0, "pthread_create: \(String(cString: strerror(status)))")
        pthread_detach(thread)
    }

    static let readable = EPOLLIN.rawValue
    static let writable = EPOLLOUT.rawValue
    static let hangUp = EPOLLHUP.rawValue | EPOLLERR.rawValue | EPOLLRDHUP.rawValue

    /// Watches `descriptor` for reading (level-triggered) and, with `writing`, for writing.
    func register(descriptor: Int32, writing: Bool = false, handler: @escaping Handler) -> Token {
        let token = handlers.withLock { state in
            let token = state.next
            state.next += 1
            state.byToken[token] = handler
            return token
        }
        var event = epoll_event()
        event.events = Self.interest(writing: writing)
        event.data.u64 = token
        if epoll_ctl(epoll, EPOLL_CTL_ADD, descriptor, &event) != 0 {
            // Cannot happen for a socket or a pidfd we own; the channel then learns of the
            // worker's end by its other descriptor or by a failed write.
            handlers.withLock { _ = $0.byToken.removeValue(forKey: token) }
        }
        return token
    }

    /// Starts or stops watching a registered descriptor for writing.
    func watch(descriptor: Int32, token: Token, writing: Bool) {
        var event = epoll_event()
        event.events = Self.interest(writing: writing)
        event.data.u64 = token
        _ = epoll_ctl(epoll, EPOLL_CTL_MOD, descriptor, &event)
    }

    /// Stops watching `descriptor`. Call it before closing the descriptor.
    func unregister(descriptor: Int32, token: Token) {
        var event = epoll_event()
        _ = epoll_ctl(epoll, EPOLL_CTL_DEL, descriptor, &event)
        handlers.withLock { _ = $0.byToken.removeValue(forKey: token) }
    }

    /// How many registrations there are: for tests that nothing stays registered.
    var registrationCount: Int { handlers.withLock { $0.byToken.count } }

    private static func interest(writing: Bool) -> UInt32 {
        readable | EPOLLRDHUP.rawValue | (writing ? writable : 0)
    }

    private func run() {
        DedicatedThreads.takeNiceOfMainThread()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 65536, alignment: 16)
        let capacity = 64
        let events = UnsafeMutablePointer<epoll_event>.allocate(capacity: capacity)
        while true {
            let count = epoll_wait(epoll, events, Int32(capacity), -1)
            if count < 0 {
                if errno == EINTR { continue }
                fatalError("epoll_wait: \(String(cString: strerror(errno)))")
            }
            for index in 0..<Int(count) {
                let event = events[index]
                let token = event.data.u64
                guard let handler = handlers.withLock({ $0.byToken[token] }) else { continue }
                handler(event.events, buffer)
            }
        }
    }
}

/// A plain mutex for state that several threads reach (the caller's, the reactor's, the
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
