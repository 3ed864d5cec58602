import ApphostCore
import Dispatch
import Foundation

/// A host core on a private queue, with fake guests, a manual clock and a recorded event stream.
public final class CoreHarness: @unchecked Sendable {
    // The core and the clock are driven only inside `queue.sync`.
    public let queue = DispatchQueue(label: "test.host")
    public let opener = FakeOpener()
    public let clock = ManualClock()
    public let events = EventRecorder()
    public private(set) var core: HostCore!

    public init(
        restartPolicy: RestartPolicy = .never, watchdog: WatchdogPolicy = WatchdogPolicy(),
        background: BackgroundPolicy = BackgroundPolicy(), memoryLimit: UInt64? = nil, store: (any SessionStore)? = nil,
        backgroundSceneLimit: Int? = nil, scenes: ScenePolicy = ScenePolicy()
    ) {
        let events = events
        core = HostCore(
            opener: opener, clock: clock, hostQueue: queue, sessionIDs: SeededSessionIDs(),
            guestsDirectory: "/nonexistent",
            restartPolicy: restartPolicy, watchdog: watchdog, background: background, memoryLimit: memoryLimit,
            store: store, backgroundSceneLimit: backgroundSceneLimit, scenes: scenes, emit: { events.append($0) })
    }

    /// Moves the manual clock on, on the host queue, and lets what fell due run. Time stops at
    /// each action that falls due while the replies and events it caused arrive, as they would
    /// in microseconds on a real host: a guest that answers takes no time.
    public func advance(by delay: Duration) {
        let target = queue.sync { clock.uptime() } + delay
        while let next = queue.sync(execute: { clock.nextDeadline }), next <= target {
            run { _ in clock.advance(by: next - clock.uptime()) }
        }
        run { _ in clock.advance(by: target - clock.uptime()) }
    }

    /// Runs `body` on the host queue, then lets every queued reply and completion run.
    @discardableResult
    public func run<T>(_ body: (HostCore) throws -> T) rethrows -> T {
        let result = try queue.sync { try body(core) }
        settle()
        return result
    }

    /// Drains the host queue until it stays empty: replies may queue further work.
    public func settle() {
        for _ in 0..<50 { queue.sync {} }
    }

    public func status() -> HostStatus { queue.sync { core.status() } }

    public func guest(_ id: String) -> GuestStatus? { status().guests.first { $0.id == id } }

    public var calls: CallLog { opener.log }
}
