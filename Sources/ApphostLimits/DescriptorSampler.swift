import Dispatch

/// Calls `sample` every `interval` on a queue of its own until it is deinitialized: the kernel
/// keeps no count of EMFILE, so the limiter looks at the workers' descriptors now and then
/// (CONTRACT X2). The timer holds the closure, not the sampler, so dropping the sampler ends it.
final class DescriptorSampler: Sendable {
    /// A DispatchSourceTimer is thread-safe (resume and cancel may come from any thread) but not
    /// marked Sendable; it is only created in init and cancelled in deinit.
    private nonisolated(unsafe) let timer: any DispatchSourceTimer

    init(interval: Duration, _ sample: @escaping @Sendable () -> Void) {
        timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "apphost.limits.sampler"))
        let nanoseconds =
            Int(interval.components.seconds) * 1_000_000_000
            + Int(interval.components.attoseconds / 1_000_000_000)
        timer.schedule(
            deadline: .now() + .nanoseconds(nanoseconds), repeating: .nanoseconds(nanoseconds),
            leeway: .nanoseconds(nanoseconds / 10))
        timer.setEventHandler(handler: sample)
        timer.resume()
    }

    deinit { timer.cancel() }
}
