import CApphost
import Synchronization

extension Apphost {
    /// The background extension, "apphost.background/1" (`background.h`): background tasks with
    /// a time budget, and timers and async work on the guest's main queue. Nil when the host
    /// does not offer it. Thread-safe; each access asks the host again, so keep the result.
    public var background: Background? { Background(host: self) }
}

/// Background work for a guest: the C ABI's `apphost_background_t`, the host's
/// "apphost.background/1" extension. Get it from ``Apphost/background``.
///
/// While any of the guest's scenes is in the foreground, time is unlimited. When the guest
/// enters background its budget starts (30 s by default), shared by all its tasks; a grace
/// period (5 s by default) before it ends, the expiration handler of every open task runs, and
/// must end its task. A guest still holding tasks when the budget ends is suspended or
/// terminated (CONTRACT B2 to B4); a guest in background with no open task is suspended about
/// a second later (B6). So begin a task in `sceneDidEnterBackground` for work that must finish,
/// and end it when the work is done.
///
/// ```swift
/// guard let task = background.beginTask("upload", expirationHandler: { task in
///     uploader.stop()
///     try? task.end()
/// }) else { return }  // no background time left (B1)
/// // ... later, on the main queue or any thread:
/// try? task.end()
/// ```
///
/// Threading: every member may be called from any thread. The closures given to
/// ``beginTask(_:expirationHandler:)``, ``schedule(after:repeating:_:)`` and ``async(_:)`` are
/// isolated to ``GuestActor``: they run on the guest's main queue, one at a time with the
/// host's callbacks, and may use the delegates' state. They are `sending`, so a closure written
/// on another thread may not keep what it captures shared with that thread. Those of
/// ``startTask(_:operation:)`` and ``run(_:operation:)`` keep the isolation they were written
/// in. Nothing runs while the guest is suspended (B7): a timer that fell due meanwhile runs once
/// when it resumes.
///
/// `@unchecked Sendable`: it holds the host's constant tables, whose functions are all
/// thread-safe.
public final class Background: @unchecked Sendable {
    /// The host that offers the extension; the SDK logs through it.
    public let host: Apphost
    let table: UnsafePointer<apphost_background_t>

    /// The members the SDK calls, up to `dispatch_async`: all of revision 1's first table, which
    /// every host that offers the extension has.
    static let requiredSize =
        MemoryLayout<apphost_background_t>.offset(of: \apphost_background_t.dispatch_async)!
        + MemoryLayout<UnsafeRawPointer>.size

    /// Wraps the host's table, or returns nil when the host does not offer the extension or its
    /// table lacks a member the SDK calls (a broken host). A host of an older minor version than
    /// these headers may offer a smaller table than theirs: the SDK reads no member past
    /// ``requiredSize`` without checking its `struct_size` first.
    init?(host: Apphost) {
        guard let pointer = host.extensionInterface(APPHOST_BACKGROUND_EXTENSION_ID) else { return nil }
        let table = pointer.assumingMemoryBound(to: apphost_background_t.self)
        guard Int(table.pointee.struct_size) >= Self.requiredSize else { return nil }
        self.host = host
        self.table = table
    }

    // MARK: - Tasks

    /// Begins a background task named `name`, which the host shows to operators (cut to 256
    /// bytes). Returns nil when background work is not possible: the guest is being suspended
    /// or terminated, or its background budget has run out (CONTRACT B1).
    ///
    /// `expirationHandler` runs at most once, on the main queue, a grace period before the
    /// budget ends if the task is still open then (B3), and is given the task, the same object
    /// this returns. It must end it: wind down quickly, then call ``BackgroundTask/end()``. It
    /// never starts once `end()` has returned. The SDK keeps the handler alive until it has run
    /// or can no longer run.
    ///
    /// End every task once, whether it finished or expired; a task still open when the budget
    /// ends makes the guest overrun (B4).
    public func beginTask(
        _ name: String, expirationHandler: sending (@GuestActor (BackgroundTask) -> Void)? = nil
    ) -> BackgroundTask? {
        guard let begin = table.pointee.begin_task else { return nil }
        let task = BackgroundTask(name: name, background: self)
        guard let expirationHandler else {
            let id = begin(host.raw, name, nil, nil)
            guard id != APPHOST_TASK_INVALID else { return nil }
            task.setID(id)
            return task
        }
        // The handler's callout holds the task, so that the handler gets the same handle as
        // the caller even if the caller drops it; the task holds the callout only weakly.
        let callout = HostCallout(oneShot: true) { id in
            task.setID(id)
            expirationHandler(task)
        }
        task.expiration = callout
        let id = begin(host.raw, name, hostCalloutExpirationTrampoline, callout.retainForHost())
        guard id != APPHOST_TASK_INVALID else {
            callout.hostRefused()
            return nil
        }
        task.setID(id)
        return task
    }

    /// Seconds left of the guest's background budget: nil while a scene is in the foreground
    /// (unlimited), counting down to zero in background (CONTRACT B2). Thread-safe. Reads as
    /// zero if the host cannot say, the safe assumption for a guest deciding whether to start
    /// more work.
    public var timeRemaining: Duration? {
        guard let function = table.pointee.time_remaining else { return .zero }
        var seconds = 0.0
        guard function(host.raw, &seconds) == Int32(APPHOST_OK.rawValue) else { return .zero }
        return Self.duration(seconds: seconds)
    }

    /// The Swift form of a `time_remaining` value: nil for unlimited.
    static func duration(seconds: Double) -> Duration? {
        if seconds.isNaN || seconds <= 0 { return .zero }
        if seconds >= APPHOST_BACKGROUND_TIME_UNLIMITED { return nil }
        // Duration counts whole seconds in an Int64: no real budget comes near this.
        return .seconds(min(seconds, 1e15))
    }

    /// Begins a background task named `name` now, runs `operation` in a new Swift `Task`, and
    /// ends the background task when `operation` returns or throws. Returns that `Task`, whose
    /// `value` is what `operation` returned or threw. The way to finish async work in
    /// background: call it from `sceneDidEnterBackground`, so that the task is open before the
    /// callback returns (B6: a guest in background with no open task is suspended soon after).
    ///
    /// ```swift
    /// func sceneDidEnterBackground(_ scene: Scene) {
    ///     do {
    ///         try scene.host.background?.startTask("sync") { try await store.sync() }
    ///     } catch {
    ///         scene.host.log(level: .warning, "no time to sync: \(error)")  // B1
    ///     }
    /// }
    /// ```
    ///
    /// `operation` runs where a `Task { }` written in its place would: isolated to
    /// ``GuestActor`` when written in a delegate's method, so it may use the delegate's
    /// properties (and `self` may be left implicit, as in `Task { }`), and hops to other
    /// threads only at its own `await`s.
    ///
    /// When the task's time is nearly up (B3), the SDK cancels the `Task`: `Task.sleep`,
    /// `Task.checkCancellation()` and other cancellation-aware code then throw
    /// `CancellationError`. Return promptly then, within the grace period: the background task
    /// stays open until `operation` returns, and a task still open when the budget ends makes
    /// the guest overrun (B4). Cancelling the returned `Task` cancels `operation` too.
    ///
    /// Throws ``ApphostError/invalidState``, without running `operation`, when background
    /// work is not possible (B1). Thread-safe.
    @discardableResult
    public func startTask<T: Sendable>(
        _ name: String,
        @_inheritActorContext @_implicitSelfCapture operation: sending @escaping @isolated(any) () async throws -> T
    ) throws -> Task<T, any Error> {
        let canceller = Canceller()
        guard let task = beginTask(name, expirationHandler: { _ in canceller.cancel() }) else {
            throw ApphostError.invalidState
        }
        let host = host
        let work = Task<T, any Error> {
            defer {
                do {
                    try task.end()
                } catch {
                    host.log(level: .warning, "ApphostSDK: ending background task \"\(name)\" failed: \(error)")
                }
            }
            return try await operation()
        }
        canceller.set { work.cancel() }
        return work
    }

    /// Runs `operation` as a background task named `name` and returns or rethrows what it did:
    /// ``startTask(_:operation:)``, awaited. Cancelling the caller's task cancels `operation`.
    ///
    /// Begin the task with ``startTask(_:operation:)`` from `sceneDidEnterBackground` itself:
    /// a `Task` started there that calls this may begin the background task only after the
    /// callback has returned, when the host may already be suspending the guest (B6).
    ///
    /// Throws ``ApphostError/invalidState``, without running `operation`, when background
    /// work is not possible (B1).
    public func run<T: Sendable>(
        _ name: String,
        @_inheritActorContext @_implicitSelfCapture operation: sending @escaping @isolated(any) () async throws -> T
    ) async throws -> T {
        let work = try startTask(name, operation: operation)
        return try await withTaskCancellationHandler {
            try await work.value
        } onCancel: {
            work.cancel()
        }
    }

    // MARK: - Work on the main queue

    /// Runs `work` on the guest's main queue after `delay`, then every `interval` if it is
    /// given, until the timer is cancelled. The host runs it, so it never runs while the guest
    /// is suspended; a timer that fell due then runs once when the guest resumes, however
    /// often it fell due (CONTRACT B7, B8). A timer does not keep the guest running in
    /// background: only an open task does.
    ///
    /// A repeating timer runs until ``BackgroundTimer/cancel()``, even when its handle is
    /// dropped. The SDK keeps `work` alive until the timer has run (one-shot) or is cancelled.
    /// Throws ``ApphostError/invalidArgument`` for an `interval` that is not positive.
    @discardableResult
    public func schedule(
        after delay: Duration, repeating interval: Duration? = nil, _ work: sending @escaping @GuestActor () -> Void
    ) throws -> BackgroundTimer {
        if let interval, interval <= .zero { throw ApphostError.invalidArgument }
        guard let schedule = table.pointee.schedule_timer else { throw ApphostError.unsupported }
        let callout = HostCallout(oneShot: interval == nil) { _ in work() }
        var id = APPHOST_TIMER_INVALID
        let status = schedule(
            host.raw, Self.nanoseconds(delay), interval.map(Self.nanoseconds) ?? 0, hostCalloutWorkTrampoline,
            callout.retainForHost(), &id)
        if let error = ApphostError(status: status) {
            callout.hostRefused()
            throw error
        }
        return BackgroundTimer(id: id, background: self, callout: callout)
    }

    /// Runs `work` once on the guest's main queue, after the callbacks and work already queued
    /// there; held while the guest is suspended (B7). The SDK keeps `work` alive until it has
    /// run, or until the guest is unloaded if the host never runs it.
    public func async(_ work: sending @escaping @GuestActor () -> Void) throws {
        guard let dispatch = table.pointee.dispatch_async else { throw ApphostError.unsupported }
        let callout = HostCallout(oneShot: true) { _ in work() }
        let status = dispatch(host.raw, hostCalloutWorkTrampoline, callout.retainForHost())
        if let error = ApphostError(status: status) {
            callout.hostRefused()
            throw error
        }
    }

    /// Whole nanoseconds, rounded up so that a positive duration never becomes 0 (which
    /// `schedule_timer` reads as "not repeating"); 0 for a negative one, UInt64.max past it.
    static func nanoseconds(_ duration: Duration) -> UInt64 {
        guard duration > .zero else { return 0 }
        let (seconds, attoseconds) = duration.components
        let (whole, overflow) = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
        let fraction = UInt64((attoseconds + 999_999_999) / 1_000_000_000)
        let (total, overflow2) = whole.addingReportingOverflow(fraction)
        return overflow || overflow2 ? .max : total
    }
}

/// A background task begun with ``Background/beginTask(_:expirationHandler:)``: end it once
/// with ``end()`` when its work is done or its expiration handler runs.
///
/// `@unchecked Sendable`: its id is set once, under a lock, and the rest is immutable or weak.
public final class BackgroundTask: @unchecked Sendable, CustomStringConvertible {
    /// The name given to `beginTask`.
    public let name: String
    private let background: Background
    private let storedID = Mutex<UInt64>(APPHOST_TASK_INVALID)
    /// The expiration handler's callout, to retire on end. Weak: the callout holds the task,
    /// and the host's reference keeps the callout alive exactly as long as it may run. Set
    /// before the host sees it, never changed after.
    weak var expiration: HostCallout?

    init(name: String, background: Background) {
        self.name = name
        self.background = background
    }

    /// The host's id for the task (`apphost_task_t`), never 0.
    public var id: UInt64 { storedID.withLock { $0 } }

    /// Sets the id, once: `begin_task` returns it, and the expiration handler is told it too
    /// (it may, in principle, run before `begin_task` has returned on another thread).
    func setID(_ id: UInt64) {
        storedID.withLock { if $0 == APPHOST_TASK_INVALID { $0 = id } }
    }

    /// Ends the task (`end_task`). Thread-safe, and safe to call more than once: the host
    /// accepts the first call; later ones throw ``ApphostError/invalidHandle`` (CONTRACT B1),
    /// as does ending a task the host no longer knows. The expiration handler never starts
    /// after the first call returns.
    public func end() throws {
        guard let end = background.table.pointee.end_task else { throw ApphostError.unsupported }
        try ApphostError.check(end(background.host.raw, id))
        expiration?.retire(host: background.host.raw, background: background.table)
    }

    public var description: String { "BackgroundTask(\(id), \"\(name)\")" }
}

/// A timer from ``Background/schedule(after:repeating:_:)``: cancel it with ``cancel()``.
///
/// `@unchecked Sendable`: immutable, but for a weak reference set before anyone sees it.
public final class BackgroundTimer: @unchecked Sendable {
    /// The host's id for the timer (`apphost_timer_t`), never 0.
    public let id: UInt64
    private let background: Background
    /// Weak: the host's reference keeps the callout alive exactly as long as it may run.
    private weak var callout: HostCallout?

    init(id: UInt64, background: Background, callout: HostCallout) {
        self.id = id
        self.background = background
        self.callout = callout
    }

    /// Cancels the timer (`cancel_timer`): its work never starts after this returns, though a
    /// run already under way on the main queue finishes. Thread-safe. Returns false, and does
    /// nothing, for a timer already cancelled or a one-shot timer that has run.
    @discardableResult
    public func cancel() -> Bool {
        guard let cancel = background.table.pointee.cancel_timer,
            cancel(background.host.raw, id) == Int32(APPHOST_OK.rawValue)
        else { return false }
        callout?.retire(host: background.host.raw, background: background.table)
        return true
    }
}

/// Cancels a `run` operation's `Task` from the expiration handler, even if the handler runs
/// before the `Task` exists.
private final class Canceller: Sendable {
    private let state = Mutex<(cancel: (@Sendable () -> Void)?, cancelled: Bool)>((nil, false))

    func set(_ cancel: @escaping @Sendable () -> Void) {
        let cancelNow = state.withLock { state -> Bool in
            state.cancel = cancel
            return state.cancelled
        }
        if cancelNow { cancel() }
    }

    func cancel() {
        let cancel = state.withLock { state -> (@Sendable () -> Void)? in
            state.cancelled = true
            return state.cancel
        }
        cancel?()
    }
}
