/// A figure the core measured for the host's metrics (CONTRACT O2), not for its event stream:
/// handed to the `measure` hook given to `HostCore`, on the host queue. The core only measures,
/// on its clock; what is kept of it, and how, is the host's.
public enum HostMeasurement: Sendable, Equatable {
    /// A callback's round trip: from the host handing the call to `guest`'s channel until the
    /// guest's reply arrives on the host queue, on the host clock. A callback sent while others
    /// wait includes the time it waited behind them. Only callbacks that run the guest's code (those
    /// the event stream shows as `callback`) and that were answered: a guest that crashed in one
    /// gave no answer. `callback` is the call's C name, or "action <name>" for an action.
    case callbackRoundTrip(guest: String, callback: String, duration: Duration)
    /// `count` more samples of `guest`'s audio stream that were not numbers or beyond the mixer's
    /// limit, since the last meter reading (CONTRACT X7): the mixer silenced their periods.
    case audioBadSamples(guest: String, count: UInt64)
    /// `count` more periods the mixer did not finish before its output needed them, since the
    /// last meter reading (C13; `ctl audio` and the output's audio-meter event say how many in all).
    case audioMixerOverruns(count: UInt64)
}
