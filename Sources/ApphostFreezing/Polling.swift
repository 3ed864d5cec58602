import Glibc

/// Waits for a condition the kernel only lets us read, not wait on: checks it, then again after
/// short sleeps that grow from 0.2 ms to 10 ms, so that a fast confirmation costs little and a
/// slow one does not spin. Gives up at the timeout.
enum Polling {
    /// True once `condition` holds; false when `timeout` passes first. Errors of `condition` end
    /// the wait and are thrown.
    static func until(
        timeout: Duration, _ condition: () throws(FreezeError) -> Bool
    ) throws(FreezeError) -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        var pause: UInt32 = 200
        while true {
            if try condition() { return true }
            guard clock.now < deadline else { return false }
            usleep(pause)
            pause = min(pause * 2, 10_000)
        }
    }
}
