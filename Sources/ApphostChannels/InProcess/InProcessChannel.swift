import ApphostModel
import ApphostVocabulary
import Dispatch
import Synchronization

/// A `GuestChannel` to a guest loaded into the host process and run by the C guest runtime. Each
/// message runs on the guest's main queue and its reply comes back on the host queue, both in the
/// order sent; the caller never waits for the guest. Suspending it holds messages back; it cannot
/// stop threads the guest started itself, which only process isolation can.
public final class InProcessChannel: GuestChannel {
    let guest: InProcessGuest
    private let hostQueue: any HostExecutor
    /// Runs on the guest's main queue once the guest is unloaded, before `close`'s completion.
    private let onUnloaded: @Sendable () -> Void
    private let state = Mutex(State())

    private struct State {
        var closeRequested = false
        var suspended = false
        /// Messages sent while suspended, in order, delivered on resume.
        var held: [(GuestMessage, @Sendable (GuestReply) -> Void)] = []
    }

    init(guest: InProcessGuest, hostQueue: any HostExecutor, onUnloaded: @escaping @Sendable () -> Void) {
        self.guest = guest
        self.hostQueue = hostQueue
        self.onUnloaded = onUnloaded
    }

    public var descriptor: GuestDescriptor { guest.descriptor }

    /// The guest's audio thread is one of the host's own.
    public func audioThreadCPUTime(_ thread: Int32) -> Duration? {
        AudioThreadPriority.cpuTime(thread: thread, of: nil)
    }

    public func demoteAudioThread(_ thread: Int32) -> Bool {
        AudioThreadPriority.demote(thread: thread, of: nil)
    }

    public func send(_ message: GuestMessage, reply: @escaping @Sendable (GuestReply) -> Void) {
        let closed = state.withLock { state -> Bool? in
            if state.suspended && !state.closeRequested {
                state.held.append((message, reply))
                return nil
            }
            return state.closeRequested
        }
        guard let closed else { return }
        deliver(message, closed: closed, reply: reply)
    }

    private func deliver(_ message: GuestMessage, closed: Bool, reply: @escaping @Sendable (GuestReply) -> Void) {
        // Even a refusal goes through the main queue, so that it cannot overtake the replies to
        // messages sent before it.
        guest.mainQueue.async { [guest, hostQueue] in
            let result: GuestReply =
                closed || !guest.isRunning ? .failure(.closed) : .success(guest.handle(message))
            hostQueue.execute { reply(result) }
        }
    }

    public func suspend(completion: @escaping @Sendable (Result<Void, ChannelFailure>) -> Void) {
        state.withLock { $0.suspended = true }
        // Confirmed once every message sent before has run: the main queue is then idle.
        guest.mainQueue.async { [hostQueue] in hostQueue.execute { completion(.success(())) } }
    }

    public func resume(completion: @escaping @Sendable (Result<Void, ChannelFailure>) -> Void) {
        let held = state.withLock { state in
            state.suspended = false
            defer { state.held = [] }
            return state.held
        }
        hostQueue.execute { completion(.success(())) }
        for (message, reply) in held { deliver(message, closed: false, reply: reply) }
    }

    public func close(completion: @escaping @Sendable () -> Void) {
        let (first, held) = state.withLock { state in
            defer {
                state.closeRequested = true
                state.held = []
            }
            return (!state.closeRequested, state.held)
        }
        for (_, reply) in held { hostQueue.execute { reply(.failure(.closed)) } }
        guest.mainQueue.async { [guest, hostQueue, onUnloaded] in
            if first {
                guest.stop()
                onUnloaded()
            }
            hostQueue.execute { completion() }
        }
    }
}
