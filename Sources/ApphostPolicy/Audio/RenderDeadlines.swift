/// When a session's real-time audio thread is demoted (issue 34, point 9): as JACK and PipeWire
/// do, a render that keeps missing its deadlines while it keeps a processor busy loses its
/// real-time priority, so that it cannot hold back the healthy sessions' threads (which run at the
/// same priority, and wait behind it).
public struct RenderDeadlinePolicy: Sendable, Equatable {
    /// The share of one core its audio thread used between two meter readings, at least, for a
    /// reading in which it missed periods to count as a strike. A healthy render takes a few
    /// percent or less (tone.c: under 0.5%); one that misses because others starved it takes
    /// no more than that. Low, a twentieth: where the kernel schedules real-time threads by
    /// cgroup (cgroup v1, RT_GROUP_SCHED), all the workers' audio threads share the real-time
    /// time the host allotted their cgroup (`CPUWeightCgroup`: a quarter of a core or less on
    /// the 2-core VM, less again beside other hosts), and a render that spins gets no more than
    /// that before every one of them, itself included, is throttled.
    public var busyShare: Double
    /// Strikes in a row, at one meter reading a second, before the thread is demoted.
    public var strikes: Int

    public init(busyShare: Double = 0.05, strikes: Int = 2) {
        self.busyShare = busyShare
        self.strikes = strikes
    }
}

/// One session's render thread watched against `RenderDeadlinePolicy`, from the meter readings
/// the core takes once a second: owns what it remembers of the last reading, and says, once, when
/// the thread should be demoted. A new thread (a new stream) starts a new watch.
struct RenderDeadlineWatch: Equatable {
    /// A demotion and what earned it: the periods missed over the strikes, and the thread's
    /// share of a core in the last of them.
    struct Demotion: Equatable {
        var missed: UInt64
        var busyShare: Double
        var over: Duration
    }

    private struct Reading: Equatable {
        var xruns: UInt64
        var busy: Duration
        var at: Duration
    }

    private var last: Reading?
    private var strikes = 0
    private var missed: UInt64 = 0
    private var since: Duration = .zero
    private(set) var demoted = false

    /// A meter reading: the session's xruns so far, its audio thread's CPU time so far, and the
    /// host's uptime. Returns the demotion the first time the policy calls for one, else nil.
    mutating func observe(xruns: UInt64, busy: Duration, at now: Duration, policy: RenderDeadlinePolicy)
        -> Demotion?
    {
        let reading = Reading(xruns: xruns, busy: busy, at: now)
        defer { last = reading }
        guard !demoted, let last, now > last.at, xruns >= last.xruns, busy >= last.busy else {
            strikes = 0
            missed = 0
            return nil
        }
        let share = (busy - last.busy) / (now - last.at)
        guard xruns > last.xruns, share >= policy.busyShare else {
            strikes = 0
            missed = 0
            return nil
        }
        if strikes == 0 { since = last.at }
        strikes += 1
        missed += xruns - last.xruns
        guard strikes >= policy.strikes else { return nil }
        demoted = true
        return Demotion(missed: missed, busyShare: share, over: now - since)
    }
}
