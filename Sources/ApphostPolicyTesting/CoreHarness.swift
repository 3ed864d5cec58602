import ApphostPolicy
import ApphostVocabulary
import Foundation

/// A host core with fake guests, a manual clock, a manual executor (no real queue) and a recorded
/// event stream.
public final class CoreHarness: @unchecked Sendable {
    // The core and the clock are driven only inside the executor's work.
    public let executor = ManualExecutor()
    public let opener = FakeOpener()
    public let clock = ManualClock()
    public let events = EventRecorder()
    public let measurements = MeasurementRecorder()
    public private(set) var core: HostCore!

    public init(
        restartPolicy: RestartPolicy = .never, watchdog: WatchdogPolicy = WatchdogPolicy(),
        background: BackgroundPolicy = BackgroundPolicy(), memoryLimit: UInt64? = nil, store: (any SessionStore)? = nil,
        backgroundSceneLimit: Int? = nil, scenes: ScenePolicy = ScenePolicy(), audioMixer: (any AudioMixer)? = nil
    ) {
        let events = events
        let measurements = measurements
        core = HostCore(
            opener: opener, clock: clock, hostQueue: executor, sessionIDs: SeededSessionIDs(),
            guestsDirectory: "/nonexistent",
            restartPolicy: restartPolicy, watchdog: watchdog, background: background, memoryLimit: memoryLimit,
            store: store, backgroundSceneLimit: backgroundSceneLimit, scenes: scenes, audioMixer: audioMixer,
            measure: { measurements.append($0) }, emit: { events.append($0) })
    }

    /// Moves the manual clock on, on the host queue, and lets what fell due run. Time stops at
    /// each action that falls due while the replies and events it caused arrive, as they would
    /// in microseconds on a real host: a guest that answers takes no time.
    public func advance(by delay: Duration) {
        let target = executor.run { clock.uptime() } + delay
        while let next = executor.run({ clock.nextDeadline }), next <= target {
            run { _ in clock.advance(by: next - clock.uptime()) }
        }
        run { _ in clock.advance(by: target - clock.uptime()) }
    }

    /// Runs `body` on the host executor, then lets every queued reply and completion run.
    @discardableResult
    public func run<T>(_ body: (HostCore) throws -> T) rethrows -> T {
        try executor.run { try body(core) }
    }

    /// Runs what waits on the host executor until none is left: replies may queue further work.
    public func settle() {
        executor.drain()
    }

    public func status() -> HostStatus { executor.run { core.status() } }

    public func guest(_ id: String) -> GuestStatus? { status().guests.first { $0.id == id } }

    public var calls: CallLog { opener.log }
}
