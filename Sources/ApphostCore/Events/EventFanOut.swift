import Synchronization

/// Hands every host event to each subscriber: the launch command's printer and the control
/// socket's `events` followers. Subscribers are called on the publisher's thread (the host
/// queue), in order, so they must not block.
public final class EventFanOut: Sendable {
    private struct Subscribers: ~Copyable {
        var handlers: [Int: @Sendable (HostEvent) -> Void] = [:]
        var nextID = 0
    }

    private let subscribers = Mutex(Subscribers())

    public init() {}

    public func publish(_ event: HostEvent) {
        let handlers = subscribers.withLock { $0.handlers.sorted { $0.key < $1.key }.map(\.value) }
        for handler in handlers { handler(event) }
    }

    /// Calls `handler` with every event published from now on until the subscription is cancelled.
    public func subscribe(_ handler: @escaping @Sendable (HostEvent) -> Void) -> EventSubscription {
        let id = subscribers.withLock { state in
            let id = state.nextID
            state.nextID += 1
            state.handlers[id] = handler
            return id
        }
        return EventSubscription { [weak self] in
            _ = self?.subscribers.withLock { $0.handlers.removeValue(forKey: id) }
        }
    }
}

/// A subscription to the event stream; cancelling it more than once is harmless.
public final class EventSubscription: Sendable {
    private let onCancel: @Sendable () -> Void

    init(onCancel: @escaping @Sendable () -> Void) { self.onCancel = onCancel }

    public func cancel() { onCancel() }
}
