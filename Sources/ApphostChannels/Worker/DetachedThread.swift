import Glibc

/// Starts a plain pthread, never joined, that runs `body`: for the host's own threads that live as
/// long as the process. `attributes` choose its scheduling; without them it inherits the caller's.
func startDetachedThread(attributes: UnsafePointer<pthread_attr_t>? = nil, _ body: @escaping @Sendable () -> Void) {
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
