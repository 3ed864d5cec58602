import CApphost
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A Swift closure that the host calls on the guest's main queue through a C function pointer
/// and a `void *context`: an expiration handler (`begin_task`), a timer's work
/// (`schedule_timer`), async work (`dispatch_async`) or a save's confirmation
/// (`save_scene_state_confirmed`, ABI 1.7). The context is always a `HostCallout`.
///
/// Ownership rule. The host never frees a context (background.h), so the SDK manages it:
///
/// 1. Handing a callout to the host retains it once (`Unmanaged.passRetained`): that +1 is the
///    host's reference, and it keeps the closure and what the closure captures alive.
/// 2. The SDK releases that reference exactly once, as soon as the host can no longer start the
///    closure:
///    - the host refused it (`begin_task` returned the invalid id, `schedule_timer` or
///      `dispatch_async` an error): at once, since the host never saw the pointer;
///    - a one-shot callout (expiration handler, one-shot timer, async work): when its run ends;
///    - a callout the guest retired (`end_task` or `cancel_timer` returned OK): when the run
///      under way ends, if there is one; else at once if the guest retired it on the main
///      queue (from a callback or another callout's closure), where no call into this one can
///      be under way; else, from another thread, by a release item queued on the main queue
///      with `dispatch_async`. The headers promise only that nothing *starts* after `end_task`
///      or `cancel_timer` returns, and a call from another thread can return while the host is
///      already on its way into the closure; the main queue is serial, so a release queued
///      behind that call runs after it;
///    - at the guest's deinit, for whatever is left (timers never cancelled, tasks never ended,
///      release items the host dropped): the host calls nothing after deinit.
/// 3. A run that starts after the callout was retired (the race above) does not call the
///    closure: a cancelled timer's work or an ended task's expiration handler never runs.
///
/// Every live host reference is also listed in ``registry`` (unretained), so that deinit can
/// find them; the two change together, under ``state``'s lock and then the registry's.
///
/// `@unchecked Sendable`: `body` is immutable and called only on the main queue; the rest is
/// behind the lock.
final class HostCallout: @unchecked Sendable {
    /// The closure. Its argument is the task id for an expiration handler, else 0.
    private let body: @GuestActor (UInt64) -> Void
    /// One-shot callouts are retired when their first run ends.
    private let oneShot: Bool
    private let state = Mutex(State())

    private struct State {
        /// The host holds the +1 reference from ``retainForHost()``.
        var hostHoldsReference = false
        /// The guest ended or cancelled it, or its one run is over: the host starts it no more.
        var retired = false
        /// A run is under way on the main queue.
        var running = false
        /// The host's reference now belongs to a release item queued with `dispatch_async`.
        var releaseQueued = false
    }

    init(oneShot: Bool, body: sending @escaping @GuestActor (UInt64) -> Void) {
        self.oneShot = oneShot
        self.body = body
    }

    // MARK: - Handing it to the host and taking it back

    /// Takes the host's reference (rule 1) and returns the context pointer for the host.
    func retainForHost() -> UnsafeMutableRawPointer {
        state.withLock { $0.hostHoldsReference = true }
        let unmanaged = Unmanaged.passRetained(self)
        Self.registry.withLock { $0[ObjectIdentifier(self)] = unmanaged }
        return unmanaged.toOpaque()
    }

    /// The host refused the callout: it never saw the pointer, so release at once.
    func hostRefused() {
        releaseHostReference()
    }

    /// The guest ended the task or cancelled the timer and the host said OK: the host starts
    /// the closure no more (rule 2). `host` and `background` are used to queue the release.
    func retire(host: UnsafePointer<apphost_host_t>, background: UnsafePointer<apphost_background_t>) {
        let onMainQueue = MainQueue.isCurrent
        enum Next { case nothing, releaseNow, queueRelease }
        let next = state.withLock { state -> Next in
            guard state.hostHoldsReference, !state.retired else { return .nothing }
            state.retired = true
            // A run under way releases when it ends.
            guard !state.running else { return .nothing }
            if onMainQueue { return .releaseNow }
            state.releaseQueued = true
            return .queueRelease
        }
        switch next {
        case .nothing: return
        case .releaseNow: releaseHostReference()
        case .queueRelease: queueRelease(host: host, background: background)
        }
    }

    private func queueRelease(host: UnsafePointer<apphost_host_t>, background: UnsafePointer<apphost_background_t>) {
        let context = Unmanaged.passUnretained(self).toOpaque()
        let status = background.pointee.dispatch_async?(host, hostCalloutReleaseTrampoline, context)
        if status != Int32(APPHOST_OK.rawValue) {
            // No release item: a run already on its way will release (it finds the callout
            // retired), and if none comes, deinit does.
            state.withLock { $0.releaseQueued = false }
        }
    }

    /// Releases the host's reference, unless it is already released.
    private func releaseHostReference() {
        let release = state.withLock { state -> Bool in
            guard state.hostHoldsReference else { return false }
            state.hostHoldsReference = false
            state.retired = true
            return true
        }
        guard release else { return }
        Self.registry.withLock { $0[ObjectIdentifier(self)] = nil }
        // Balances retainForHost. The caller holds a strong reference of its own, so `self`
        // lives until it returns.
        Unmanaged.passUnretained(self).release()
    }

    // MARK: - Runs

    /// One call from the host, on the main queue.
    private func run(_ argument: UInt64) {
        let proceed = state.withLock { state -> Bool in
            guard state.hostHoldsReference, !state.retired, !state.running else { return false }
            state.running = true
            return true
        }
        if proceed {
            onMainQueue { body(argument) }
        }
        let release = state.withLock { state -> Bool in
            if proceed {
                state.running = false
                if oneShot { state.retired = true }
            }
            return state.hostHoldsReference && state.retired && !state.releaseQueued
        }
        if release {
            releaseHostReference()
        }
    }

    /// The callout for a context the host passes back. The result is a strong reference, which
    /// keeps the callout alive while it runs even if the run releases the host's reference.
    fileprivate static func from(_ context: UnsafeMutableRawPointer?) -> HostCallout? {
        guard let context else { return nil }
        return Unmanaged<HostCallout>.fromOpaque(context).takeUnretainedValue()
    }

    fileprivate static func fire(_ context: UnsafeMutableRawPointer?, _ argument: UInt64) {
        from(context)?.run(argument)
    }

    fileprivate static func releaseQueued(_ context: UnsafeMutableRawPointer?) {
        from(context)?.releaseHostReference()
    }

    // MARK: - Deinit

    /// Every callout whose reference the host holds, by identity, unretained.
    private static let registry = Mutex<[ObjectIdentifier: Unmanaged<HostCallout>]>([:])

    /// Releases every reference the host still holds. Called from the guest's deinit, after
    /// which the host starts nothing (entry.h), and so once per launch.
    static func releaseAll() {
        let left = registry.withLock { registry -> [Unmanaged<HostCallout>] in
            let left = Array(registry.values)
            registry.removeAll()
            return left
        }
        for unmanaged in left {
            // A strong local first: releaseHostReference may drop the last other reference.
            let callout = unmanaged.takeUnretainedValue()
            callout.releaseHostReference()
        }
    }
}

// MARK: - The C trampolines: capture nothing, so they convert to C function pointers.

/// `apphost_work_t` for timers and async work.
let hostCalloutWorkTrampoline: apphost_work_t = { context in
    HostCallout.fire(context, 0)
}

/// `apphost_expiration_handler_t` for background tasks.
let hostCalloutExpirationTrampoline: apphost_expiration_handler_t = { context, task in
    HostCallout.fire(context, task)
}

/// `apphost_save_confirmation_t` for confirmed saves: the argument is the status's bits.
let hostCalloutConfirmationTrampoline: apphost_save_confirmation_t = { context, _, status in
    HostCallout.fire(context, UInt64(UInt32(bitPattern: status)))
}

/// `apphost_work_t` for the release items that ``HostCallout/retire(host:background:)`` queues.
private let hostCalloutReleaseTrampoline: apphost_work_t = { context in
    HostCallout.releaseQueued(context)
}
