import Glibc

/// Starts a plain pthread, never joined, that runs `body`: for the host's own threads that live as
/// long as the process. `attributes` choose its scheduling; without them it inherits the caller's.
package func startDetachedThread(
    attributes: UnsafePointer<pthread_attr_t>? = nil, _ body: @escaping @Sendable () -> Void
) {
    let context = Unmanaged.passRetained(ThreadBody(body)).toOpaque()
    var thread = pthread_t()
    let status = pthread_create(
        &thread, attributes,
        { context in
            Unmanaged<ThreadBody>.fromOpaque(context!).takeRetainedValue().body()
            return nil
        }, context)
    precondition(status == 0, "pthread_create: \(String(cString: strerror(status)))")
    pthread_detach(thread)
}

/// What a thread runs, handed to it through pthread_create's one pointer.
private final class ThreadBody: Sendable {
    let body: @Sendable () -> Void

    init(_ body: @escaping @Sendable () -> Void) {
        self.body = body
    }
}

/// Gives the calling thread the nice value of the host's main thread. On Linux a nice value is a
/// thread's, and a new thread inherits its creator's; PRIO_PROCESS with the process id names the
/// main thread. Best effort: a lower value than ours may take a privilege.
package func takeNiceOfMainThread() {
    let which = __priority_which_t(PRIO_PROCESS.rawValue)
    errno = 0
    let nice = getpriority(which, id_t(getpid()))
    if errno == 0 { setpriority(which, 0, nice) }  // 0: the calling thread
}
