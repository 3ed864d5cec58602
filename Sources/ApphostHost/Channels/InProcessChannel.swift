import Dispatch
import Synchronization

/// A `GuestChannel` to a guest loaded into the host process. Each message runs on the guest's
/// main queue and its reply comes back on the host queue, both in the order sent; the caller
/// never waits for the guest.
public final class InProcessChannel: GuestChannel {
    let runtime: GuestRuntime
    private let hostQueue: DispatchQueue
    /// Runs on the guest's main queue once the guest is unloaded, before `close`'s completion.
    private let onUnloaded: @Sendable () -> Void
    private let closeRequested = Mutex(false)

    init(runtime: GuestRuntime, hostQueue: DispatchQueue, onUnloaded: @escaping @Sendable () -> Void) {
        self.runtime = runtime
        self.hostQueue = hostQueue
        self.onUnloaded = onUnloaded
    }

    public var descriptor: GuestDescriptor { runtime.descriptor }

    public func send(_ message: GuestMessage, reply: @escaping @Sendable (GuestReply) -> Void) {
        let closed = closeRequested.withLock { $0 }
        // Even a refusal goes through the main queue, so that it cannot overtake the replies to
        // messages sent before it.
        runtime.mainQueue.async { [runtime, hostQueue] in
            let result: GuestReply =
                closed || !runtime.isRunning ? .failure(.closed) : .success(runtime.handle(message))
            hostQueue.async { reply(result) }
        }
    }

    public func close(completion: @escaping @Sendable () -> Void) {
        let first = closeRequested.withLock { requested in
            defer { requested = true }
            return !requested
        }
        runtime.mainQueue.async { [runtime, hostQueue, onUnloaded] in
            if first {
                runtime.stop()
                onUnloaded()
            }
            hostQueue.async { completion() }
        }
    }
}
