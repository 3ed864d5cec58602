/// Runs `then` after `tick` has been called `count` times. Host queue only.
final class Countdown: @unchecked Sendable {
    private var remaining: Int
    private let then: @Sendable () -> Void
    init(_ count: Int, then: @escaping @Sendable () -> Void) {
        remaining = count
        self.then = then
    }
    func tick() {
        remaining -= 1
        if remaining == 0 { then() }
    }
}
